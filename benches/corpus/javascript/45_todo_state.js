let nextId = 1;
const initialState = { todos: [], filter: "all", lastAction: null };

function reducer(state, action) {
  switch (action.type) {
    case "add":
      return { ...state, todos: [...state.todos, { id: nextId++, text: action.text, done: false, tags: action.tags ?? [] }], lastAction: action.type };
    case "toggle":
      return { ...state, todos: state.todos.map((t) => (t.id === action.id ? { ...t, done: !t.done } : t)), lastAction: action.type };
    case "remove":
      return { ...state, todos: state.todos.filter((t) => t.id !== action.id), lastAction: action.type };
    case "filter":
      return { ...state, filter: action.value, lastAction: action.type };
    default:
      throw new Error(`unknown action: ${action.type}`);
  }
}

const visible = ({ todos, filter }) =>
  todos.filter((t) => filter === "all" || (filter === "done" ? t.done : !t.done));

const actions = [
  { type: "add", text: "Buy milk", tags: ["errand"] },
  { type: "add", text: "Write report", tags: ["work", "urgent"] },
  { type: "add", text: "Call mom" },
  { type: "toggle", id: 1 },
  { type: "add", text: "Fix bike", tags: ["errand", "weekend"] },
  { type: "remove", id: 3 },
  { type: "toggle", id: 4 },
  { type: "filter", value: "open" },
  { type: "undo" },
];

const history = [initialState];
for (const action of actions) {
  try {
    history.push(reducer(history.at(-1), action));
  } catch (err) {
    console.log("skipped:", err.message);
  }
}
const state = history.at(-1);
console.log(state);
console.log(visible(state));
console.log("states recorded:", history.length, "- initial untouched:", initialState.todos.length === 0);
for (const t of state.todos) console.log(`${t.done ? "[x]" : "[ ]"} #${t.id} ${t.text}${t.tags.length ? " (" + t.tags.join(", ") + ")" : ""}`);
const tagCounts = state.todos.flatMap((t) => t.tags).reduce((acc, tag) => ({ ...acc, [tag]: (acc[tag] ?? 0) + 1 }), {});
console.log(tagCounts, history.map((s) => s.todos.length).join(" "));
console.log(Object.isFrozen(state), history[3] === history[4], history[3].todos[0] === history[4].todos[0]);
