#!/usr/bin/env bash
# Two harness runs at once on different fabrics do not interfere (own ibsim
# socket, output and OpenSM cache each), their simulators are gone afterwards,
# and bad usage is refused with exit 2 and one line naming the cause.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"

"$gen" fat 4,2 -o "$tmp/a.topo" || fail "vartree-gen fat 4,2"
"$gen" thin 4:2,3 -o "$tmp/b.topo" || fail "vartree-gen thin"
"$harness" -e vartree -o "$tmp/a" "$tmp/a.topo" >"$tmp/a.out" 2>&1 &
pa=$!
"$harness" -e ftree -o "$tmp/b" "$tmp/b.topo" >"$tmp/b.out" 2>&1 &
pb=$!
wait $pa || { cat "$tmp/a.out"; fail "run a"; }
wait $pb || { cat "$tmp/b.out"; fail "run b"; }
[ "$(tail -1 "$tmp/a.out")" = "$tmp/a" ] || fail "run a did not print its directory last"
grep -q '^osm_sweep 0: SUBNET UP, engine vartree,' "$tmp/a/summary.txt" || fail "run a: not vartree"
grep -q '^osm_sweep 0: SUBNET UP, engine ftree,' "$tmp/b/summary.txt" || fail "run b: not ftree"
# each saw its own fabric: 16 hosts and 8 switches, 64 hosts and 28 switches
[ "$(grep -c '^Ca' "$tmp/a/sweep-0/ibnetdiscover.topo")" = 16 ] || fail "run a: wrong fabric"
[ "$(grep -c '^Switch' "$tmp/b/sweep-0/ibnetdiscover.topo")" = 28 ] || fail "run b: wrong fabric"
[ "$(wc -l <"$tmp/a/opensm-vartree-ca-order.dump")" = 16 ] || fail "run a: order dump"
[ -s "$tmp/b/opensm-ftree-ca-order.dump" ] || fail "run b: ftree order dump"
for d in a b; do
	pid=$(sed -n 's/.*ibsim pid \([0-9]*\).*/\1/p' "$tmp/$d.out")
	[ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || fail "ibsim of run $d still running"
done

"$harness" -F sideways:x "$tmp/a.topo" >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "bad -F not refused with 2"
grep -q '^vartree-harness: -F sideways:x: expected down|up:NODE\[:PORT\]$' "$tmp/err" || { cat "$tmp/err"; fail "bad -F message"; }
"$harness" "$tmp/none.topo" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "none.topo: cannot read the topology" "$tmp/err" || fail "missing topology"
echo "parallel ok"
