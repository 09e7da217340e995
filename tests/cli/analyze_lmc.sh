#!/usr/bin/env bash
# vartree-analyze --lmc reads vartree-route --lmc's tables with the LIDs they
# were routed for: a topology's LMC 0 LIDs (one odd) are assigned anew as
# vartree-route assigns them (vt_fabric_lmc_lids), with a note; before, the
# analysis stopped at 'LID 193 is not the first of 2 (LMC 1)'. An SM's aligned
# LIDs are kept (tests/cli/route_forms.sh, the harness in plugin_forms.sh).
. "$(dirname "$0")/robust_lib.bash"
r=$VT_BIN/vartree-route a=$VT_BIN/vartree-analyze
f=$top/topofiles/degraded-8ary3-mixed.topo
[ -f "$f" ] || { echo "topofiles not generated: skipped"; exit 77; }

"$r" -q "$f" --lmc 1 -o "$tmp/l1" || { echo "FAIL: vartree-route --lmc 1"; exit 1; }
expect 0 "vartree-analyze: CA LIDs assigned anew for LMC 1, as vartree-route --lmc does ($f:3710: port 1 of \"H-0000\" (0x0002c91000000000): LID 193 is not the first of 2 (LMC 1))" \
	"$a" "$f" --lfts "$tmp/l1" --lmc 1 -p shift
ncase=$((ncase + 1))
grep -qx 'audit: ok (no unreachable destination, loop, misdelivery or credit loop)' "$tmp/out" &&
	grep -qx 'shift                            504       254520      3     2.01      2     1.75        -' "$tmp/out" ||
	{ echo "FAIL: lmc 1 shift: $(sed -n '3,5p' "$tmp/out")"; nfail=$((nfail + 1)); }
# -q drops the note, not the figures
expect 0 "" "$a" "$f" --lfts "$tmp/l1" --lmc 1 -p shift -q
ncase=$((ncase + 1))
grep -q '^shift  *504  *254520  *3  *2\.01 ' "$tmp/out" || { echo "FAIL: lmc 1 -q: $(tail -1 "$tmp/out")"; nfail=$((nfail + 1)); }
# the LIDs vartree-route --lmc 1 gave H-0000 (LIDs 194-195 in its tables)
ncase=$((ncase + 1))
grep -q "^0x00c2 001 # Channel Adapter portguid 0x0002c91000000001: 'H-0000'" "$tmp/l1" ||
	{ echo "FAIL: H-0000 not at LID 0xc2 in the tables"; nfail=$((nfail + 1)); }
# without --lmc the LMC the tables show (2 LIDs name each CA port; the
# offsets past the file's LIDs gave LMC 7 before), with its note
expect 0 "vartree-analyze: LMC 1 from $tmp/l1 ($f names no LMC)
vartree-analyze: CA LIDs assigned anew for LMC 1, as vartree-route --lmc does ($f:3710: port 1 of \"H-0000\" (0x0002c91000000000): LID 193 is not the first of 2 (LMC 1))" \
	"$a" "$f" --lfts "$tmp/l1" -p shift
ncase=$((ncase + 1))
grep -qx 'shift                            504       254520      3     2.01      2     1.75        -' "$tmp/out" ||
	{ echo "FAIL: lmc shown: $(tail -1 "$tmp/out")"; nfail=$((nfail + 1)); }
finish
