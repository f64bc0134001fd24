const inventory = {
  101: { name: "Keyboard", price: 49.99, stock: 12 },
  102: { name: "Mouse", price: 19.5, stock: 0 },
  103: { name: "Monitor", price: 189.0, stock: 4 },
};

function fetchProduct(id) {
  return new Promise((resolve, reject) => {
    const item = inventory[id];
    if (item) resolve({ id, ...item });
    else reject(new Error(`product ${id} not found`));
  });
}

async function priceOrder(lines) {
  const products = await Promise.all(lines.map((l) => fetchProduct(l.id)));
  return products.map((p, i) => ({ name: p.name, qty: lines[i].qty, subtotal: +(p.price * lines[i].qty).toFixed(2) }));
}

async function main() {
  const order = [{ id: 101, qty: 2 }, { id: 103, qty: 1 }, { id: 102, qty: 3 }];
  const priced = await priceOrder(order);
  console.log(priced);
  const total = priced.reduce((s, l) => s + l.subtotal, 0);
  console.log("total:", total.toFixed(2));

  try {
    await priceOrder([{ id: 101, qty: 1 }, { id: 999, qty: 1 }]);
  } catch (err) {
    console.log("order failed:", err.message);
  }

  const results = await Promise.allSettled([101, 555, 102].map(fetchProduct));
  for (const r of results) {
    console.log(r.status, r.status === "fulfilled" ? r.value.name : r.reason.message);
  }

  const fastest = await Promise.race([fetchProduct(103), new Promise((res) => setTimeout(res, 50, "timeout"))]);
  console.log("race winner:", fastest.name);
  const any = await Promise.any([fetchProduct(0), fetchProduct(102)]);
  console.log("any:", any);
  const inStock = (await Promise.all(Object.keys(inventory).map(fetchProduct))).filter((p) => p.stock > 0);
  console.log(inStock.map((p) => p.name));
}

main().then(() => console.log("main finished"));
console.log("main started");
