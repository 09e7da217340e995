#!/usr/bin/env bash
# vartree-harness and vartree-compare on bad command lines and fabrics: one line
# "vartree-xxx: cause" (usage errors ending "Try 'vartree-xxx --help'."), exit 2 for
# usage, unreadable files and fabrics ibsim cannot load (its FILE:LINE and cause),
# and no output directory left behind.
. "$(dirname "$0")/robust_lib.bash"
h=$top/sim/vartree-harness
c=$top/sim/vartree-compare
mkbad
export TMPDIR=$tmp/run # a default output directory would land there and be seen

for s in "$h" "$c"; do
	n=$(basename "$s")
	try=". Try '$n --help'."
	expect 2 "$n: unknown option '--bogus'$try" "$s" --bogus "$tmp/good.topo"
	expect 2 "$n: unknown option '-z'$try" "$s" -z "$tmp/good.topo"
	expect 2 "$n: option '-e' needs a value$try" "$s" -e
	expect 2 "$n: no TOPOLOGY given$try" "$s"
	expect 2 "$n: one TOPOLOGY expected, got 2 arguments$try" "$s" "$tmp/good.topo" "$tmp/good.topo"
	expect 2 "$n: $tmp/missing.topo: cannot read the topology: no such file" "$s" "$tmp/missing.topo"
	expect 2 "$n: $tmp: cannot read the topology: not a readable file" "$s" "$tmp"
	expect 2 "$n: $tmp/run/no/dir: cannot create the output directory: No such file or directory" \
		"$s" -o "$tmp/run/no/dir" "$tmp/good.topo"
	"$s" --help | grep -q "^Usage: $n \[OPTIONS\] TOPOLOGY" || { echo "FAIL: $n --help"; nfail=$((nfail + 1)); }
done
expect 2 "vartree-harness: $tmp/empty.topo:1: no node records (Switch, Ca, Hca or Rt)" "$h" "$tmp/empty.topo"
expect 2 "vartree-harness: --lmc '9': expected a whole number in 0..7" "$h" --lmc 9 "$tmp/good.topo"
expect 2 "vartree-harness: -T 'x': expected a whole number in 1..86400" "$h" -T x "$tmp/good.topo"
expect 2 "vartree-harness: -N '0': expected a whole number in 1..1000000" "$h" -N 0 "$tmp/good.topo"
expect 2 "vartree-compare: -e 'a b': expected engine names separated by commas. Try 'vartree-compare --help'." \
	"$c" -e 'a b' "$tmp/good.topo"
# an engine OpenSM does not have is refused before anything runs (OpenSM would fall back to
# minhop and the run would look like a fallback), by both scripts; torus-2QoS is a name
for s in "$h" "$c"; do
	n=$(basename "$s")
	expect 2 "$n: -e: unknown routing engine 'foo' (known: minhop updn dnup file ftree lash dor torus-2QoS nue dfsssp sssp vartree$([ "$n" = vartree-harness ] && echo " no_fallback")). Try '$n --help'." \
		"$s" -e vartree,foo "$tmp/good.topo"
	"$s" --help | grep -q -- '--json' || { echo "FAIL: $n --help lacks --json"; nfail=$((nfail + 1)); }
done
expect 2 "vartree-harness: -e 'vartree,': expected engine names separated by commas. Try 'vartree-harness --help'." \
	"$h" -e vartree, "$tmp/good.topo"
# VT_UMAD2SIM and VT_OPENSM name the simulator's client library and OpenSM; a wrong one is refused
VT_UMAD2SIM=$tmp/none.so expect 2 "vartree-harness: $tmp/none.so not found (Debian package libumad2sim0, from ibsim-utils; or set VT_UMAD2SIM)" \
	"$h" "$tmp/good.topo"

# multi-PF adapters (node GUID = port GUID, consecutive across PFs): ibsim would
# give PF0's port the node GUID of PF1; refused before ibsim starts, exit 2
cat >"$tmp/multipf.topo" <<'EOF'
switchguid=0x100(100)
Switch 8 "S-0000000000000100" # "leaf" enhanced port 0 lid 1 lmc 0
[1] "H-00000000000000a0"[1](a0) # "host1 mlx5_0" lid 2 4xEDR
[2] "H-00000000000000a1"[1](a1) # "host1 mlx5_1" lid 3 4xEDR

caguid=0xa0
Ca 1 "H-00000000000000a0" # "host1 mlx5_0"
[1](a0) "S-0000000000000100"[1] # lid 2 lmc 0 "leaf" lid 1 4xEDR

caguid=0xa1
Ca 1 "H-00000000000000a1" # "host1 mlx5_1"
[1](a1) "S-0000000000000100"[2] # lid 3 lmc 0 "leaf" lid 1 4xEDR
EOF
mpf="$tmp/multipf.topo: ibsim cannot represent this fabric (it derives port GUIDs from node GUIDs): \"host1 mlx5_0\" (0x00000000000000a0) port 1: ibsim would give it GUID 0x00000000000000a1, the node GUID of \"host1 mlx5_1\" (multi-PF adapter?)"
expect 2 "vartree-harness: $mpf" "$h" -q "$tmp/multipf.topo"
expect 2 "vartree-compare: $mpf" "$c" -q "$tmp/multipf.topo"

# ibsim's own parse errors, as one line with its file and line
if command -v ibsim >/dev/null; then
	expect 2 "vartree-harness: $tmp/badport.topo:11: ibsim cannot load it: bad port num 99" "$h" -q "$tmp/badport.topo"
	expect 2 "vartree-harness: $tmp/trunc.topo:14: ibsim cannot load it: can't find valid id" "$h" -q "$tmp/trunc.topo"
	expect 2 "vartree-compare: $tmp/badport.topo:11: ibsim cannot load it: bad port num 99" "$c" -q "$tmp/badport.topo"
fi
finish
