#!/usr/bin/env bash
# Refreshes this copy of node-inspect-extracted from the npm registry:
#   third_party/node-inspect-extracted/refresh.sh [VERSION]
# and then update VERSION in README.md. The worker bundles dist/inspect.js
# (include_str!), so the build itself never reaches the network.
set -euo pipefail
cd "$(dirname "$0")"
version="${1:-3.0.2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "node-inspect-extracted@$version" >/dev/null)
tar -xzf "$work/node-inspect-extracted-$version.tgz" -C "$work"
cp "$work/package/dist/inspect.js" inspect.js
cp "$work/package/LICENSE" LICENSE
sha256sum inspect.js LICENSE
