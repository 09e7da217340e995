#!/usr/bin/env bash
# Port groups wider than one link (parallel cables between two switches):
# vartree keeps every shift stage congestion-free on the 1:1 fabric of
# Zahavi et al. Fig. 6 (as captured from ibsim, OpenSM's LIDs) and on the
# generated fabric of the same shape. A routing change once made both 2/1.94.
set -u
top=${VT_TOP:?}
a=$VT_BIN/vartree-analyze
fail=0
for f in "$top/tests/data/fig6/ibnetdiscover.txt" "$top/topofiles/zahavi-fig6-varary.topo"; do
	got=$("$a" "$f" --route vartree -q 2>&1 | awk '$1 == "shift" { print $4 "/" $5 }')
	if [ "$got" != "1/1.00" ]; then
		echo "FAIL: $f: shift worst/avg $got, want 1/1.00"
		fail=1
	fi
done
exit $fail
