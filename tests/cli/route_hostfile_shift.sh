#!/usr/bin/env bash
# vartree-route(1)'s figures for the shift an MPI job runs from --order-format hostfile
# (hosts only, place-keepers left out) where whole leaves have no host: vartree's own
# order (place-keepers kept) is at the cut bound, the hostfile's is not (issue 23, open).
# The place-keeper decision behind it is checked below.
set -u
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$top/topofiles/real-hostless-4ary3.topo" ] || { echo "topofiles not generated"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# FILE ORDER-FORMAT -> "worst avg bound bnd-avg" of the shift
shift_in() {
	"$VT_BIN/vartree-route" -q "$1" -o "$tmp/l" --order-out "$tmp/o" --order-format "$2" ||
		fail "$1: vartree-route exit $?"
	"$VT_BIN/vartree-analyze" "$1" --lfts "$tmp/l" --order "$tmp/o" -p shift --top 0 -q >"$tmp/a"
	[ $? = 0 ] || fail "$1 $2: vartree-analyze exit"
	awk '$1 == "shift" && NF > 6 { print $4, $5, $6, $7 }' "$tmp/a"
}
for c in "real-hostless-4ary3 1 1.00 1 1.00 2 1.55 1 1.00" \
	"irregular-gpu-hosts-down 1 1.00 1 1.00 2 1.41 1 1.00"; do
	set -- $c
	f=$top/topofiles/$1.topo
	got=$(shift_in "$f" ca-order)
	[ "$got" = "$2 $3 $4 $5" ] || fail "$1 in vartree's order: $got"
	got=$(shift_in "$f" hostfile)
	[ "$got" = "$6 $7 $8 $9" ] || fail "$1 in the hostfile's order: $got"
done
# The place-keepers of a leaf with no host up (vartree-route(1), Tree
# extraction): every CA that is up is routed as in the fabric with those hosts
# up, so hosts coming back move no other route. Per switch (by description)
# and CA (by name): the forwarding entry, the same in both fabrics.
entries() { # LFT dump -> "switch CA port" per CA entry, sorted
	awk "/^Unicast lids/ { s = \$NF } /Channel Adapter/ { n = \$0; sub(/.*: '/, \"\", n); \
		sub(/'\$/, \"\", n); print s, n, \$2 }" "$1" | sort
}
for c in "fat 4,3|$top/topofiles/real-hostless-4ary3.topo|2688" \
	"gpu|$top/topofiles/irregular-gpu-hosts-down.topo|"; do
	IFS='|' read -r spec hl want <<<"$c"
	# shellcheck disable=SC2086
	"$VT_BIN/vartree-gen" $spec -o "$tmp/full.topo" || fail "$spec: vartree-gen exit $?"
	"$VT_BIN/vartree-route" -q "$tmp/full.topo" -o "$tmp/full.lft" || fail "$spec: exit $?"
	"$VT_BIN/vartree-route" -q "$hl" -o "$tmp/hl.lft" || fail "$hl: exit $?"
	entries "$tmp/full.lft" >"$tmp/a"
	entries "$tmp/hl.lft" >"$tmp/b"
	n=$(wc -l <"$tmp/b")
	[ "$n" -gt 0 ] && { [ -z "$want" ] || [ "$n" = "$want" ]; } || fail "$hl: $n CA entries"
	# every entry of the host-less fabric is the full fabric's
	d=$(comm -13 "$tmp/a" "$tmp/b" | head -3)
	[ -z "$d" ] || fail "$hl: entries differ from $spec's: $d"
done
echo ok
