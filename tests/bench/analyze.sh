#!/usr/bin/env bash
# Congestion counting speed: a full shift on pruned 36-port 3-level trees
# (5832 hosts: "pruned 36,18"; 11664 hosts: "pruned 36,36"), vartree routing.
# vartree-analyze's automatic method (the interval method, 2 threads) beside
# the naive reference (--method naive: one thread, per flow and hop through
# the LFTs and the fabric model, touching only the links it uses). The naive
# walk runs on two samples of K stages and is extrapolated: stages 1..K stand
# for the 2*324 stages whose flows partly stay inside a pod (324 hosts; short
# paths, both ends of the shift), K stages from the middle for the rest (all
# flows cross pods). Sampling only the first stages would flatter the naive
# walk. Counting times are vartree-analyze's own ("seconds" in --json --timing); the
# whole run (parse, route, audit, count, print) is timed from outside.
set -eu
B=$VT_BIN
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }
get() { grep -o "\"$2\": [0-9.]*" "$1" | head -1 | awk '{ print $2 }'; }
one() { # pods hosts stages-per-sample
	local n=$2 k=$3 mid=$(($2 / 2))
	"$B/vartree-gen" pruned "36,$1" -o "$T/p.topo"
	t0=$(now)
	"$B/vartree-analyze" "$T/p.topo" --route vartree --top 0 -q --json --timing >"$T/fast"
	t1=$(now)
	"$B/vartree-analyze" "$T/p.topo" --route vartree --top 0 -q --json --timing --method naive \
		-p "shift:1-$k" >"$T/naive-end"
	"$B/vartree-analyze" "$T/p.topo" --route vartree --top 0 -q --json --timing --method naive \
		-p "shift:$mid-$((mid + k - 1))" >"$T/naive-mid"
	awk -v hosts="$n" -v k="$k" -v t0="$t0" -v t1="$t1" \
		-v f="$(get "$T/fast" flows)" -v fs="$(get "$T/fast" seconds)" \
		-v w="$(get "$T/fast" worst)" \
		-v te="$(get "$T/naive-end" seconds)" -v tm="$(get "$T/naive-mid" seconds)" 'BEGIN {
		if (fs <= 0) fs = 1e-3; if (te <= 0) te = 1e-3; if (tm <= 0) tm = 1e-3
		ends = 2 * 324; rest = hosts - 1 - ends
		tn = te * ends / k + tm * rest / k
		printf "shift, %d hosts: %d paths, worst %d; whole run (parse, route, audit, count) %.2f s\n", hosts, f, w, t1 - t0
		printf "  counting: vartree-analyze %.3g paths/s (%.3f s, 2 threads); naive walk %.3g paths/s (two samples of %d stages: %.2f s + %.2f s, extrapolated to %.2f s, 1 thread); ratio %.0fx\n", f / fs, fs, f / tn, k, te, tm, tn, (f / fs) / (f / tn)
	}'
}
one 18 5832 300
one 36 11664 100
