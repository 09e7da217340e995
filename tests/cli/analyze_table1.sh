#!/usr/bin/env bash
# Zahavi et al. Table I with OpenSM 3.3.23's own tables (captured from ibsim,
# tests/data/analyze): shift worst/avg, hosts in index order (leaf order).
set -eu
command -v xz >/dev/null || { echo "xz not installed"; exit 77; }
D=$VT_TOP/tests/data/analyze
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
check() { # fabric engine worst avg [extra args]
	local n=$1 eng=$2 want="$3 $4"
	shift 4
	xz -dc "$D/$n.topo.xz" >"$T/$n.topo"
	xz -dc "$D/$n-$eng.lfts.xz" >"$T/$n-$eng.lfts"
	out=$("$VT_BIN/vartree-analyze" "$T/$n.topo" --lfts "$T/$n-$eng.lfts" -q --top 0 "$@")
	got=$(awk '$1 == "shift" { print $4, $5 }' <<<"$out")
	grep -q '^audit: ok' <<<"$out" || { echo "$n $eng: audit not ok"; echo "$out"; exit 1; }
	[ "$got" = "$want" ] || { echo "$n $eng: got '$got' want '$want'"; echo "$out"; exit 1; }
	echo "$n $eng: $got"
}
check fat4-3 minhop 4 3.24
check fat4-3 ftree 1 1.00
check fat4-4 minhop 16 12.24
check fat4-4 ftree 1 1.00
check fat12-3 minhop 12 11.08
check fat12-3 ftree 1 1.00
# OpenSM's ftree order of the compute nodes is the index order here too
check fat4-4 ftree 1 1.00 --order "$D/fat4-4-ftree-ca-order.dump"
# every method counts the same
for m in walk interval naive; do
	check fat4-3 minhop 4 3.24 --method $m
done
# the histogram of link loads on 4-ary-3 minhop, from the same run in JSON
xz -dc "$D/fat4-3-minhop.lfts.xz" >"$T/m.lfts"
"$VT_BIN/vartree-analyze" "$T/fat4-3.topo" --lfts "$T/m.lfts" --json -q >"$T/j"
grep -q '"pattern": "shift", "stages": 63, "flows": 4032, "unrouted": 0, "worst": 4, "avg": 3.238095' "$T/j"
