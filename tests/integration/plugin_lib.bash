# Sourced by tests/integration/plugin_*.sh and harness_*.sh: fabrics from
# vartree-gen, runs through sim/vartree-harness, LFT comparison.
harness=$VT_TOP/sim/vartree-harness
gen=$VT_BIN/vartree-gen
skip() {
	echo "$1"
	exit 77
}
fail() {
	echo "FAIL: $*"
	exit 1
}
for x in ibsim /usr/sbin/opensm ibnetdiscover; do
	command -v $x >/dev/null || skip "$x is not installed"
done
. "$VT_TOP/tests/integration/umad2sim.bash"
[ -r "$umad2sim" ] || skip "libumad2sim.so is not installed"
[ -f "$VT_TOP/build/lib/libvartree.so" ] || skip "build/lib/libvartree.so is not built (make)"
[ -x "$gen" ] || skip "vartree-gen is not built (make)"

tmp=$(mktemp -d /tmp/vt-plugin.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# "GUID LID PORT" lines of an opensm-lfts.dump, dump_fts or ibroute file, sorted.
lft_norm() {
	awk '/^Unicast lids/ { g = $0; sub(/.*guid 0x/, "", g); sub(/[^0-9a-fA-F].*/, "", g); g = tolower(g); next }
	     /^0x[0-9a-fA-F]+ +[0-9]+/ { printf "%s %s %d\n", g, tolower($1), $2 + 0 }' "$1" | sort
}

# Runs the harness; fails the test (with the summary) when it does not succeed.
run_harness() { # OUTDIR TOPO [harness options]
	local o=$1 t=$2
	shift 2
	if ! "$harness" -q -o "$o" "$@" "$t" >/dev/null 2>"$o.err"; then
		cat "$o.err" "$o/summary.txt" 2>/dev/null
		tail -20 "$o/opensm.log" 2>/dev/null
		fail "vartree-harness $* $t"
	fi
}

# Walks the tables from every leaf (a switch with hosts) toward every CA LID of
# TOPO (ibnetdiscover view), so every host-to-host route; prints one line per
# (leaf, LID) that does not arrive, then "walked N".
lft_walk() { # TOPO LFTS
	awk 'function hex(s,  i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
		return v }
	FNR == 1 { file++ }
	file == 1 && /^Switch/ { cur = $3; gsub(/"|S-/, "", cur); insw = 1; next }
	file == 1 && /^(Ca|Hca|Rt)/ { insw = 0; next }
	file == 1 && insw && /^\[/ {
		p = $1; gsub(/[^0-9]/, "", p); peer = $2; sub(/\[.*/, "", peer); gsub(/"/, "", peer)
		if (peer ~ /^S-/) { sub(/^S-/, "", peer); link[cur, p] = "S" peer }
		else if (match($0, /lid [0-9]+/)) { l = substr($0, RSTART + 4, RLENGTH - 4); link[cur, p] = "L" l; calid[l] = 1; leaf[cur] = 1 }
		next }
	file == 2 && /^Unicast lids/ { g = $0; sub(/.*guid 0x/, "", g); g = tolower(substr(g, 1, 16)); next }
	file == 2 && /^0x[0-9a-fA-F]+ +[0-9]+/ { lft[g, hex($1)] = $2 + 0; next }
	END {
		for (s in leaf) for (l in calid) {
			cur = s; ok = 0
			for (h = 0; h < 16; h++) {
				if (!((cur, l + 0) in lft)) break
				nx = link[cur, lft[cur, l + 0]]
				if (nx == "L" l) { ok = 1; break }
				if (substr(nx, 1, 1) != "S") break
				cur = substr(nx, 2)
			}
			n++
			if (!ok) print "unreachable: switch " s " lid " l
		}
		print "walked " n
	}' "$1" "$2"
}
