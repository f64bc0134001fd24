import numpy as np
import pandas as pd
from scipy.optimize import curve_fit

df = pd.read_csv("/data/sales.csv", parse_dates=["date"])
daily = df.groupby("date")["units"].sum().to_numpy(dtype=float)
x = np.arange(len(daily), dtype=float)

def line(x, a, b):
    return a * x + b

(a, b), _ = curve_fit(line, x, daily)
print(f"trend: {a:.4f} units/day, start {b:.2f}")
