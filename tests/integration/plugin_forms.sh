#!/usr/bin/env bash
# The hand-written forms of tests/data/forms that ibsim loads, through real
# OpenSM and the plugin: each is routed by vartree with no fallback, its tables
# pass vartree-analyze's every-source audit on OpenSM's own subnet view, and
# the rank order has the ranks vartree-route finds offline. The MLAG-style leaf
# link falls back with its reason; a multi-PF adapter is refused before ibsim
# starts (ibsim would give its port the next PF's GUID). ibnetdiscover's own
# -g, -f, -s, -m output routes as its plain output; -p, -l, -H, -S, -R are refused.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
d=$VT_TOP/tests/data/forms
an=$VT_BIN/vartree-analyze

for f in grouped router ibdiag-split bom-prompt-quotes spine-down director3 director3-bypass \
	director3-mid-top-cas; do
	o=$tmp/$f
	run_harness "$o" "$d/$f.topo"
	grep -q '^osm_sweep 0: SUBNET UP, engine vartree, fallbacks none,.* errors 0$' "$o/summary.txt" ||
		{ cat "$o/summary.txt"; fail "$f: not routed by vartree"; }
	"$an" "$o/opensm-subnet.lst" --lfts "$o/opensm-lfts.dump" --order "$o/opensm-vartree-ca-order.dump" \
		--all-sources >"$o/a.txt" 2>&1 || { cat "$o/a.txt"; fail "$f: audit"; }
	grep -q '^audit: ok' "$o/a.txt" || { cat "$o/a.txt"; fail "$f: audit"; }
	"$VT_BIN/vartree-route" -q "$d/$f.topo" --order-out "$tmp/o" -o /dev/null || fail "$f: vartree-route"
	[ "$(grep -c . "$o/opensm-vartree-ca-order.dump")" = "$(grep -c . "$tmp/o")" ] ||
		fail "$f: $(grep -c . "$o/opensm-vartree-ca-order.dump") ranks in OpenSM, $(grep -c . "$tmp/o") offline"
done
# LMC 2 from OpenSM: every one of a CA's 4 LIDs has an entry on every switch.
# opensm-subnet.lst carries no LMC: the audit takes it from the port GUIDs
# opensm-lfts.dump names (it stopped at "LID 0x0015 beyond the fabric's top
# LID 0x0014"), or from --lmc with opensm.fdbs, which names none; the
# harness's ibnetdiscover names it itself.
run_harness "$tmp/lmc" "$d/lmc.topo" --lmc 2
grep -q 'engine vartree, fallbacks none' "$tmp/lmc/summary.txt" || fail "lmc: not routed by vartree"
for v in "sweep-0/ibnetdiscover.topo opensm-lfts.dump" "opensm-subnet.lst opensm-lfts.dump" \
	"opensm-subnet.lst opensm.fdbs --lmc 2"; do
	# shellcheck disable=SC2086 # the words of v
	set -- $v
	"$an" "$tmp/lmc/$1" --lfts "$tmp/lmc/$2" ${3:+"$3" "$4"} --all-sources -q >"$tmp/a.txt" 2>&1 &&
		grep -q '^audit: ok' "$tmp/a.txt" || { cat "$tmp/a.txt"; fail "lmc: audit of $v"; }
done
[ "$(grep -c '# Channel Adapter' "$tmp/lmc/opensm-lfts.dump")" = 64 ] || fail "lmc: not 16 CA LIDs x 4 switches"

run_harness "$tmp/isl" "$d/leaf-isl.topo" -e vartree,minhop
grep -q '^osm_sweep 0: SUBNET UP, engine minhop, fallbacks vartree,' "$tmp/isl/summary.txt" || fail "leaf-isl: no fallback"
grep -q "ERR VT01: fabric refused: OpenSM's subnet: switches \"MF0;leaf1:MQM8700/U1\" (0x7cfe900300a0b030) port 5 and \"MF0;leaf2:MQM8700/U1\" (0x7cfe900300a0b040) port 5 are linked but both at level 0" \
	"$tmp/isl/opensm.log" || fail "leaf-isl: no ERR VT01 naming the link"

"$harness" -q -o "$tmp/mpf" "$d/multipf.topo" >/dev/null 2>"$tmp/err" && fail "multipf: ibsim started"
grep -q 'ibsim cannot represent this fabric .*"n01 mlx5_0" (0x0c42a10300d0e050) port 1: ibsim would give it GUID 0x0c42a10300d0e051, the node GUID of "n01 mlx5_1"' "$tmp/err" ||
	{ cat "$tmp/err"; fail "multipf: no reason"; }
# ibnetdiscover's own output in every mode, on ibsim: topologies route to the
# same tables as the plain form; the reports without topology are refused by name
run_harness "$tmp/modes" "$d/router.topo" -x 'for m in g f s m gf; do ibnetdiscover -$m >$m.topo 2>&1; done
	for m in p l H S R; do ibnetdiscover -$m >$m.txt; done; ibnetdiscover >plain.topo'
w=$tmp/modes/sweep-0
"$VT_BIN/vartree-route" -q "$w/plain.topo" -o "$tmp/plain.lft" || fail "modes: plain output not routed"
for m in g f s m gf; do
	"$VT_BIN/vartree-route" -q "$w/$m.topo" -o "$tmp/$m.lft" 2>"$tmp/err" || { cat "$tmp/err"; fail "ibnetdiscover -$m: not routed"; }
	cmp -s "$tmp/plain.lft" "$tmp/$m.lft" || fail "ibnetdiscover -$m: other tables than the plain output"
done
for m in p l H S R; do
	"$VT_BIN/vartree-route" -q "$w/$m.txt" -o "$tmp/x.lft" 2>"$tmp/err" && fail "ibnetdiscover -$m: routed"
	grep -q "^vartree-route: $w/$m.txt:1: a \(port report\|node list\) (ibnetdiscover .*-$m" "$tmp/err" ||
		{ cat "$tmp/err"; fail "ibnetdiscover -$m: not refused by name"; }
done
echo "forms ok"
