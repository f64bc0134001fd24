class InsufficientFundsError extends Error {
  constructor(account, amount) {
    super(`${account.owner}: cannot withdraw ${amount.toFixed(2)}, balance ${account.balance.toFixed(2)}`);
    this.name = "InsufficientFundsError";
    this.shortfall = amount - account.balance;
  }
}

class Account {
  static overdraft = 0;
  constructor(owner, balance = 0) {
    Object.assign(this, { owner, balance, history: [] });
  }
  deposit(amount) {
    if (amount <= 0) throw new RangeError("deposit must be positive");
    this.balance += amount;
    this.history.push({ type: "deposit", amount });
  }
  withdraw(amount) {
    if (amount > this.balance + this.constructor.overdraft) throw new InsufficientFundsError(this, amount);
    this.balance -= amount;
    this.history.push({ type: "withdraw", amount });
  }
  toString() {
    return `${this.constructor.name}(${this.owner}, ${this.balance.toFixed(2)})`;
  }
}

class SavingsAccount extends Account {
  static rate = 0.03;
  addInterest() {
    const interest = Math.round((this.balance * SavingsAccount.rate * 100) / 12) / 100;
    this.deposit(interest);
    return interest;
  }
}

class CheckingAccount extends Account {
  static overdraft = 80;
}

const accounts = [new Account("Ann", 50), new SavingsAccount("Ben", 1200), new CheckingAccount("Cat", 20)];
const [ann, ben, cat] = accounts;
ben.withdraw(200), ann.deposit(200), cat.withdraw(90);
console.log("interest for Ben:", ben.addInterest());
for (const [src, dst, amt] of [[ann, cat, 500], [cat, ann, 50], [ann, ben, 100]]) {
  try {
    src.withdraw(amt);
    dst.deposit(amt);
    console.log(`moved ${amt} ${src.owner}->${dst.owner}`);
  } catch (e) {
    if (!(e instanceof InsufficientFundsError)) throw e;
    console.log("failed:", e.message, `(short ${e.shortfall.toFixed(2)})`);
  }
}
try { ann.deposit(-5); } catch (e) { console.log("error:", e.message); }
for (const a of accounts) console.log(String(a), a.history.length, "transactions");
console.log(accounts);
console.log("total holdings:", accounts.reduce((s, a) => s + a.balance, 0).toFixed(2));
console.log(`${cat}`, cat instanceof Account, Object.getPrototypeOf(SavingsAccount) === Account, SavingsAccount.overdraft);
