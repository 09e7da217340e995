#!/usr/bin/env bash
# Congestion counting speed: a full shift on a 5832-host pruned 36-port
# 3-level tree (vartree routing), vartree-analyze's automatic method on 2
# threads beside the naive per-flow, per-hop walk through the fabric model
# (one thread, run on the first 300 stages only and extrapolated as paths/s).
# Times are vartree-analyze's own counting times ("seconds" in --json).
set -eu
B=$VT_BIN
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/vartree-gen" pruned 36,18 -o "$T/p.topo"
now() { date +%s.%N; }
t0=$(now)
"$B/vartree-analyze" "$T/p.topo" --route vartree --top 0 -q --json >"$T/fast"
t1=$(now)
"$B/vartree-analyze" "$T/p.topo" --route vartree --top 0 -q --json --method naive \
	--stage-limit 300 >"$T/naive"
get() { grep -o "\"$2\": [0-9.]*" "$1" | head -1 | awk '{ print $2 }'; }
awk -v whole="$(echo "$t1 - $t0" | bc)" -v f="$(get "$T/fast" flows)" -v fs="$(get "$T/fast" seconds)" \
	-v nf="$(get "$T/naive" flows)" -v ns="$(get "$T/naive" seconds)" 'BEGIN {
	if (fs <= 0) fs = 1e-3; if (ns <= 0) ns = 1e-3
	printf "shift, 5832 hosts: %d paths; whole run (parse, route, audit, count) %.2f s\n", f, whole
	printf "counting: vartree-analyze %.3g paths/s (%.2f s), naive walk %.3g paths/s (%d paths, 300 stages, %.2f s; extrapolated), ratio %.1fx\n", f / fs, fs, nf / ns, nf, ns, (f / fs) / (nf / ns)
}'
