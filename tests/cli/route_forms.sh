#!/usr/bin/env bash
# Every output form of ibnetdiscover and ibdiagnet, and real-site shapes, in small
# hand-written files (tests/data/forms/README.md says what each shows):
# vartree-route routes each with the ranks listed and vartree-analyze's audit,
# every switch and CA a source, finds no unreachable destination, loop,
# misdelivery or credit loop; what holds no topology, or is no tree, is refused
# with one exact line and nothing written.
. "$(dirname "$0")/robust_lib.bash"
d=$top/tests/data/forms
r=$VT_BIN/vartree-route
a=$VT_BIN/vartree-analyze

# routes FILE RANKS DUMMIES: routed, RANKS ranks of which DUMMIES place-keepers, clean audit
routes() {
	local f=$d/$1 c
	ncase=$((ncase + 1))
	if ! "$r" -q "$f" -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err"; then
		echo "FAIL: $1: refused: $(cat "$tmp/err")"
		nfail=$((nfail + 1))
		return
	fi
	"$a" "$f" --lfts "$tmp/l" --order "$tmp/o" --all-sources --json >"$tmp/a.json" 2>"$tmp/err"
	c=$?
	for k in unreachable loop misdelivery credit-loop; do
		[ $c -le 1 ] && grep -q "\"$k\": {\"count\": 0" "$tmp/a.json" && continue
		echo "FAIL: $1: analyze exit $c, audit $k: $(head -2 "$tmp/err")"
		nfail=$((nfail + 1))
		return
	done
	if [ "$(grep -c . "$tmp/o")/$(grep -c DUMMY "$tmp/o")" != "$2/$3" ]; then
		echo "FAIL: $1: $(grep -c . "$tmp/o") ranks ($(grep -c DUMMY "$tmp/o") place-keepers), want $2 ($3)"
		nfail=$((nfail + 1))
	fi
}

routes plain.topo 4 0
routes grouped.topo 4 0           # -g: Chassis, Spine/Line Nodes, [ext n]
routes rates.topo 4 0             # 1x..12x, 2xNDR, XDR, FDR10, ??, ???, --full
routes rates-one-end.topo 4 0     # ??, ???, ????? on one end of each link, the rate on the other
routes router.topo 4 0            # an Rt node: routed to, not a rank
routes lmc.topo 4 0               # CA ports with LMC 2
routes ibdiag-split.topo 4 0      # ibdiagnet, NDR split ports [61](31/1)
routes multipf.topo 4 0           # node GUID = port GUID, consecutive PFs
routes bom-prompt-quotes.topo 4 0 # BOM, prompt, quotes, one description for all switches
routes dualrail.topo 4 0          # two disconnected trees: each a plane, ranks of the first
routes spine-down.topo 9 0        # leaves with 3, 2 and 1 up-links
routes director3.topo 8 2         # CS7500 as core, a UFM HCA on a spine ASIC, a host-less leaf
routes director3-bypass.topo 8 2  # every leaf on every line ASIC: the spine ASICs carry nothing
routes director3-mid-top-cas.topo 8 2 # ... and a storage HCA on a line ASIC: the tops' detours
# to each other turn at one line ASIC (at two, with the line ASICs' routes to
# each other over the tops, they closed a credit loop: refused)
# and the log says the second routing is the one the switches get, and why
v=$("$r" -v "$d/director3-mid-top-cas.topo" -o "$tmp/l" 2>&1 >/dev/null | grep 'routed twice')
[[ $v == 'vartree-route: routed twice: the first tables failed the audit (no deadlock-free tree routing for every source: credit-loop: "MF0;core-dir:CS7500/L01/U1" (0x98039b0300c00011): a cycle of 4 channel dependencies (LID 2): '* ]] ||
	{ echo "FAIL: director3-mid-top-cas: -v: ${v:-no 'routed twice' line}"; nfail=$((nfail + 1)); }

