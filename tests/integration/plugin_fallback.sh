#!/usr/bin/env bash
# A fabric vartree refuses (a clique: switches linked within one level) makes
# OpenSM fall back to the next engine of routing_engine; the SM reaches
# SUBNET UP and the log names the cause with ERR VT01. Every bad plugin option
# (not only the first) is reported with ERR VT02 and its reason, and does not
# stop routing.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"

"$gen" clique 8 -o "$tmp/clique.topo" || fail "vartree-gen clique 8"
run_harness "$tmp/c" "$tmp/clique.topo" -e vartree,dfsssp \
	-O "vartree.bogus=1,other.x=1,vartree.log=loud,vartree.hops=opensm,vartree.order_dump=maybe,vartree.hops"
s=$tmp/c/summary.txt
grep -q '^osm_sweep 0: SUBNET UP, engine dfsssp, fallbacks vartree,' "$s" || { cat "$s"; fail "no fallback to dfsssp"; }
grep -q "ERR VT01: fabric refused: OpenSM's subnet: switches .* are linked but both at level 0" "$tmp/c/opensm.log" ||
	fail "ERR VT01 with the cause is not in the log"
for want in "'vartree.bogus=1': unknown option" "'vartree.log=loud': not error, info, verbose or debug" \
	"'vartree.order_dump=maybe': not a boolean" "'vartree.hops': no value"; do
	grep -q "bad_option: ERR VT02: event_plugin_options: cannot use $want" "$tmp/c/opensm.log" ||
		fail "ERR VT02 for $want is not in the log"
done
# one line per bad token and sweep, none for the good ones or other plugins' tokens
[ "$(grep -c 'ERR VT02' "$tmp/c/opensm.log")" = 4 ] || { grep 'ERR VT02' "$tmp/c/opensm.log"; fail "expected 4 ERR VT02 lines"; }
grep -q 'vartree: routing engine .vartree. registered' "$tmp/c/opensm.log" || fail "plugin not registered"
[ ! -e "$tmp/c/opensm-vartree-ca-order.dump" ] || fail "an order dump was written for a refused fabric"
# the fallback's tables are real: every switch has an entry for every CA LID
[ "$(grep -c '^Unicast lids' "$tmp/c/opensm-lfts.dump")" = 5 ] || fail "expected 5 switch tables"

# a root_guid_file that does not exist: ERR VT03, fall back
run_harness "$tmp/g" "$tmp/clique.topo" -e vartree,dfsssp -c "root_guid_file $tmp/none"
grep -q "ERR VT03: cannot use root_guid_file '$tmp/none'" "$tmp/g/opensm.log" || fail "no ERR VT03"
grep -q '^osm_sweep 0: SUBNET UP, engine dfsssp' "$tmp/g/summary.txt" || fail "no fallback after VT03"
# a root_guid_file whose one entry names no node (no listed root left): ERR VT01 names the file and
# the entry's line, fall back (a listed root gone while others are left routes: plugin_roots_fault)
"$gen" fat 4,2 -o "$tmp/f42.topo" || fail "vartree-gen fat 4,2"
printf '# tops\n0x1234\n' >"$tmp/roots"
run_harness "$tmp/r" "$tmp/f42.topo" -e vartree,dfsssp -c "root_guid_file $tmp/roots"
grep -q "ERR VT01: fabric refused: $tmp/roots:2: root GUID 0x0000000000001234 is not a switch of the fabric: no node or port of OpenSM's subnet has it; falling back" \
	"$tmp/r/opensm.log" || { grep 'ERR VT' "$tmp/r/opensm.log"; fail "no ERR VT01 naming the root_guid_file line"; }
grep -q '^osm_sweep 0: SUBNET UP, engine dfsssp' "$tmp/r/summary.txt" || fail "no fallback after the bad root"
echo "fallback ok"
