import duckdb
import pandas as pd

sales = pd.read_csv("/data/sales.csv")
result = duckdb.sql(
    "SELECT region, SUM(units) AS units FROM sales GROUP BY region ORDER BY units DESC"
).fetchall()
for region, units in result:
    print(region, units)
