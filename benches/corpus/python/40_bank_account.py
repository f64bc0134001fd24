class InsufficientFunds(Exception):
    def __init__(self, account, amount):
        super().__init__(f"{account.owner}: cannot withdraw {amount:.2f}, balance {account.balance:.2f}")
        self.shortfall = amount - account.balance


class Account:
    overdraft = 0.0

    def __init__(self, owner, balance=0.0):
        self.owner, self._balance, self.history = owner, balance, []

    @property
    def balance(self):
        return self._balance

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self._balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount):
        if amount > self._balance + self.overdraft:
            raise InsufficientFunds(self, amount)
        self._balance -= amount
        self.history.append(("withdraw", amount))


class SavingsAccount(Account):
    rate = 0.03

    def add_interest(self):
        interest = round(self._balance * self.rate / 12, 2)
        self.deposit(interest)
        return interest


class CheckingAccount(Account):
    overdraft = 80.0


accounts = [Account("Ann", 50), SavingsAccount("Ben", 1200), CheckingAccount("Cat", 20)]
ann, ben, cat = accounts
ben.withdraw(200), ann.deposit(200), cat.withdraw(90)
print("interest for Ben:", ben.add_interest())
for src, dst, amt in ((ann, cat, 500), (cat, ann, 50), (ann, ben, 100)):
    try:
        src.withdraw(amt)
        dst.deposit(amt)
        print(f"moved {amt} {src.owner}->{dst.owner}")
    except InsufficientFunds as e:
        print("failed:", e, f"(short {e.shortfall:.2f})")
try:
    ann.deposit(-5)
except ValueError as e:
    print("error:", e)
for a in accounts:
    print(f"{type(a).__name__}({a.owner!r}, {a.balance:.2f})", len(a.history), "transactions")
print("total holdings:", round(sum(a.balance for a in accounts), 2))
