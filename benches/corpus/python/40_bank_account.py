class InsufficientFunds(Exception):
    def __init__(self, account, amount):
        super().__init__(f"{account.owner}: cannot withdraw {amount:.2f}, balance {account.balance:.2f}")
        self.shortfall = amount - account.balance


class Account:
    _next_id = 1000

    def __init__(self, owner, balance=0.0):
        self.owner, self._balance = owner, balance
        self.id = Account._next_id
        Account._next_id += 1
        self.history = []

    @property
    def balance(self):
        return self._balance

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self._balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount):
        if amount > self._balance:
            raise InsufficientFunds(self, amount)
        self._balance -= amount
        self.history.append(("withdraw", amount))

    def __repr__(self):
        return f"{type(self).__name__}(#{self.id}, {self.owner!r}, {self._balance:.2f})"


class SavingsAccount(Account):
    def __init__(self, owner, balance=0.0, rate=0.02):
        super().__init__(owner, balance)
        self.rate = rate

    def add_interest(self):
        interest = round(self._balance * self.rate / 12, 2)
        self.deposit(interest)
        return interest


class OverdraftAccount(Account):
    def __init__(self, owner, balance=0.0, limit=100.0):
        super().__init__(owner, balance)
        self.limit = limit

    def withdraw(self, amount):
        if amount > self._balance + self.limit:
            raise InsufficientFunds(self, amount)
        self._balance -= amount
        self.history.append(("withdraw", amount))


def transfer(src, dst, amount):
    src.withdraw(amount)
    dst.deposit(amount)


accounts = [Account("Ann", 50), SavingsAccount("Ben", 1200, rate=0.03), OverdraftAccount("Cat", 20, limit=80)]
ann, ben, cat = accounts
transfer(ben, ann, 200)
print("interest for Ben:", ben.add_interest())
cat.withdraw(90)
for src, dst, amt in ((ann, cat, 500), (cat, ann, 50), (ann, ben, 100)):
    try:
        transfer(src, dst, amt)
        print(f"moved {amt} {src.owner}->{dst.owner}")
    except InsufficientFunds as e:
        print("failed:", e, f"(short {e.shortfall:.2f})")
try:
    ann.deposit(-5)
except ValueError as e:
    print("error:", e)
for a in accounts:
    print(a, len(a.history), "transactions", isinstance(a, Account))
print("total holdings:", round(sum(a.balance for a in accounts), 2))
