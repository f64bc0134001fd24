import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

df = pd.read_csv("/data/sales.csv")
df["big"] = df["units"] > 25
X = pd.get_dummies(df[["region", "product"]]).astype(float)
X["price"] = df["price"]
X_train, X_test, y_train, y_test = train_test_split(X, df["big"], test_size=0.25, random_state=0)
clf = RandomForestClassifier(n_estimators=20, random_state=0).fit(X_train, y_train)
print("test rows:", len(X_test))
print("accuracy:", round(clf.score(X_test, y_test), 4))
