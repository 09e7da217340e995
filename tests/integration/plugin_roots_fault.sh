#!/usr/bin/env bash
# root_guid_file survives a fault (issue 23): with every top listed, one top
# fails and comes back. The sweep after the failure routes with vartree (was
# ERR VT01 "root GUID ... is not a switch of the fabric" and the fallback
# engine on every sweep), logs the missing root as a departure, the live
# tables pass the analyzer's every-source audit, and the heal restores the
# first sweep's tables byte for byte.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"

[ -x "$VT_BIN/vartree-analyze" ] || skip "vartree-analyze is not built"
"$gen" fat 4,3 -o "$tmp/f43.topo" || fail "vartree-gen fat 4,3"
# the 16 tops (level 2) by node GUID, one a line after a comment: line 15 is L2-S0013
{
	echo "# tops of fat 4,3"
	grep -B1 '"L2-' "$tmp/f43.topo" | sed -n 's/^switchguid=\(0x[0-9a-f]*\).*/\1/p'
} >"$tmp/roots"
[ "$(grep -c '^0x' "$tmp/roots")" = 16 ] || fail "expected 16 top GUIDs in the root file"
[ "$(sed -n 15p "$tmp/roots")" = 0x2c95002000013 ] || fail "line 15 of the root file is not L2-S0013"
run_harness "$tmp/o" "$tmp/f43.topo" -e vartree,updn -c "root_guid_file $tmp/roots" \
	-x "$VT_BIN/vartree-analyze --live --json --all-sources" -F down:L2-S0013 -F up:L2-S0013
s=$tmp/o/summary.txt
[ "$(grep -c '^osm_sweep .*SUBNET UP, engine vartree, fallbacks none' "$s")" -ge 3 ] || { cat "$s"; fail "a sweep did not use vartree"; }
grep -q 'errors [1-9]' "$s" && { cat "$s"; fail "errors in a sweep"; }
grep 'ERR VT' "$tmp/o/opensm.log" && fail "vartree logged an error"
grep -q "root GUID 0x0002c95002000013 ($tmp/roots:15) is no node of the fabric: a listed top that failed, the tree is counted from the other roots" \
	"$tmp/o/opensm.log" || fail "the failed root is not logged as a departure"
for k in 0 1 2; do
	d=$tmp/o/sweep-$k
	[ "$(cat "$d/exec.status")" = 0 ] || { cat "$d/exec.out"; fail "sweep $k: the analyzer failed"; }
	grep -q '"unreachable": {"count": 0}, "loop": {"count": 0}, "misdelivery": {"count": 0}, .*"credit-loop": {"count": 0}}' "$d/exec.out" ||
		{ cat "$d/exec.out"; fail "sweep $k: the every-source audit of the live tables is not clean"; }
done
grep -q '"S-0002c95002000013"' "$tmp/o/sweep-1/ibnetdiscover.topo" && fail "the top is still in sweep 1's fabric"
cmp -s <(lft_norm "$tmp/o/sweep-0/opensm-lfts.dump") <(lft_norm "$tmp/o/sweep-1/opensm-lfts.dump") &&
	fail "sweep 1: tables unchanged after the top failed"
cmp <(lft_norm "$tmp/o/sweep-0/opensm-lfts.dump") <(lft_norm "$tmp/o/sweep-2/opensm-lfts.dump") ||
	fail "sweep 2: the top back did not restore the original tables"
echo "root_guid_file fault ok"
