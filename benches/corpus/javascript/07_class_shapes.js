class Shape {
  static count = 0;
  constructor(name) {
    this.name = name;
    Shape.count++;
  }
  get area() {
    return 0;
  }
  describe() {
    return `${this.name} with area ${this.area.toFixed(2)}`;
  }
}

class Circle extends Shape {
  constructor(r) {
    super("circle");
    this.r = r;
  }
  get area() {
    return Math.PI * this.r ** 2;
  }
}

class Rect extends Shape {
  constructor(w, h) {
    super("rect");
    this.w = w;
    this.h = h;
  }
  get area() {
    return this.w * this.h;
  }
  static square(side) {
    return new Rect(side, side);
  }
}

const shapes = [new Circle(1.5), new Rect(3, 4), Rect.square(2.5), new Circle(0.5)];
console.log(shapes);
console.log(shapes[0]);
for (const s of shapes) console.log(s.describe());
console.log("Shapes created:", Shape.count);
console.log(shapes[1] instanceof Shape, shapes[1] instanceof Circle, shapes[2].constructor.name);
const largest = shapes.reduce((a, b) => (b.area > a.area ? b : a));
console.log("Largest:", largest);
console.log(Object.keys(shapes[0]), "area" in shapes[0], Object.hasOwn(shapes[0], "area"));
console.log({ biggest: largest, list: shapes.map((s) => s.name) });
