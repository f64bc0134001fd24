import polars as pl

with open("/data/sales.csv", "rb") as f:
    df = pl.read_csv(f)
out = (
    df.with_columns((pl.col("units") * pl.col("price")).alias("revenue"))
    .group_by("product")
    .agg(pl.col("revenue").sum().round(2), pl.col("units").mean().round(3))
    .sort("product")
)
print(out)
