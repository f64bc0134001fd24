from enum import Enum, auto


class State(Enum):
    CREATED = auto()
    PAID = auto()
    SHIPPED = auto()
    DELIVERED = auto()
    CANCELLED = auto()
    REFUNDED = auto()


TRANSITIONS = {
    State.CREATED: {"pay": State.PAID, "cancel": State.CANCELLED},
    State.PAID: {"ship": State.SHIPPED, "cancel": State.REFUNDED},
    State.SHIPPED: {"deliver": State.DELIVERED},
    State.DELIVERED: {"return": State.REFUNDED},
}


class InvalidTransition(Exception):
    pass


class Order:
    def __init__(self, order_id):
        self.order_id = order_id
        self.state = State.CREATED
        self.log = [State.CREATED.name]

    def fire(self, event):
        try:
            self.state = TRANSITIONS[self.state][event]
        except KeyError:
            raise InvalidTransition(f"order {self.order_id}: can't '{event}' when {self.state.name}") from None
        self.log.append(self.state.name)
        return self

    @property
    def is_final(self):
        return self.state not in TRANSITIONS


scenarios = {1: ["pay", "ship", "deliver"], 2: ["pay", "cancel"], 3: ["ship"],
             4: ["cancel", "pay"], 5: ["pay", "ship", "deliver", "return"]}
for oid, events in scenarios.items():
    order = Order(oid)
    try:
        for e in events:
            order.fire(e)
    except InvalidTransition as err:
        print("!", err)
    print(f"order {oid}: {' -> '.join(order.log)} (final={order.is_final})")
print([s.name for s in State if s not in TRANSITIONS])
print(State.PAID.value, State["SHIPPED"], State(4).name, len(State))
