# Sourced by tests/bench/*.sh (run-bench runs only the *.sh files).

# LOG START-REGEX END-REGEX: ms between the first line matching START and the
# first later line matching END, from OpenSM's log timestamps.
ms() {
	awk -v a="$2" -v b="$3" 'function ts(  t) { split($3, t, ":"); return (t[1] * 3600 + t[2] * 60 + t[3]) * 1000 + $4 / 1000 }
		$0 ~ a && !s { s = ts() } $0 ~ b && s && !e { e = ts() } END { printf "%.1f", e - s }' "$1"
}

# The log lines the benches time ftree's step by (the whole log is tens of MB).
ftree_marks="building routing with 'ftree'|Max LID in switch LFTs|Starting FatTree routing|FatTree routing is done|ftree tables configured"

# ftree_run PODS TOPO DIR: ftree in the stock OpenSM on TOPO (vartree-gen pruned
# 36,PODS) through the harness; leaves DIR/summary.txt and DIR/opensm.log (its
# timing lines). run-bench gives VT_BENCH_SHARE, a directory where one bench's
# run of a fabric is kept for the next (plugin.sh and route.sh time the same
# ftree run: the 11664-host one takes minutes).
ftree_run() {
	local pods=$1 topo=$2 dir=$3 keep=${VT_BENCH_SHARE:+$VT_BENCH_SHARE/ftree-36,$1}
	mkdir -p "$dir"
	if [ -n "$keep" ] && [ -s "$keep/summary.txt" ]; then
		cp "$keep/summary.txt" "$keep/opensm.log" "$dir/"
		return 0
	fi
	"$top/sim/vartree-harness" -q -T 1800 -e ftree -o "$dir/run" "$topo" >/dev/null 2>"$dir/err" ||
		{ cat "$dir/err" "$dir/run/summary.txt" 2>/dev/null; return 1; }
	grep -q "^osm_sweep 0: SUBNET UP, engine ftree, fallbacks none," "$dir/run/summary.txt" ||
		{ cat "$dir/run/summary.txt"; return 1; }
	cp "$dir/run/summary.txt" "$dir/"
	grep -E "$ftree_marks" "$dir/run/opensm.log" >"$dir/opensm.log"
	rm -rf "$dir/run"
	if [ -n "$keep" ]; then
		mkdir -p "$keep" && cp "$dir/summary.txt" "$dir/opensm.log" "$keep/"
	fi
}
