import shutil
import polars as pl

shutil.copy("/data/sales.csv", "/tmp/sales.csv")
df = pl.read_csv("/tmp/sales.csv")
print(df.filter(pl.col("region") == "east").select(pl.len()).item())
df.write_parquet("sales.parquet")
print(pl.read_parquet("sales.parquet").shape)
