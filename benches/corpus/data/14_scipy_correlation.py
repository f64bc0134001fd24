import pandas as pd
from scipy.stats import pearsonr, spearmanr

df = pd.read_csv("/data/sales.csv")
r, p = pearsonr(df["price"], df["units"])
rho, p2 = spearmanr(df["price"], df["units"])
print(f"pearson r={r:.4f} (p={p:.3f}); spearman rho={rho:.4f} (p={p2:.3f})")
