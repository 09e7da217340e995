#!/usr/bin/env bash
# vartree-sim speed beside the reference OMNeT++ model of Zahavi et al. Fig. 6
# (fixtures/fig6/README.md: 6-25 s of wall time per Fig. 6 run, about 1.4 M
# events/s on one core of this class of machine). Targets: the 1944-host full
# shift under 60 s wall, >= 8 M packet-hop events/s with adaptive routing.
# Fig. 6 runs go as independent processes on both cores (minhop and ftree
# of a case side by side).
# Each figure is from one run; wall times suffer from whatever else runs, so
# CPU (user) seconds are printed beside them.
set -u
s=$VT_BIN/vartree-sim
d=$VT_TOP/tests/data/fig6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b > 0 ? a / b : 0) }'; }
# the "events/s" line vartree-sim prints on stderr: events hops wall-seconds cpu-seconds
rate() { sed -n 's/.*: \([0-9]*\) events (\([0-9]*\) packet hops) in \([0-9.]*\) s (cpu \([0-9.]*\) s).*/\1 \2 \3 \4/p' "$1"; }

# Fig. 6: 2 speeds x 4 sizes, minhop and ftree in parallel
for sp in SDR DDR; do for sz in 1K 2K 4K 8K; do for t in minhop ftree; do
	echo "$sp $sz $t"
done; done; done >"$tmp/cases"
xargs -P2 -L1 sh -c 'a=$(date +%s%N); "$0" --preset fig6 \
	--speed "$1" --size "$2" --lfts "'"$d"'/$3-lfts.dump" --order "'"$d"'/ftree-ca-order.dump" \
	"'"$d"'/ibnetdiscover.txt" >/dev/null 2>"'"$tmp"'/$1-$2-$3.err" || exit 255
	echo $(( $(date +%s%N) - a )) >"'"$tmp"'/$1-$2-$3.time"' "$s" <"$tmp/cases" || exit 1
echo "Fig. 6 (32 hosts): wall time of each whole command vs the reference model's 6-25 s per run"
while read -r sp sz t; do
	wall=$(awk '{ printf "%.4f", $1 / 1e9 }' "$tmp/$sp-$sz-$t.time")
	read -r ev hops sec cpu <<<"$(rate "$tmp/$sp-$sz-$t.err")"
	printf '  %s %-3s %-6s %.4f s (loop %.4f s, cpu %.4f s), %5d events, %5d hops: %6sx faster than 6 s, %6sx than 25 s\n' \
		"$sp" "$sz" "$t" "$wall" "$sec" "$cpu" "$ev" "$hops" "$(ratio 6 "$wall")" "$(ratio 25 "$wall")"
done <"$tmp/cases"

# Packet-hop event rates, each adaptive run (--ar packet) beside the static run
# of the same fabric and pattern from this same invocation as the reference:
# 1944-host pruned 36-port tree (Wolfe et al.), EDR, full shift all-to-all of
# 8 KB (issue 14: >= 8 M packet-hop events/s with --ar packet), and the
# 11664-host pruned 36,36 tree on shift:1-32.
echo "load average (1 5 15 min) on $(nproc) cores: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A evc
speed_run() { # hosts gen pattern ar: sets evc[hosts.ar] to M events per cpu second
	/usr/bin/time -f "%e %U" -o "$tmp/full.time" "$s" --gen "$2" --speed EDR --size 8K \
		${3:+--pattern "$3"} --ar "$4" >"$tmp/full" 2>"$tmp/full.err" || { cat "$tmp/full.err"; exit 1; }
	read -r wall user <"$tmp/full.time"
	read -r ev hops sec cpu <<<"$(rate "$tmp/full.err")"
	simus=$(awk '$1 == "vartree" {print $2}' "$tmp/full")
	evc[$1.$4]=$(awk -v e="$ev" -v s="$cpu" 'BEGIN { printf "%.2f", e / s / 1e6 }')
	echo "$1 hosts, ${3:-full shift}, --ar $4: ${simus} us simulated, $ev events, $hops packet hops" \
		"($(awk -v e="$ev" -v h="$hops" 'BEGIN { printf "%.2f", e / h }') events per hop)"
	echo "  whole command ${wall} s wall, ${user} s cpu; loop ${sec} s wall, ${cpu} s cpu:" \
		"${evc[$1.$4]} M events, $(awk -v e="$hops" -v s="$cpu" 'BEGIN { printf "%.2f", e / s / 1e6 }')" \
		"M packet hops per cpu second ($(awk -v e="$hops" -v s="$sec" 'BEGIN { printf "%.2f", e / s / 1e6 }')" \
		"M hops per wall second)"
}
beside() { # hosts: --ar packet's rate beside static's from this run
	echo "  $1 hosts --ar packet: ${evc[$1.packet]} M events per cpu second beside static's" \
		"${evc[$1.static]} M in this run: ratio" \
		"$(awk -v a="${evc[$1.packet]}" -v b="${evc[$1.static]}" 'BEGIN { printf "%.2f", a / b }')"
}
for ar in static packet; do speed_run 1944 "pruned 36,6" "" $ar; done
beside 1944
echo "  target 8 M events per second with --ar packet:" \
	"$(awk -v h="${evc[1944.packet]}" 'BEGIN { print (h >= 8 ? "met" : "MISSED") }') per cpu second;" \
	"$(awk -v e="${evc[1944.packet]}" 'BEGIN { printf "%.1f", e / 1.4 }')x the reference model's 1.4 M"
for ar in static packet; do speed_run 11664 "pruned 36,36" "shift:1-32" $ar; done
beside 11664
