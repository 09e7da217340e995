#!/usr/bin/env bash
# Congestion counting speed: a full shift on pruned 36-port 3-level trees
# (5832 hosts: "pruned 36,18"; 11664 hosts: "pruned 36,36"), vartree routing.
# vartree-analyze's automatic method (the interval method, 2 threads) beside
# the naive reference (--method naive: one thread, per flow and hop through
# the LFTs and the fabric model, touching only the links it uses), run on the
# first stages only and compared as paths per second. Counting times are
# vartree-analyze's own ("seconds" in --json); the whole run (parse, route,
# audit, count, print) is timed from outside.
set -eu
B=$VT_BIN
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }
get() { grep -o "\"$2\": [0-9.]*" "$1" | head -1 | awk '{ print $2 }'; }
one() { # pods hosts naive-stages
	"$B/vartree-gen" pruned "36,$1" -o "$T/p.topo"
	t0=$(now)
	"$B/vartree-analyze" "$T/p.topo" --route vartree --top 0 -q --json >"$T/fast"
	t1=$(now)
	"$B/vartree-analyze" "$T/p.topo" --route vartree --top 0 -q --json --method naive \
		--stage-limit "$3" >"$T/naive"
	awk -v hosts="$2" -v st="$3" -v whole="$(echo "$t1 - $t0" | bc)" \
		-v f="$(get "$T/fast" flows)" -v fs="$(get "$T/fast" seconds)" \
		-v w="$(get "$T/fast" worst)" -v nf="$(get "$T/naive" flows)" \
		-v ns="$(get "$T/naive" seconds)" 'BEGIN {
		if (fs <= 0) fs = 1e-3; if (ns <= 0) ns = 1e-3
		printf "shift, %d hosts: %d paths, worst %d; whole run (parse, route, audit, count) %.2f s\n", hosts, f, w, whole
		printf "  counting: vartree-analyze %.3g paths/s (%.3f s, 2 threads); naive walk %.3g paths/s (%d paths, %d stages, %.2f s, 1 thread); ratio %.0fx\n", f / fs, fs, nf / ns, nf, st, ns, (f / fs) / (nf / ns)
	}'
}
one 18 5832 600
one 36 11664 150
