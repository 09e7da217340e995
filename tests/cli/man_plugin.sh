#!/usr/bin/env bash
# vartree-plugin(8) says what the plugin does between sweeps (issue 25): it keeps the last
# sweep's tables and fabric (plugin/vartree.c prev_fab, prev_lfts) and repairs the fresh
# tables against them (vartree.repair, default guarded), so DESCRIPTION must not say that
# nothing is kept, and must name vartree.repair as OPTIONS does.
set -u
fail() { echo "FAIL: $*"; exit 1; }
man=$VT_TOP/man/vartree-plugin.8
grep -q 'p->prev_lfts = p->lfts;' "$VT_TOP/plugin/vartree.c" || fail "plugin keeps no tables any more: update this test and the man page"
desc=$(sed -n '/^\.SH DESCRIPTION/,/^\.SH /p' "$man")
opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man")
grep -qi 'nothing is kept' <<<"$desc" && fail "DESCRIPTION says nothing is kept between sweeps"
grep -q 'the plugin keeps the tables it gave the switches' <<<"$desc" ||
	fail "DESCRIPTION does not say the last tables are kept"
grep -q 'vartree.repair=guarded' <<<"$desc" || fail "DESCRIPTION does not name vartree.repair"
grep -q 'keeps the tables it gave the switches at the last' <<<"$opts" || fail "OPTIONS lost vartree.repair's description"
echo ok
