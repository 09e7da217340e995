#!/usr/bin/env bash
# vartree's routing time beside OpenSM's ftree on the same fabric, pruned 3-level
# trees of 36-port switches: 3888 (12 pods), 5832 (18) and 11664 hosts (36 pods).
#   vartree: vartree-route's own report (-v): routing ("routed ... in", wall clock
#            and the process's CPU time, which on a shared machine does not count
#            other processes' turns), and the whole command (load, route, write the
#            opensm-lfts.dump) by wall clock.
#   ftree:   the stock OpenSM 3.3.23 inside ibsim (sim/vartree-harness, which sizes
#            ibsim's -N/-S/-P to the fabric), from its log:
#            step = "building routing with 'ftree'" to "ftree tables configured on
#            all switches" (the harness summary's routing_ms: ftree's work,
#            OpenSM's hop matrices, and sending the LFTs to the switches);
#            own  = the step to "FatTree routing is done", less the hop matrices
#            ftree has OpenSM build ("Max LID in switch LFTs" to "Starting
#            FatTree routing").
# Ratios are ftree / vartree from one run of each: own vs routing is the same
# work (tables computed in memory). The 11664-host ftree run takes minutes; under
# run-bench it is plugin.sh's run of the same fabric (tests/bench/lib.bash).
set -u
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${VT_BIN:-$top/build/bin}
. "$top/tests/bench/lib.bash"
tmp=$(mktemp -d /tmp/vt-bench-route.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }
now() { date +%s.%N; }

printf '%-15s %6s %5s | %10s %10s %10s | %10s %10s | %8s %8s\n' fabric hosts sws \
	"vt route" "vt CPU" "vt whole" "ft own" "ft step" "own/rt" "step/rt"
for pods in 12 18 36; do
	f=$tmp/p$pods.topo
	"$bin/vartree-gen" pruned 36,$pods -o "$f" || exit 1
	t0=$(now)
	"$bin/vartree-route" -v "$f" -o "$tmp/l.dump" 2>"$tmp/vt.err" || { cat "$tmp/vt.err"; exit 1; }
	t1=$(now)
	rm -f "$tmp/l.dump"
	read -r sws vrt vcpu < <(sed -n 's/.*routed \([0-9]*\) switches x [0-9]* LIDs in \([0-9.]*\) s (CPU \([0-9.]*\) s)/\1 \2 \3/p' "$tmp/vt.err")
	vrt=$(awk -v s="$vrt" 'BEGIN { printf "%.1f", s * 1000 }')
	vcpu=$(awk -v s="$vcpu" 'BEGIN { printf "%.1f", s * 1000 }')
	vwhole=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
	ftree_run $pods "$f" "$tmp/ft$pods" || exit 1
	s=$tmp/ft$pods/summary.txt
	fstep=$(sed -n 's/^osm_sweep 0: .*routing_ms \([0-9.]*\).*/\1/p' "$s")
	fstep=$(awk -v a="$fstep" 'BEGIN { printf "%.1f", a }')
	lf=$tmp/ft$pods/opensm.log
	fall=$(ms "$lf" "building routing with 'ftree'" "FatTree routing is done")
	fhop=$(ms "$lf" "Max LID in switch LFTs" "Starting FatTree routing")
	fown=$(awk -v a="$fall" -v b="$fhop" 'BEGIN { printf "%.1f", a - b }')
	printf '%-15s %6d %5d | %8sms %8sms %8sms | %8sms %8sms | %8s %8s\n' "pruned 36,$pods" \
		$((pods * 324)) "$sws" "$vrt" "$vcpu" "$vwhole" "$fown" "$fstep" \
		"$(ratio "$fown" "$vrt")" "$(ratio "$fstep" "$vrt")"
	rm -rf "$tmp/ft$pods" "$f"
done

# Routing time per LFT entry from 1K to 40K hosts: pruned 3-level trees of 64-port
# switches (vartree-gen pruned 64,P: P x 1024 hosts) up to 64,40 (40960 hosts, the
# 48K unicast LID limit's largest such tree). Tables in the binary form
# (--lft-format binary) so the text dump does not dominate. Per entry = routing
# time / (switches x LIDs), by wall clock and by CPU time; memory = the command's
# peak RSS beside the tables' size (one byte per entry); both should stay flat per
# entry as the fabric grows.
echo
printf '%-15s %6s %5s %11s | %9s %9s %8s %8s | %9s %9s %6s\n' fabric hosts sws entries \
	"vt route" "vt CPU" "ns/entry" "CPU ns/e" "peak RSS" tables "RSS/tb"
for pods in 1 4 10 20 40; do
	f=$tmp/q$pods.topo
	"$bin/vartree-gen" pruned 64,$pods -o "$f" || exit 1
	/usr/bin/time -f '%M' -o "$tmp/rss" "$bin/vartree-route" -v "$f" --lft-format binary \
		-o "$tmp/l.bin" 2>"$tmp/vt.err" || { cat "$tmp/vt.err"; exit 1; }
	read -r sws lids vrt vcpu < <(sed -n 's/.*routed \([0-9]*\) switches x \([0-9]*\) LIDs in \([0-9.]*\) s (CPU \([0-9.]*\) s)/\1 \2 \3 \4/p' "$tmp/vt.err")
	rss=$(tail -1 "$tmp/rss")
	awk -v n="$pods" -v s="$sws" -v l="$lids" -v t="$vrt" -v c="$vcpu" -v r="$rss" 'BEGIN {
		e = s * l; printf "%-15s %6d %5d %11d | %7.1fms %7.1fms %8.2f %8.2f | %7.0fMB %7.0fMB %6.2f\n",
			"pruned 64," n, n * 1024, s, e, t * 1000, c * 1000, t * 1e9 / e, c * 1e9 / e,
			r / 1024, e / 1048576, r * 1024 / e }'
	rm -f "$f" "$tmp/l.bin"
done
