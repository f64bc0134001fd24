#!/usr/bin/env bash
# Rebuilds crate/ (the rquickjs-sys the workspace builds, through
# [patch.crates-io] in the root Cargo.toml) from the published crate and the
# patches in patches/, applied in order:
#   third_party/rquickjs-sys/refresh.sh
# To move to another version: change VERSION and SHA256 (the checksum
# Cargo.lock records for the registry crate), run this, fix any patch that no
# longer applies, then update README.md and the rquickjs pins.
set -euo pipefail
cd "$(dirname "$0")"
VERSION=0.14.0
SHA256=cee271d0eeba64f0915b846cb7ae02e16faf3dfdffdca91731101d9d30fe3423
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL -o "$work/sys.crate" \
    "https://static.crates.io/crates/rquickjs-sys/rquickjs-sys-$VERSION.crate"
echo "$SHA256  $work/sys.crate" | sha256sum -c --quiet -
tar -xzf "$work/sys.crate" -C "$work"
from="$work/rquickjs-sys-$VERSION"

# Only what a Linux build reads: the build script compiles these C files and
# includes the bindings for the target; the rest of the crate (WASI libc,
# other targets' bindings, QuickJS's tests and tools) is left out.
rm -rf crate
mkdir -p crate/src/bindings crate/quickjs
cp "$from/Cargo.toml" "$from/build.rs" "$from/README.md" "$from/quickjs.bind.h" crate/
cp -r "$from/src/lib.rs" "$from/src/inlines" crate/src/
for target in x86_64-unknown-linux-gnu x86_64-unknown-linux-musl \
    aarch64-unknown-linux-gnu aarch64-unknown-linux-musl; do
    cp "$from/src/bindings/$target.rs" crate/src/bindings/
done
for file in LICENSE quickjs.c quickjs.h libregexp.c libregexp.h \
    libregexp-opcode.h libunicode.c libunicode.h libunicode-table.h dtoa.c \
    dtoa.h cutils.h list.h quickjs-atom.h quickjs-opcode.h \
    quickjs-c-atomics.h builtin-array-fromasync.h \
    builtin-iterator-zip-keyed.h builtin-iterator-zip.h; do
    cp "$from/quickjs/$file" crate/quickjs/
done

for change in patches/*.patch; do
    patch --quiet -d crate -p1 < "$change"
done
echo "rquickjs-sys $VERSION refreshed with $(ls patches | wc -l) patches"
