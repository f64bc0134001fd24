import textwrap

paragraph = (
    "The quick brown fox jumps over the lazy dog. This sentence is famous because "
    "it contains every letter of the English alphabet at least once, which makes it "
    "handy for testing typewriters, keyboards and fonts."
)

for width in (40, 60):
    print(f"--- width {width} ---")
    print(textwrap.fill(paragraph, width=width))

print("--- indented ---")
print(textwrap.fill(paragraph, width=50, initial_indent="  * ", subsequent_indent="    "))

print("--- shortened ---")
print(textwrap.shorten(paragraph, width=60, placeholder=" [...]"))

code = """
    def greet(name):
        return f"hello {name}"
"""
print("--- dedented ---")
print(textwrap.dedent(code).strip())
print(textwrap.indent("line one\nline two\n\nline four", "> "))

lines = textwrap.wrap(paragraph, 30)
print(f"{len(lines)} lines, longest {max(map(len, lines))} chars")
box_w = max(map(len, lines))
print("+" + "-" * (box_w + 2) + "+")
for ln in lines[:4]:
    print(f"| {ln.ljust(box_w)} |")
print("+" + "-" * (box_w + 2) + "+")
print("centered:", "title".center(20, "="), "|", "right".rjust(10, "."))
