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

# The faults of churn.sh and fault.sh (their headers name them).
# "LABEL FAULT" lines for a topology written by vartree-gen
faults() {
	awk 'function lvl(id) { return substr(id, 11, 2) }
	/^Switch/ { match($0, /"S-[0-9a-f]+"/); cur = substr($0, RSTART + 1, RLENGTH - 2); l = lvl(cur)
		if (l == "00") { leaf_seen = cur } else if (l == "01") { l1 = cur; if (!first1) first1 = cur } else if (l == "02") tp = cur
		up[cur] = ""; next }
	/^\[[0-9]+\]/ && cur != "" { match($0, /"[SH]-[0-9a-f]+"/); peer = substr($0, RSTART + 1, RLENGTH - 2)
		p = $1; gsub(/[^0-9]/, "", p)
		if (peer ~ /^H-/ && lvl(cur) == "00") { hosts[cur] = 1; leaf = cur }
		if (peer ~ /^S-/ && lvl(peer) == sprintf("%02d", lvl(cur) + 1) && up[cur] == "") up[cur] = p
		next }
	/^$/ { cur = "" }
	END { printf "leaf-uplink down:%s:%s\n", leaf, up[leaf]
		printf "L1-uplink down:%s:%s\n", l1, up[l1]
		printf "leaf down:%s\n", leaf
		printf "L1 down:%s\n", l1
		printf "L1-turn down:%s\n", first1
		printf "top down:%s\n", tp }' "$1"
}

norm() { # opensm-lfts.dump -> sorted "guid lid port"
	awk '/^Unicast lids/ { g = $0; sub(/.*guid 0x/, "", g); sub(/[^0-9a-fA-F].*/, "", g); g = tolower(g); next }
	     /^0x[0-9a-fA-F]+ +[0-9]+/ { printf "%s %s %d\n", g, tolower($1), $2 + 0 }' "$1" | sort
}

# entries and 64-LID blocks that differ between two normalised dumps, for the
# switches and LIDs the second holds (the entries of a failed switch or of LIDs
# that left change alike under any routing)
ndiff() {
	awk 'function hex(h,   i, v) { h = tolower(h); sub(/^0x/, "", h); v = 0
			for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v }
		FNR == NR { a[$1 " " $2] = $3; sa[$1] = 1; next }
		$1 in sa { k = $1 " " $2; if (!(k in a) || a[k] != $3) { n++; b[$1 " " int(hex($2) / 64)] = 1 } }
		END { for (k in b) nb++; printf "%d/%d", n, nb }' "$1" "$2"
}
