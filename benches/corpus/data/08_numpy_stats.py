import numpy as np
import pandas as pd

units = pd.read_csv("/data/sales.csv")["units"].to_numpy()
print("mean", np.round(units.mean(), 4))
print("std", np.round(units.std(ddof=1), 4))
print("percentiles", np.percentile(units, [10, 50, 90]))
hist, edges = np.histogram(units, bins=5)
print(hist.tolist(), np.round(edges, 2).tolist())