# the summary's leaves are the switches with ranks; the spine ASICs the leaves'
# up-links bypass are level 0 too, counted apart (were among "6 leaf switches")
ncase=$((ncase + 1))
v=$("$r" "$d/director3-bypass.topo" -o "$tmp/l" 2>&1 >/dev/null | grep '^vartree-route: level 0')
[ "$v" = "vartree-route: level 0: 4 leaf switches, up to 2 compute nodes each, 2 up-links in 2 groups
vartree-route: level 0 also: 2 director spine ASICs that the leaves' up-links bypass, no ranks, 2 up-links in 2 groups" ] ||
	{ echo "FAIL: director3-bypass.topo: summary: $v"; nfail=$((nfail + 1)); }

# a link's rate named on one end only ("??", "???" or "?????" on the other, listed
# first or second) is the named one: vartree-sim runs it exactly as the same dump with
# the rate on both ends (as SDR, or 4x where the named end is 1x or 2x, it ran slower
# or was refused)
sed 's/4x???/4xHDR/; s/??HDR/1xHDR/; s/?????/2xHDR/' "$d/rates-one-end.topo" >"$tmp/named.topo"
ncase=$((ncase + 1))
for f in "$d/rates-one-end.topo" "$tmp/named.topo"; do
	"$VT_BIN/vartree-sim" -q "$f" --json --links | sed 's/^{"fabric": "[^"]*"//'
done >"$tmp/sims"
if [ "$(sed -n 1p "$tmp/sims")" != "$(sed -n 2p "$tmp/sims")" ] || ! grep -q '"total_us": ' "$tmp/sims"; then
	echo "FAIL: rates-one-end.topo: vartree-sim differs from the dump with both ends named"
	nfail=$((nfail + 1))
fi

# real sites' sizes: 800+ hosts on 40-port leaves (HDR), 64-port leaves with NDR 2x ports
gen_routes() { # SPEC RANKS [DUMMIES]
	# shellcheck disable=SC2086
	"$VT_BIN/vartree-gen" $1 -o "$tmp/gen.topo" && d=$tmp routes gen.topo "$2" "${3:-0}"
}
gen_routes "oversub 40,20,20,20 --speed HDR" 800
gen_routes "oversub 42,24,16,16 --speed EDR" 1008
gen_routes "oversub 26,32,32,32 --speed NDR --width 2" 832
# hosts on one leaf, or on the leaves of one pod, of a 3-level tree (an installation
# under way): the roots are still the top level (were a pod's own top, then refused)
gen_routes "fat 4,3 --hostless-leaves 15" 16 12
gen_routes "fat 4,3 --hostless-leaves 14 --seed 7" 16 8
# ... and with storage HCAs on the spines of a 2-level tree: the spines stay spines
# (their CAs were taken for leaves, outnumbering the one leaf: refused)
gen_routes "oversub 8,12,4,4 --hostless-leaves 7 --spine-cas 2 --seed 1" 96 84
gen_routes "oversub 8,12,4,4 --hostless-leaves 7 --spine-cas 2:dual --seed 2" 96 84
# ... and on the top switches of a 3-level tree with hosts in one pod only
gen_routes "fat 4,3 --hostless-leaves 15 --spine-cas 2" 16 12
gen_routes "fat 4,3 --hostless-leaves 14 --spine-cas 2 --seed 7" 16 8
gen_routes "pruned 36,4 --hostless-leaves 70 --spine-cas 2" 324 288
for s in 15 "14 --seed 7"; do
	# shellcheck disable=SC2086
	"$VT_BIN/vartree-gen" fat 4,3 --hostless-leaves $s -o "$tmp/gen.topo"
	ncase=$((ncase + 1))
	"$r" "$tmp/gen.topo" -o /dev/null 2>&1 | grep -q '^vartree-route: 3 switch levels, 4 compute nodes\|^vartree-route: 3 switch levels, 8 compute nodes' ||
		{ echo "FAIL: fat 4,3 --hostless-leaves $s: not 3 levels"; nfail=$((nfail + 1)); }
done

# what routes must carry: every LID of an LMC 2 port, and the router's LID
"$r" -q "$d/lmc.topo" -o "$tmp/l"
ncase=$((ncase + 1))
[ "$(grep -c '^0x00\(0[89a-f]\|1[0-7]\) 00[1-4] # Channel Adapter' "$tmp/l")" = 64 ] ||
	{ echo "FAIL: lmc.topo: not 16 CA LIDs on each of 4 switches"; nfail=$((nfail + 1)); }

# OpenSM's lmc_esp0 gives enhanced switch port 0 an LMC range as well: every
# LID of it is routed and audited (fat 4,2 with every LID doubled and the
# switches at LMC 1: 8 tables of 16 switch LIDs; before, the odd ones had no
# entry, and the every-source audit did not look at them)
"$VT_BIN/vartree-gen" fat 4,2 -o "$tmp/f42.topo"
awk '{
	out = ""
	while (match($0, /lid [0-9]+/)) {
		out = out substr($0, 1, RSTART - 1) "lid " 2 * substr($0, RSTART + 4, RLENGTH - 4)
		$0 = substr($0, RSTART + RLENGTH)
	}
	print out $0 }' "$tmp/f42.topo" | sed 's/\(base port 0 lid [0-9]*\) lmc 0/\1 lmc 1/' >"$tmp/esp0.topo"
