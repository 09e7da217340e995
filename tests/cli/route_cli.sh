#!/usr/bin/env bash
# vartree-route: LFTs and order written, place-keepers, refusal message verbatim.
set -eu
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=$VT_BIN/vartree-route
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$top/topofiles/zahavi-4ary3.topo" ] || { echo "topofiles not generated"; exit 77; }

"$bin" "$top/topofiles/zahavi-4ary3.topo" -o "$tmp/lfts" --order-out "$tmp/order" 2>"$tmp/err"
grep -q '^vartree-route: 3 switch levels, 64 compute nodes, 64 ranks (4 per leaf)$' "$tmp/err"
grep -q 'no departures' "$tmp/err"
[ "$(grep -c '^Unicast lids' "$tmp/lfts")" = 48 ]
[ "$(wc -l <"$tmp/order")" = 64 ]
! grep -q DUMMY "$tmp/order"

# a leaf with a missing host keeps its rank as a place-keeper
"$bin" -q "$top/topofiles/degraded-4ary3-hosts.topo" -o "$tmp/lfts2" --order-out "$tmp/order2"
[ "$(wc -l <"$tmp/order2")" = 64 ]
[ "$(grep -c $'^0xFFFF\tDUMMY$' "$tmp/order2")" -ge 1 ]

# refusal: one line, non-zero exit, nothing written
if "$bin" -q "$top/topofiles/matsuoka-clique-8.topo" -o "$tmp/none" 2>"$tmp/err3"; then
	echo "clique was not refused"; exit 1
fi
[ "$(cat "$tmp/err3")" = "vartree-route: $top/topofiles/matsuoka-clique-8.topo:14: "'switches "L0-S0000" (0x0002c95000000000) port 5 and "L0-S0001" (0x0002c95000000001) port 5 are linked but both at level 0; an up/down tree links only adjacent levels' ]
[ ! -e "$tmp/none" ]
"$bin" --help | grep -q '^usage: vartree-route'

# --help and the man page's OPTIONS list the same options
opts_help=$("$bin" --help | grep -E '^ +-' | cut -c1-27 | grep -oE -- '--?[a-z][a-z-]*' | sort -u)
opts_man=$(LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$top/man/vartree-route.1" 2>/dev/null |
	sed -n '/^OPTIONS/,/^[A-Z]/p' | grep -E '^ {7}-' | grep -oE -- '--?[a-z][a-z-]*' | sort -u)
[ -n "$opts_help" ] && [ "$opts_help" = "$opts_man" ] ||
	{ echo "--help: $opts_help"; echo "man: $opts_man"; exit 1; }
[ "$(echo "$opts_help" | wc -l)" = 22 ] # 18 and --previous, --repair, --shortest-detours, --vls

# -v adds the load and write times; -q wins over -v
"$bin" -v "$top/topofiles/zahavi-4ary2.topo" -o "$tmp/l4" 2>"$tmp/err4"
grep -qE '^vartree-route: loaded 24 nodes in [0-9.]+ s$' "$tmp/err4"
grep -qE '^vartree-route: wrote the outputs in [0-9.]+ s$' "$tmp/err4"
[ -z "$("$bin" -q -v "$top/topofiles/zahavi-4ary2.topo" -o "$tmp/l5" 2>&1)" ]
cmp "$tmp/l4" "$tmp/l5"
echo ok
