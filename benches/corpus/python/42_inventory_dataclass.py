from dataclasses import dataclass, field, asdict, replace
from enum import Enum


class Category(Enum):
    TOOLS = "tools"
    GARDEN = "garden"
    KITCHEN = "kitchen"


@dataclass(order=True)
class Product:
    sku: str
    name: str = field(compare=False)
    price: float = field(compare=False)
    qty: int = field(default=0, compare=False)
    category: Category = field(default=Category.TOOLS, compare=False)
    tags: list = field(default_factory=list, compare=False, repr=False)

    @property
    def value(self):
        return self.price * self.qty


@dataclass
class Inventory:
    products: dict = field(default_factory=dict)

    def add(self, product):
        self.products[product.sku] = product

    def restock(self, sku, amount):
        self.products[sku].qty += amount

    def low_stock(self, threshold=5):
        return sorted(p for p in self.products.values() if p.qty < threshold)

    def by_category(self):
        out = {}
        for p in self.products.values():
            out.setdefault(p.category.name, []).append(p.name)
        return dict(sorted(out.items()))


inv = Inventory()
inv.add(Product("T-100", "Hammer", 12.5, 10))
inv.add(Product("G-200", "Rake", 19.99, 2, Category.GARDEN, ["outdoor"]))
inv.add(Product("K-300", "Whisk", 4.25, 0, Category.KITCHEN))
inv.add(Product("T-050", "Screwdriver set", 24.0, 3))
inv.add(Product("G-150", "Hose", 31.0, 7, Category.GARDEN))
inv.restock("K-300", 12)
print("low stock:", [p.sku for p in inv.low_stock()])
print("by category:", inv.by_category())
print("total value: $%.2f" % sum(p.value for p in inv.products.values()))
print(inv.products["G-200"])
cheaper = replace(inv.products["G-200"], price=14.99)
print(cheaper.price, inv.products["G-200"].price, cheaper == inv.products["G-200"])
d = asdict(inv.products["T-100"])
print(d | {"category": d["category"].value})
print(sorted(inv.products.values())[0].name, Category("garden"), Category.KITCHEN.value)