"$r" -q "$tmp/esp0.topo" -o "$tmp/esp0"
ncase=$((ncase + 1))
[ "$(grep -c '# Switch portguid' "$tmp/esp0")" = 128 ] && grep -qx "0x0003 000 # Switch portguid 0x0002c95000000000: 'L0-S0000'" "$tmp/esp0" ||
	{ echo "FAIL: switch LMC 1: not 16 switch LIDs in each of 8 tables"; nfail=$((nfail + 1)); }
expect 0 "" "$a" "$tmp/esp0.topo" --lfts "$tmp/esp0" --all-sources -q
ncase=$((ncase + 1))
grep -qx 'audit: ok (no unreachable destination, loop, misdelivery or credit loop)' "$tmp/out" ||
	{ echo "FAIL: switch LMC 1: audit: $(head -3 "$tmp/out")"; nfail=$((nfail + 1)); }
awk '/^Unicast/ { n++ } !(n == 2 && /^0x0003 /)' "$tmp/esp0" >"$tmp/esp0-cut"
expect 1 "" "$a" "$tmp/esp0.topo" --lfts "$tmp/esp0-cut" --all-sources -q
ncase=$((ncase + 1))
grep -qx 'audit: unreachable: 1 (first: "L0-S0001" (0x0002c95000000001), LID 3: no route (no LFT entry))' "$tmp/out" ||
	{ echo "FAIL: switch LMC 1, LID 3 cut at L0-S0001: audit: $(head -3 "$tmp/out")"; nfail=$((nfail + 1)); }

# OpenSM's opensm-subnet.lst names no LMC: lmc-opensm-subnet.lst is what
# OpenSM wrote for lmc.topo with LMC 2 (vartree-harness --lmc 2), the tables are
# vartree-route --lmc 2's (the same LIDs as OpenSM's). The text dump names the
# port GUID of every LID, so the LMC is taken from it, with a note; the binary
# form names none and needs --lmc (both stopped at "LID 0x0015 beyond the
# fabric's top LID 0x0014" before)
lst=$d/lmc-opensm-subnet.lst
"$r" -q --lmc 2 "$d/lmc.topo" -o "$tmp/l2"
"$r" -q --lmc 2 "$d/lmc.topo" --lft-format binary -o "$tmp/l2.bin"
expect 0 "vartree-analyze: LMC 2 from $tmp/l2 ($lst names no LMC)" "$a" "$lst" --lfts "$tmp/l2" --all-sources
ncase=$((ncase + 1))
grep -qx 'audit: ok (no unreachable destination, loop, misdelivery or credit loop)' "$tmp/out" ||
	{ echo "FAIL: lmc .lst: audit: $(head -3 "$tmp/out")"; nfail=$((nfail + 1)); }
expect 0 "" "$a" "$lst" --lfts "$tmp/l2" --all-sources -q
expect 0 "" "$a" "$lst" --lfts "$tmp/l2.bin" --all-sources --lmc 2
ncase=$((ncase + 1))
grep -qx 'audit: ok (no unreachable destination, loop, misdelivery or credit loop)' "$tmp/out" ||
	{ echo "FAIL: lmc .lst --lmc 2: audit: $(head -3 "$tmp/out")"; nfail=$((nfail + 1)); }
expect 2 "vartree-analyze: $tmp/l2.bin: byte 45: LID 0x0015 beyond the fabric's top LID 0x0014 (another fabric's tables, or an LMC the fabric file does not name)" \
	"$a" "$lst" --lfts "$tmp/l2.bin"
expect 2 "vartree-analyze: $lst:6: port 1 of \"n02 mlx5_0\" (0x0c42a10300d0e020): LID 12 is not the first of 8 (LMC 3)" \
	"$a" "$lst" --lfts "$tmp/l2" --lmc 3
expect 2 "vartree-analyze: --lmc and --live exclude each other. Try 'vartree-analyze --help'." "$a" --live --lmc 2
# the LMC an ibnetdiscover file names is kept: no note
expect 0 "" "$a" "$d/lmc.topo" --lfts "$tmp/l2" --all-sources
# vartree-trace and vartree-sim read tables alike: n04's fourth LID (0x17)
# traced from n01, 12 messages of a shift simulated
tr=$VT_BIN/vartree-trace sim=$VT_BIN/vartree-sim
expect 0 "vartree-trace: LMC 2 from $tmp/l2 ($lst names no LMC)" "$tr" "$lst" --lfts "$tmp/l2" -L 8 0x17
ncase=$((ncase + 1))
[ "$(tail -1 "$tmp/out")" = 'To ca {0x0c42a10300d0e040} portnum 1 lid 20-23 "n04 mlx5_0"' ] ||
	{ echo "FAIL: trace lmc .lst: $(tail -2 "$tmp/out")"; nfail=$((nfail + 1)); }
