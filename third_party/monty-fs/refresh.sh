#!/usr/bin/env bash
# Rebuilds crate/ (the monty-fs the workspace builds, through
# [patch.crates-io] in the root Cargo.toml) from the published crate and the
# patches in patches/, applied in order:
#   third_party/monty-fs/refresh.sh
# To move to another version: change VERSION and SHA256 (the checksum
# Cargo.lock records for the registry crate), run this, fix any patch that no
# longer applies, then update README.md and the monty pins.
set -euo pipefail
cd "$(dirname "$0")"
VERSION=0.0.23
SHA256=5ebc5cb770d3df505fe5fc5f221d20c4b844bae88aa2303450c00273c0c73301
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL -o "$work/fs.crate" \
    "https://static.crates.io/crates/monty-fs/monty-fs-$VERSION.crate"
echo "$SHA256  $work/fs.crate" | sha256sum -c --quiet -
tar -xzf "$work/fs.crate" -C "$work"
from="$work/monty-fs-$VERSION"

# Only what a build reads: the manifest (less its test targets and
# dev-dependencies, whose files are left out) and the sources.
rm -rf crate
mkdir -p crate
cp -r "$from/src" "$from/README.md" crate/
python3 - "$from/Cargo.toml" crate/Cargo.toml <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# Drop each [[test]] table and the dev-dependency tables, up to the next table.
sections = re.split(r'(?m)^(?=\[)', text)
kept = [s for s in sections
        if not s.startswith('[[test]]') and 'dev-dependencies' not in s.split('\n', 1)[0]]
open(sys.argv[2], 'w').write(''.join(kept))
PY

for change in $(ls patches/*.patch 2>/dev/null); do
    patch --quiet -d crate -p1 < "$change"
done
echo "monty-fs $VERSION refreshed with $(ls patches | wc -l) patches"
