#!/usr/bin/env bash
# The committed fabric library equals what topofiles/regenerate makes now.
set -eu
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$top/topofiles/regenerate" "$VT_BIN/vartree-gen" "$tmp"
n=$(ls "$tmp"/*.topo | wc -l)
[ "$n" -ge 30 ] || { echo "only $n files generated"; exit 1; }
# every generated file is committed, and every committed .topo is generated
for f in "$tmp"/*.topo "$tmp/INDEX.md"; do
	diff -u "$top/topofiles/$(basename "$f")" "$f"
done
for f in "$top"/topofiles/*.topo; do
	[ -f "$tmp/$(basename "$f")" ] || { echo "stale: $f"; exit 1; }
done
echo "$n files fresh"
