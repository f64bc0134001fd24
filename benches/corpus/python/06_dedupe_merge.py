contacts_a = [
    {"email": "Ann@Example.com", "name": "Ann Lee", "phone": None},
    {"email": "bob@example.com", "name": "Bob", "phone": "555-0101"},
    {"email": "cy@example.org", "name": "Cy Young", "phone": "555-0199"},
]
contacts_b = [
    {"email": "ann@example.com ", "name": "Ann Lee", "phone": "555-0142"},
    {"email": "dee@example.net", "name": "Dee", "phone": None},
    {"email": "BOB@example.com", "name": "Robert", "phone": None},
]


def normalize(email):
    return email.strip().lower()


merged = {}
for source, rows in (("A", contacts_a), ("B", contacts_b)):
    for row in rows:
        key = normalize(row["email"])
        current = merged.setdefault(key, {"email": key, "name": None,
                                          "phone": None, "sources": []})
        current["sources"].append(source)
        for field in ("name", "phone"):
            if current[field] is None and row[field]:
                current[field] = row[field]

for email in sorted(merged):
    c = merged[email]
    phone = c["phone"] or "-"
    print(f"{email:<18} {c['name']:<9} {phone:<9} {'+'.join(c['sources'])}")

dupes = [e for e, c in merged.items() if len(c["sources"]) > 1]
print(f"{len(merged)} unique contacts, {len(dupes)} merged: {sorted(dupes)}")
missing = sorted(e for e, c in merged.items() if c["phone"] is None)
print("missing phone:", missing)
