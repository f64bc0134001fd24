import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("/data/sales.csv")
features = StandardScaler().fit_transform(df[["units", "price"]])
labels = KMeans(n_clusters=3, n_init=10, random_state=0).fit_predict(features)
print(sorted(np.bincount(labels).tolist()))
