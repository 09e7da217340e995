#!/usr/bin/env bash
# OpenSM with the plugin under helgrind for two sweeps (a link down between
# them): the thread that fills the min-hop tables beside the routing races
# with nothing. OpenSM's and libumad2sim's own threads report races of their
# own, so a record counts only when one of its frames is in libvartree.so.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
command -v valgrind >/dev/null || skip "valgrind is not installed"

"$gen" fat 4,2 -o "$tmp/f42.topo" || fail "vartree-gen fat 4,2"
run_harness "$tmp/o" "$tmp/f42.topo" -H -T 300 -e vartree -F down:S-0002c95000000000:3
v=$tmp/o/valgrind.log
[ -s "$v" ] || fail "no helgrind log"
grep -q 'ERROR SUMMARY' "$v" || fail "helgrind did not finish (OpenSM did not exit)"
n=$(grep -c 'min-hop tables filled in [0-9.]* ms (beside the routing' "$tmp/o/opensm.log")
[ "$n" -ge 2 ] || fail "the tables were filled beside the routing on $n sweeps, not 2"
ours='(libvartree\.so|\((vartree|vtp_[a-z_]+|vt_[a-z_]+)\.c:[0-9]+\))'
awk -v ours="$ours" '
     function check() { if (rec ~ ours && rec ~ /(Possible data race|lock order|unlocked a|Thread #[0-9]+: pthread_|call to pthread_)/) { print rec; bad++ } rec = "" }
     { sub(/^==[0-9]+== ?/, "") }
     /^$/ { check(); next }
     { rec = rec $0 "\n" }
     END { check(); exit bad > 0 }' "$v" || fail "helgrind found thread errors in vartree's code"
echo "threads ok: $n sweeps with the second thread, $(grep -c 'Possible data race' "$v") race records, none in vartree's code"
