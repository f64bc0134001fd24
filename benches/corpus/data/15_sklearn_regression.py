import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score

df = pd.read_csv("/data/sales.csv")
X = pd.get_dummies(df[["region", "product"]]).astype(float)
X["price"] = df["price"]
model = LinearRegression().fit(X, df["units"])
print("R^2:", round(r2_score(df["units"], model.predict(X)), 4))
print("features:", len(model.coef_))
