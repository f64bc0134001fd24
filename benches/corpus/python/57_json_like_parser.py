class ParseError(Exception):
    pass


class MiniJSON:
    def __init__(self, text):
        self.text, self.pos = text, 0

    def parse(self):
        value = self.value()
        self.ws()
        if self.pos != len(self.text):
            raise ParseError(f"extra data at {self.pos}")
        return value

    def ws(self):
        while self.pos < len(self.text) and self.text[self.pos] in " \t\n\r":
            self.pos += 1

    def expect(self, ch):
        self.ws()
        if self.text[self.pos:self.pos + 1] != ch:
            raise ParseError(f"expected {ch!r} at {self.pos}")
        self.pos += 1

    def value(self):
        self.ws()
        ch = self.text[self.pos:self.pos + 1]
        match ch:
            case "":
                raise ParseError("unexpected end of input")
            case "{":
                return self.obj()
            case "[":
                return self.arr()
            case '"':
                return self.string()
            case "t" | "f" | "n":
                for word, val in (("true", True), ("false", False), ("null", None)):
                    if self.text.startswith(word, self.pos):
                        self.pos += len(word)
                        return val
                raise ParseError(f"bad literal at {self.pos}")
            case _ if ch == "-" or ch.isdigit():
                start = self.pos
                self.pos += 1
                while self.pos < len(self.text) and (self.text[self.pos].isdigit() or self.text[self.pos] in ".eE+-"):
                    self.pos += 1
                num = self.text[start:self.pos]
                return float(num) if any(c in num for c in ".eE") else int(num)
            case _:
                raise ParseError(f"unexpected {ch!r} at {self.pos}")

    def string(self):
        self.pos += 1
        out = []
        escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}
        while (ch := self.text[self.pos]) != '"':
            if ch == "\\":
                self.pos += 1
                ch = escapes[self.text[self.pos]]
            out.append(ch)
            self.pos += 1
        self.pos += 1
        return "".join(out)

    def arr(self):
        self.pos += 1
        items = []
        self.ws()
        if self.text[self.pos] == "]":
            self.pos += 1
            return items
        while True:
            items.append(self.value())
            self.ws()
            if self.text[self.pos] == "]":
                self.pos += 1
                return items
            self.expect(",")

    def obj(self):
        self.pos += 1
        result = {}
        self.ws()
        if self.text[self.pos] == "}":
            self.pos += 1
            return result
        while True:
            self.ws()
            key = self.string()
            self.expect(":")
            result[key] = self.value()
            self.ws()
            if self.text[self.pos] == "}":
                self.pos += 1
                return result
            self.expect(",")


doc = '{"name": "widget", "tags": ["a", "b\\"q"], "price": 12.5, "stock": -3, "ok": true, "meta": {"x": null, "e": 1e3}, "empty": []}'
print(MiniJSON(doc).parse())
for bad in ('[1, 2,', '{"a" 1}', '[1, 2] x', 'nope'):
    try:
        print(MiniJSON(bad).parse())
    except (ParseError, IndexError) as e:
        print(f"{bad!r}: {type(e).__name__}: {e}")
