import shutil
import duckdb

shutil.copy("/data/sales.csv", "sales.csv")
con = duckdb.connect("/tmp/analysis.duckdb")
con.execute("CREATE TABLE sales AS SELECT * FROM read_csv_auto('sales.csv')")
print(con.execute("SELECT COUNT(*), MAX(units) FROM sales").fetchone())
con.close()