expect 0 "" "$tr" "$lst" --lfts "$tmp/l2.bin" --lmc 2 -L 8 0x17
expect 2 "vartree-trace: $tmp/l2.bin: byte 45: LID 0x0015 beyond the fabric's top LID 0x0014 (another fabric's tables, or an LMC the fabric file does not name)" \
	"$tr" "$lst" --lfts "$tmp/l2.bin" -L 8 0x17
expect 2 "vartree-trace: --lmc and --live exclude each other. Try 'vartree-trace --help'." "$tr" --live --lmc 2 a b
ncase=$((ncase + 1))
"$sim" "$lst" --lfts "$tmp/l2" >/dev/null 2>"$tmp/err" &&
	[ "$(head -1 "$tmp/err")" = "vartree-sim: LMC 2 from $tmp/l2 ($lst names no LMC)" ] ||
	{ echo "FAIL: sim lmc .lst: $(head -2 "$tmp/err")"; nfail=$((nfail + 1)); }
expect 0 "" "$sim" "$lst" --lfts "$tmp/l2.bin" --lmc 2 -q
ncase=$((ncase + 1))
grep -qx "$tmp/l2.bin: 12/12 messages, 49152 bytes delivered of 49152, .*" "$tmp/out" ||
	{ echo "FAIL: sim lmc .lst: $(tail -2 "$tmp/out")"; nfail=$((nfail + 1)); }
expect 2 "vartree-sim: --lmc and --gen exclude each other. Try 'vartree-sim --help'." "$sim" --gen "fat 2,2" --lmc 1
"$r" -q "$d/router.topo" -o "$tmp/l"
ncase=$((ncase + 1))
[ "$(grep -c "^0x0009 00[1-5] # Router portguid 0x0c42a10300f0a001: 'gw1 ib-router'" "$tmp/l")" = 4 ] ||
	{ echo "FAIL: router.topo: router LID 9 not routed on every switch"; nfail=$((nfail + 1)); }

# reports that hold no topology, and shapes that are no tree
expect 2 "vartree-route: $d/ports.txt:1: a port report (ibnetdiscover -p) does not say which ports form a node: give ibnetdiscover's topology output (no option)" \
	"$r" -q "$d/ports.txt" -o l
for f in list-all.txt list-cas.txt list-switches.txt; do
	expect 2 "vartree-route: $d/$f:1: a node list (ibnetdiscover -l, -H, -S or -R) has no links: give ibnetdiscover's topology output (no option)" \
		"$r" -q "$d/$f" -o l
done
expect 2 "vartree-analyze: $d/ports.txt:1: a port report (ibnetdiscover -p) does not say which ports form a node: give ibnetdiscover's topology output (no option)" \
	"$a" -q "$d/ports.txt" --route vartree
expect 2 "vartree-route: $d/diff.txt:1: a --diff report lists changes, not a topology: give ibnetdiscover's topology output (no option)" \
	"$r" -q "$d/diff.txt" -o l
# line 31: leaf1's "[5]" port line, the link (checked by hand)
expect 1 "vartree-route: $d/leaf-isl.topo:31: "'switches "MF0;leaf1:MQM8700/U1" (0x7cfe900300a0b030) port 5 and "MF0;leaf2:MQM8700/U1" (0x7cfe900300a0b040) port 5 are linked but both at level 0; an up/down tree links only adjacent levels' \
	"$r" -q "$d/leaf-isl.topo" -o l
# on a multi-rail fabric the plane follows the location: a leaf-to-leaf link
# added to the second rail as line 96 of its first leaf's record
sed $'91s/Switch\t4/Switch\t5/; 101s/Switch\t4/Switch\t5/; 95a [5]\t"S-7cfe900300a0c040"[5]' \
	"$d/dualrail.topo" >"$tmp/dual-isl.topo"
expect 1 "vartree-route: $tmp/dual-isl.topo:96: the fabric falls into 2 parts no cable joins (planes of a multi-rail fabric, or pieces): part 1, with 4 of the 8 CAs: "'switches "MF0;leaf1-r2:MQM8700/U1" (0x7cfe900300a0c030) port 5 and "MF0;leaf2-r2:MQM8700/U1" (0x7cfe900300a0c040) port 5 are linked but both at level 0; an up/down tree links only adjacent levels' \
	"$r" -q "$tmp/dual-isl.topo" -o l
finish
