#!/usr/bin/env bash
# A leaf up-link taken down in ibsim, then a re-sweep: vartree reroutes with
# every host reachable from every leaf, no loop or credit loop in the live
# tables (analyzer audit) and nothing sent into the dead link;
# the link back up restores the first sweep's tables exactly. Then a whole
# top switch fails and comes back.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"

"$gen" fat 4,3 -o "$tmp/f43.topo" || fail "vartree-gen fat 4,3"
leaf=S-0002c95000000000 # L0-S0000; its port 5 goes up to L1-S0000
top=S-0002c95002000000  # L2-S0000
[ -x "$VT_BIN/vartree-analyze" ] || skip "vartree-analyze is not built"
run_harness "$tmp/o" "$tmp/f43.topo" -e vartree -x "$VT_BIN/vartree-analyze --live --json --pattern shift" -F down:$leaf:5 -F up:$leaf:5 -F down:$top -F up:$top
s=$tmp/o/summary.txt
[ "$(grep -c '^osm_sweep .*SUBNET UP, engine vartree, fallbacks none' "$s")" -ge 5 ] || { cat "$s"; fail "a sweep did not use vartree"; }
grep -q 'errors [1-9]' "$s" && { cat "$s"; fail "errors in a sweep"; }
for k in 0 1 2 3 4; do
	d=$tmp/o/sweep-$k
	[ -s "$d/opensm-lfts.dump" ] || fail "sweep $k: no opensm-lfts.dump"
	[ -s "$d/opensm-vartree-ca-order.dump" ] || fail "sweep $k: no ca-order dump"
	w=$(lft_walk "$d/ibnetdiscover.topo" "$d/opensm-lfts.dump")
	echo "sweep $k: $(tail -1 <<<"$w")"
	grep -q unreachable <<<"$w" && { head <<<"$w"; fail "sweep $k: hosts unreachable"; }
	want=$((16 * 64)) # 16 leaves, 64 hosts
	grep -q '"loop": {"count": 0}, "misdelivery": {"count": 0}, "non-minimal": {"count": 0}, "credit-loop": {"count": 0}}' "$d/exec.out" ||
		{ cat "$d/exec.out"; fail "sweep $k: the analyzer's audit of the live tables found a loop or credit loop"; }
	[ "$(tail -1 <<<"$w")" = "walked $want" ] || fail "sweep $k: expected $want (switch, host) pairs"
done
# the dead link is gone from the discovered view and from the leaf's table
grep -A9 "^Switch.*\"$leaf\"" "$tmp/o/sweep-1/ibnetdiscover.topo" | grep -q '^\[5\]' && fail "link still up in sweep 1"
lft_norm "$tmp/o/sweep-1/opensm-lfts.dump" | awk -v g="${leaf#S-}" '$1 == g && $3 == 5 { bad++ } END { exit bad > 0 }' ||
	fail "sweep 1: the leaf still forwards into its dead port 5"
cmp -s <(lft_norm "$tmp/o/sweep-0/opensm-lfts.dump") <(lft_norm "$tmp/o/sweep-1/opensm-lfts.dump") &&
	fail "sweep 1: tables unchanged after the link went down"
cmp <(lft_norm "$tmp/o/sweep-0/opensm-lfts.dump") <(lft_norm "$tmp/o/sweep-2/opensm-lfts.dump") ||
	fail "sweep 2: link back up did not restore the original tables"
cmp <(lft_norm "$tmp/o/sweep-0/opensm-lfts.dump") <(lft_norm "$tmp/o/sweep-4/opensm-lfts.dump") ||
	fail "sweep 4: top switch back did not restore the original tables"
cmp -s "$tmp/o/sweep-0/opensm-vartree-ca-order.dump" "$tmp/o/sweep-2/opensm-vartree-ca-order.dump" ||
	fail "sweep 2: compute-node order differs from sweep 0"
echo "fault sweeps ok"
