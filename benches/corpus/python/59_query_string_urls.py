from urllib.parse import (urlparse, urlunparse, parse_qs, parse_qsl, urlencode, quote,
                          unquote, urljoin, urlsplit)

urls = [
    "https://user:pw@shop.example.com:8443/products/list?cat=books&sort=price&page=2#reviews",
    "http://example.org/search?q=python+generators&lang=en&lang=fr",
    "ftp://files.example.net/pub/readme.txt",
    "/relative/path?x=1",
]
for u in urls:
    p = urlparse(u)
    print(f"{p.scheme or '-':<6} host={p.hostname!s:<18} port={p.port!s:<5} path={p.path:<20} "
          f"query={dict(parse_qsl(p.query))} frag={p.fragment or '-'}")

q = parse_qs(urlparse(urls[1]).query)
print("multi-valued:", q)

params = {"q": "café & crème", "tags": ["a b", "c/d"], "n": 10}
encoded = urlencode(params, doseq=True)
print("encoded:", encoded)
print("decoded:", parse_qsl(encoded))
print("quote:", quote("/path with spaces/ü?"), "| safe='':", quote("a/b c", safe=""))
print("unquote:", unquote("%E2%9C%93%20done"))

base = "https://example.com/docs/guide/intro.html"
for ref in ("setup.html", "../api/index.html", "/about", "//cdn.example.com/x.js", "#top"):
    print(f"urljoin(..., {ref!r}) = {urljoin(base, ref)}")

parts = urlsplit(urls[0])
cleaned = urlunparse((parts.scheme, parts.hostname, parts.path, "", urlencode(
    sorted((k, v) for k, v in parse_qsl(parts.query) if k != "page")), ""))
print("cleaned:", cleaned)
