#!/usr/bin/env bash
# vartree-sim speed beside the reference OMNeT++ model of Zahavi et al. Fig. 6
# (fixtures/fig6/README.md: 6-25 s of wall time per Fig. 6 run, about 1.4 M
# events/s on one core of this class of machine). Targets: the 1944-host full
# shift under 60 s wall, >= 8 M packet-hop events/s, static and adaptive routing. Runs go as independent
# processes on both cores (Fig. 6: minhop and ftree of a case side by side).
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

# 1944-host pruned 36-port tree (Wolfe et al.), EDR, full shift all-to-all of 8 KB, with
# static routing and with per-packet adaptive routing (issue 14: >= 8 M packet-hop events/s)
echo "load average (1 5 15 min) on $(nproc) cores: $(cut -d' ' -f1-3 /proc/loadavg)"
for ar in static packet; do
	/usr/bin/time -f "%e %U" -o "$tmp/full.time" "$s" --gen "pruned 36,6" --speed EDR --size 8K \
		--ar $ar >"$tmp/full" 2>"$tmp/full.err" || { cat "$tmp/full.err"; exit 1; }
	read -r wall user <"$tmp/full.time"
	read -r ev hops sec cpu <<<"$(rate "$tmp/full.err")"
	simus=$(awk '$1 == "vartree" {print $2}' "$tmp/full")
	evs=$(awk -v e="$ev" -v s="$sec" 'BEGIN { printf "%.2f", e / s / 1e6 }')
	hps=$(awk -v e="$hops" -v s="$sec" 'BEGIN { printf "%.2f", e / s / 1e6 }')
	hpc=$(awk -v e="$hops" -v s="$cpu" 'BEGIN { printf "%.2f", e / s / 1e6 }')
	echo "1944 hosts, full shift, 8 KB, EDR, --ar $ar: ${simus} us simulated, $ev events, $hops packet hops"
	echo "  wall ${wall} s (cpu ${user} s) for the whole command; target under 60 s: $(awk -v w="$wall" 'BEGIN { print (w < 60 ? "met" : "MISSED") }')"
	echo "  simulation loop ${sec} s wall, ${cpu} s cpu ($hpc M packet-hop events per cpu second): $evs M events/s ($(awk -v e="$evs" 'BEGIN { printf "%.1f", e / 1.4 }')x the reference's 1.4 M)," \
		"$hps M packet-hop events/s (target 8 per wall second: $(awk -v h="$hps" 'BEGIN { print (h >= 8 ? "met" : "MISSED") }');" \
		"per cpu second: $(awk -v h="$hpc" 'BEGIN { print (h >= 8 ? "met" : "MISSED") }'))," \
		"$(awk -v e="$ev" -v h="$hops" 'BEGIN { printf "%.2f", e / h }') events per hop"
done
