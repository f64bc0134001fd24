import matplotlib
import matplotlib.pyplot as plt
import pandas as pd

df = pd.read_csv("/data/sales.csv", parse_dates=["date"])
daily = df.groupby("date")["units"].sum()
fig, ax = plt.subplots(figsize=(6, 3))
daily.plot(ax=ax)
ax.set_title("Units per day")
fig.savefig("units.png", dpi=80)
with open("units.png", "rb") as f:
    print(f.read(8))
print(type(fig.canvas).__name__)
