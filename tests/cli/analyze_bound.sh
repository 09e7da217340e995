#!/usr/bin/env bash
# The cut bound counts the fewest links that separate a subtree's hosts from
# the others, not its up-links: on slender 4:2,3 with a level-1 switch of each
# pod cut from one top (--drop-links 2@1), a pod keeps 3 up-links but 2 links
# separate it from the other pod (each top reaches one switch of it), so the
# 16 flows a pod sends the other in a shift stage need 8 on some link (the
# bound read 6/3.161290 over the up-links), and all2all's 256 need 128 (was
# 86). The healthy tree keeps its bound (4/2.580645).
#
# Split cores (vt_bound_pair.c, the leaf-pair bound): cores 3,4,2,12,4 has
# leaves with 2 of their 4 up-links in one chassis and 1 in each other; in
# the 11 stages 4k a leaf sends its 4 hosts to one leaf, and a pair whose
# double chassis differ reaches over one chassis at most 3 links while no
# leaf has room for a flow to pass: 2 there, so 2/1.23 (every cut: 1/1.00;
# vartree routes 2/1.87). cores 2,36,18,84,18 keeps 1/1.00: every leaf has
# 9 links in each chassis and each stage routes at load 1 (a leaf pair's
# flows split 9/9 over the chassis, and in a chassis 21 matchings over 18
# spines of 2 links), so no bound of one stage can say more.
#
# The up*-down* bound (vt_bound_climb.c): cores 2,6,3,12,6 --drop-switches 1
# leaves chassis 0's line ASICs 4 of 6 up-links; a half's leaves have 3 links
# into each chassis, so at load 1 a stage sends at most 15 flows out of the
# half over chassis 1 and 12 over chassis 0: stages 28..44 need 2 for routes
# that climb, then descend (2/1.24; the cuts: 31..41, 2/1.15). The healthy
# core does not taper and prints no such line. And for any routing: a route
# out of the half that does not climb so passes through a leaf of it (a
# relay), but every leaf receives 6 flows on its 6 cables in those stages,
# so no relay has room at load 1 and the cut bound is 2 there too (2/1.24,
# no up*-down* line). With a host dropped its leaf has room and the cut
# bound stays below (2/1.13 against 2/1.21).
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
"$VT_BIN/vartree-gen" cores 3,4,2,12,4 -o "$T/c.topo" || bad "vartree-gen exited $?"
[ "$(bound "$T/c.topo" shift)" = "2 1.23" ] || bad "split core shift bound: $(bound "$T/c.topo" shift)"
"$VT_BIN/vartree-gen" cores 2,36,18,84,18 -o "$T/c2.topo" || bad "vartree-gen exited $?"
[ "$(bound "$T/c2.topo" shift)" = "1 1.00" ] || bad "director shift bound: $(bound "$T/c2.topo" shift)"
"$VT_BIN/vartree-gen" cores 2,6,3,12,6 --drop-switches 1 -o "$T/sd.topo" || bad "vartree-gen exited $?"
[ "$(bound "$T/sd.topo" shift)" = "2 1.24" ] || bad "spine-down cut bound: $(bound "$T/sd.topo" shift)"
grep -q "up\*-down\*" "$T/out" && bad "spine-down printed an up*-down* bound at the cut bound"
"$VT_BIN/vartree-gen" cores 2,6,3,12,6 --drop-switches 1 --drop-hosts 1 -o "$T/sh.topo" ||
	bad "vartree-gen exited $?"
[ "$(bound "$T/sh.topo" shift)" = "2 1.13" ] || bad "spine-down, host dropped: $(bound "$T/sh.topo" shift)"
grep -qx "  up\*-down\* bound 2/1.21: no route that climbs, then descends, the tree's levels does better" \
	"$T/out" || bad "spine-down, host dropped, up*-down* bound: $(grep up "$T/out")"
"$A" "$T/sd.topo" --route vartree -p shift --json -q >"$T/sd.json" || bad "json: analyze exited $?"
python3 - "$T/sd.json" <<'PY' || bad "spine-down up*-down* stages"
import json, sys
p = json.load(open(sys.argv[1]))["routings"][0]["patterns"][0]
two = [s + 1 for s, b in enumerate(p["stage_updown_bound"]) if b == 2]
assert two == list(range(28, 45)), two
assert p["stage_bound"] == p["stage_updown_bound"], p["stage_bound"]
assert max(p["stage_updown_bound"]) == 2 and p["updown_bound_worst"] == 2
assert all(m >= b for m, b in zip(p["stage_max"], p["stage_updown_bound"]))
PY
"$VT_BIN/vartree-gen" cores 2,6,3,12,6 -o "$T/ch.topo" || bad "vartree-gen exited $?"
bound "$T/ch.topo" shift >/dev/null
grep -q "up\*-down\*" "$T/out" && bad "healthy core printed an up*-down* bound"
exit $fail
