import pandas as pd
from scipy import stats

df = pd.read_csv("/data/sales.csv")
north = df[df["region"] == "north"]["units"]
south = df[df["region"] == "south"]["units"]
t, p = stats.ttest_ind(north, south)
print(f"t={t:.4f} p={p:.4f}")
print("normal?", stats.shapiro(df["units"]).pvalue > 0.05)
