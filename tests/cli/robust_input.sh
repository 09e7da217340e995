#!/usr/bin/env bash
# Hostile inputs found by fuzzing and fault runs: each ends with one line naming
# the file (and line), a non-zero exit and nothing written.
. "$(dirname "$0")/robust_lib.bash"
r=$VT_BIN/vartree-route
mkbad

# a switch GUID of 0 used to route, but its tables could not be read back
sed 's/^switchguid=0x2c95000000000(2c95000000000)$/switchguid=0x0(0)/' "$tmp/good.topo" >"$tmp/guid0.topo"
expect 1 "vartree-route: $tmp/guid0.topo:9: switch \"L0-S0000\" (0x0000000000000000): GUID 0 is not valid" \
	"$r" -q "$tmp/guid0.topo" -o l
finish
