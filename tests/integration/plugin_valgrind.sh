#!/usr/bin/env bash
# OpenSM with the plugin under valgrind for three sweeps with a fault between
# them: no invalid access anywhere in vartree's code and no leak allocated
# from it. OpenSM's own leaks are filtered by stack: a record counts only when
# one of its frames is in libvartree.so.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
command -v valgrind >/dev/null || skip "valgrind is not installed"

"$gen" fat 4,2 -o "$tmp/f42.topo" || fail "vartree-gen fat 4,2"
run_harness "$tmp/o" "$tmp/f42.topo" --valgrind -T 120 -e vartree -F down:S-0002c95000000000:3 -F up:S-0002c95000000000:3
v=$tmp/o/valgrind.log
[ -s "$v" ] || fail "no valgrind log"
grep -q 'ERROR SUMMARY' "$v" || fail "valgrind did not finish (OpenSM did not exit)"
[ "$(grep -c 'vartree tables configured on all switches' "$tmp/o/opensm.log")" -ge 3 ] || fail "fewer than three vartree sweeps"
# valgrind records: blocks of lines starting "==PID== " separated by blank "==PID== " lines
# (the harness runs valgrind with --keep-debuginfo=yes, so frames of the plugin,
# dlclosed before the leak check, still name their source files)
ours='(libvartree\.so|\((vartree|vtp_[a-z_]+|vt_[a-z_]+)\.c:[0-9]+\))'
awk -v ours="$ours" '
     function check() { if (rec ~ ours && rec ~ /(Invalid|uninitialised|Mismatched|definitely lost|indirectly lost|possibly lost)/) { print rec; bad++ } rec = "" }
     { sub(/^==[0-9]+== ?/, "") }
     /^$/ { check(); next }
     { rec = rec $0 "\n" }
     END { check(); exit bad > 0 }' "$v" || fail "valgrind found errors in vartree's code"
grep 'ERROR SUMMARY' "$v"
echo "valgrind ok"
