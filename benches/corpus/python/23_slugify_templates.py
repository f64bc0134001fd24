import re
import unicodedata
from string import Template


def slugify(title, max_len=40):
    normalized = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^\w\s-]", "", normalized.lower())
    slug = re.sub(r"[\s_-]+", "-", slug).strip("-")
    return slug[:max_len].rstrip("-")


titles = ["Hello, World!", "  Crème Brûlée Recipes (2024)  ", "Über_cool -- Python tips",
          "C'est déjà l'été", "A very long title that definitely goes past the forty character limit"]
for t in titles:
    print(f"{t.strip()!r:<70} -> {slugify(t)}")

tpl = Template("Dear $name,\nYour order #$order ships on $date. Total: $$${total}.")
print(tpl.substitute(name="Ms. Ortiz", order=1042, date="March 3", total="58.20"))
print(Template("Hi $who, $missing").safe_substitute(who="Sam"))


def camel_to_snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def snake_to_camel(name):
    first, *rest = name.split("_")
    return first + "".join(p.title() for p in rest)


for n in ("parseHttpResponse", "userId", "XMLParser"):
    print(n, "->", camel_to_snake(n))
for n in ("max_retry_count", "id", "to_json_string"):
    print(n, "->", snake_to_camel(n))
print(re.sub(r"\b(\w)(\w*)\b", lambda m: m[1].upper() + m[2], "the lord of the rings"))
