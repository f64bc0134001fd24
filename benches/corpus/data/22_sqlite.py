import csv
import sqlite3

db = sqlite3.connect("/tmp/sales.db")
db.execute("CREATE TABLE sales (date TEXT, region TEXT, product TEXT, units INT, price REAL)")
with open("/data/sales.csv", newline="") as f:
    rows = list(csv.DictReader(f))
db.executemany("INSERT INTO sales VALUES (:date, :region, :product, :units, :price)", rows)
db.commit()
for row in db.execute("SELECT product, SUM(units) FROM sales GROUP BY product ORDER BY product"):
    print(row)
