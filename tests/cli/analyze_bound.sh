#!/usr/bin/env bash
# The cut bound counts the fewest links that separate a subtree's hosts from
# the others, not its up-links: on slender 4:2,3 with a level-1 switch of each
# pod cut from one top (--drop-links 2@1), a pod keeps 3 up-links but 2 links
# separate it from the other pod (each top reaches one switch of it), so the
# 16 flows a pod sends the other in a shift stage need 8 on some link (the
# bound read 6/3.161290 over the up-links), and all2all's 256 need 128 (was
# 86). The healthy tree keeps its bound (4/2.580645).
set -u
A="$VT_BIN/vartree-analyze"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# pattern line of FILE for PATTERN: "bound bnd-avg"
bound() {
	"$A" "$1" --route vartree -p "$2" --top 0 2>"$T/err" >"$T/out" || bad "$1 $2: analyze exited $?"
	awk -v p="$2" '$1 == p { print $6, $7 }' "$T/out"
}
"$VT_BIN/vartree-gen" slender 4:2,3 -o "$T/h.topo" || bad "vartree-gen exited $?"
"$VT_BIN/vartree-gen" slender 4:2,3 --drop-links 2@1 -o "$T/d.topo" || bad "vartree-gen exited $?"
[ "$(bound "$T/h.topo" shift)" = "4 2.58" ] || bad "healthy shift bound: $(bound "$T/h.topo" shift)"
[ "$(bound "$T/d.topo" shift)" = "8 4.39" ] || bad "degraded shift bound: $(bound "$T/d.topo" shift)"
[ "$(bound "$T/d.topo" all2all)" = "128 128.00" ] || bad "degraded all2all bound: $(bound "$T/d.topo" all2all)"
exit $fail
