class Node {
  constructor(value, next = null) { Object.assign(this, { value, next }); }
}

class LinkedList {
  constructor(iterable = []) {
    this.head = null;
    this.size = 0;
    for (const v of iterable) this.push(v);
  }
  push(value) {
    const node = new Node(value);
    if (!this.head) this.head = node;
    else {
      let cur = this.head;
      while (cur.next) cur = cur.next;
      cur.next = node;
    }
    this.size++;
    return this;
  }
  reverse() {
    let prev = null, cur = this.head;
    while (cur) [cur.next, prev, cur] = [prev, cur, cur.next];
    this.head = prev;
    return this;
  }
  remove(value) {
    let link = { next: this.head };
    for (const dummy = link; link.next; link = link.next) {
      if (link.next.value === value) {
        link.next = link.next.next;
        this.head = dummy.next;
        this.size--;
        return true;
      }
    }
    return false;
  }
  *[Symbol.iterator]() {
    for (let cur = this.head; cur; cur = cur.next) yield cur.value;
  }
  toString() {
    return [...this].join(" -> ") || "(empty)";
  }
}

const list = new LinkedList([10, 20, 30]);
console.log(list);
list.push(40).push(50);
console.log(String(list), "size", list.size);
console.log(list.head);
console.log(list.remove(30), list.remove(99), list.remove(10), `${list}`);
console.log(`${list.reverse()}`, [...list].map((v) => v * 2));
const [first, ...others] = list;
console.log(first, others, Math.max(...list), new LinkedList(), `${new LinkedList()}`);
console.log(new LinkedList("abc"));
console.dir(new LinkedList([1, 2, 3, 4, 5]), { depth: null });
