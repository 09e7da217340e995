#!/usr/bin/env bash
# vartree-sim on bad input: fabrics, LFT dumps, option values: one line
# "vartree-sim: ...", exit 1 for input, 2 for an option value out of range.
. "$(dirname "$0")/robust_lib.bash"
s=$VT_BIN/vartree-sim
mkbad
"$VT_BIN/vartree-route" -q "$tmp/good.topo" -o "$tmp/good.lfts"
head -c 3000 "$tmp/good.lfts" >"$tmp/trunc.lfts"

expect 2 "vartree-sim: $tmp/missing.topo: cannot open: No such file or directory" "$s" -q "$tmp/missing.topo"
expect 2 "vartree-sim: $tmp/empty.topo:1: no node records (Switch, Ca, Hca or Rt)" "$s" -q "$tmp/empty.topo"
expect 2 "vartree-sim: $tmp/trunc.topo:14: \"L0-S0000\" (0x0002c95000000000) port 5: unterminated quote in remote node id" \
	"$s" -q "$tmp/trunc.topo"
expect 2 "vartree-sim: $tmp/badport.topo:11: \"L0-S0000\" (0x0002c95000000000): port 99 out of range 1..8" "$s" -q "$tmp/badport.topo"
expect 1 "vartree-sim: $top/topofiles/matsuoka-clique-8.topo:14: switches \"L0-S0000\" (0x0002c95000000000) port 5 and \"L0-S0001\" (0x0002c95000000001) port 5 are linked but both at level 0; an up/down tree links only adjacent levels" \
	"$s" -q "$top/topofiles/matsuoka-clique-8.topo"
expect 2 "vartree-sim: $tmp/trunc.lfts:48: malformed line" "$s" -q "$tmp/good.topo" --lfts "$tmp/trunc.lfts"
expect 2 "vartree-sim: bad spec 'oversub 6,4,1,4': not connected: leaves 0 and 1 share no spine (round robin of 1 up-link over 4 spines needs more than half the spines per leaf)" \
	"$s" -q --gen "oversub 6,4,1,4"
expect 2 "vartree-sim: --reps: '-1' is not an integer (1..1000000)" "$s" -q "$tmp/good.topo" --reps -1
expect 2 "vartree-sim: --vls: '99' is not an integer (1..15)" "$s" -q "$tmp/good.topo" --vls 99
expect 2 "vartree-sim: --speed: 'ZDR' is not one of SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR" "$s" -q "$tmp/good.topo" --speed ZDR
finish
