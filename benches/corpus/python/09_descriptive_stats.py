import statistics as st

scores = [72, 85, 90, 66, 85, 78, 93, 58, 85, 77, 88, 70, 95, 81, 64]

print(f"n        = {len(scores)}")
print(f"mean     = {st.mean(scores):.3f}")
print(f"median   = {st.median(scores)}")
print(f"mode     = {st.mode(scores)}")
print(f"stdev    = {st.stdev(scores):.3f}")
print(f"pstdev   = {st.pstdev(scores):.3f}")
print(f"variance = {st.variance(scores):.3f}")
q1, q2, q3 = st.quantiles(scores, n=4)
print(f"quartiles = {q1}, {q2}, {q3}  (IQR {q3 - q1})")

mu, sigma = st.mean(scores), st.stdev(scores)
zs = [(s, (s - mu) / sigma) for s in scores]
outliers = [s for s, z in zs if abs(z) > 1.5]
print("outliers (|z|>1.5):", sorted(outliers))

buckets = {}
for s in scores:
    lo = s // 10 * 10
    buckets[lo] = buckets.get(lo, 0) + 1
for lo in sorted(buckets):
    print(f"{lo:>3}-{lo + 9:<3} {'#' * buckets[lo]}")

hours = [2, 4, 5, 1, 6, 3, 7, 5, 6, 2, 7, 3, 8, 5, 2]
r = st.correlation(hours, scores)
slope, intercept = st.linear_regression(hours, scores)
print(f"correlation(hours, score) = {r:.4f}")
print(f"score ~ {slope:.3f} * hours + {intercept:.3f}")
