class BankAccount {
  #balance = 0;
  #history = [];
  static #nextId = 1;

  constructor(owner, opening = 0) {
    this.id = BankAccount.#nextId++;
    this.owner = owner;
    if (opening > 0) this.deposit(opening);
  }

  get balance() {
    return this.#balance;
  }

  deposit(amount) {
    if (amount <= 0) throw new RangeError("deposit must be positive");
    this.#balance += amount;
    this.#history.push(["deposit", amount]);
    return this;
  }

  withdraw(amount) {
    if (amount > this.#balance) {
      throw new Error(`${this.owner}: cannot withdraw ${amount.toFixed(2)}, balance ${this.#balance.toFixed(2)}`);
    }
    this.#balance -= amount;
    this.#history.push(["withdraw", amount]);
    return this;
  }

  get historyCount() {
    return this.#history.length;
  }

  static isAccount(x) {
    return #balance in x;
  }
}

const ann = new BankAccount("Ann", 50);
const ben = new BankAccount("Ben", 1200);
ben.withdraw(200).deposit(35.5);
console.log(ann);
console.log(ben, ben.balance);

for (const [from, to, amt] of [[ann, ben, 500], [ben, ann, 75], [ann, ben, -3]]) {
  try {
    from.withdraw(amt);
    to.deposit(amt);
    console.log(`moved ${amt} ${from.owner} -> ${to.owner}`);
  } catch (err) {
    console.log(`failed (${err.name}): ${err.message}`);
  }
}
console.log(BankAccount.isAccount(ann), BankAccount.isAccount({ balance: 5 }));
for (const a of [ann, ben]) console.log(a.owner, a.balance.toFixed(2), a.historyCount, "transactions");
console.log(JSON.stringify(ann), Object.keys(ben));
