import matplotlib.pyplot as plt
import pandas as pd
from PIL import Image

df = pd.read_csv("/data/sales.csv")
fig, ax = plt.subplots(figsize=(4, 4))
df["units"].hist(ax=ax, bins=10)
fig.savefig("hist.png", dpi=50)
image = Image.open("hist.png")
print(image.size, image.mode)
image.thumbnail((50, 50))
image.save("/tmp/thumb.png")
print(Image.open("/tmp/thumb.png").size)
