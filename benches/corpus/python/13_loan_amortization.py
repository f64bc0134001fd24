def monthly_payment(principal, annual_rate, years):
    r = annual_rate / 12
    n = years * 12
    if r == 0:
        return principal / n
    return principal * r * (1 + r) ** n / ((1 + r) ** n - 1)


def schedule(principal, annual_rate, years):
    payment = monthly_payment(principal, annual_rate, years)
    balance = principal
    for month in range(1, years * 12 + 1):
        interest = balance * annual_rate / 12
        principal_part = payment - interest
        balance -= principal_part
        yield month, payment, interest, principal_part, max(balance, 0.0)


loan, rate, years = 25000, 0.065, 5
pay = monthly_payment(loan, rate, years)
print(f"Loan ${loan:,} at {rate:.2%} for {years} years: ${pay:,.2f}/month")
print(f"{'Month':>5} {'Payment':>9} {'Interest':>9} {'Principal':>10} {'Balance':>11}")
total_interest = 0.0
for month, p, i, pp, bal in schedule(loan, rate, years):
    total_interest += i
    if month <= 3 or month % 12 == 0:
        print(f"{month:>5} {p:>9.2f} {i:>9.2f} {pp:>10.2f} {bal:>11.2f}")
print(f"Total interest: ${total_interest:,.2f}")

for r in (0.03, 0.05, 0.08):
    for y in (3, 5):
        print(f"  rate {r:.0%} over {y}y -> {monthly_payment(loan, r, y):8.2f}")
