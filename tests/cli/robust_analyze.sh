#!/usr/bin/env bash
# vartree-analyze on bad input: fabrics, LFT dumps (missing, empty, truncated,
# bad port), orders, patterns and option values: one line, exit 2, no file left.
. "$(dirname "$0")/robust_lib.bash"
a=$VT_BIN/vartree-analyze
mkbad
"$VT_BIN/vartree-route" -q "$tmp/good.topo" -o "$tmp/good.lfts"
head -c 3000 "$tmp/good.lfts" >"$tmp/trunc.lfts"  # ends inside line 48
sed '3s/ 005 / 0zz /' "$tmp/good.lfts" >"$tmp/badport.lfts"
sed '3s/ 005 / 099 /' "$tmp/good.lfts" >"$tmp/bigport.lfts"
grep -q ' 0zz ' "$tmp/badport.lfts" && grep -q ' 099 ' "$tmp/bigport.lfts" || { echo "fixture edits failed"; exit 1; }
v=(--route vartree -q)

expect 2 "vartree-analyze: $tmp/missing.topo: cannot open: No such file or directory" "$a" "$tmp/missing.topo" "${v[@]}"
expect 2 "vartree-analyze: $tmp/empty.topo:1: no node records (Switch, Ca, Hca or Rt)" "$a" "$tmp/empty.topo" "${v[@]}"
expect 2 "vartree-analyze: $tmp/trunc.topo:14: \"L0-S0000\" (0x0002c95000000000) port 5: unterminated quote in remote node id" \
	"$a" "$tmp/trunc.topo" "${v[@]}"
expect 2 "vartree-analyze: $tmp/badport.topo:11: \"L0-S0000\" (0x0002c95000000000): port 99 out of range 1..8" \
	"$a" "$tmp/badport.topo" "${v[@]}"
expect 2 "vartree-analyze: $top/topofiles/matsuoka-clique-8.topo:14: switches \"L0-S0000\" (0x0002c95000000000) port 5 and \"L0-S0001\" (0x0002c95000000001) port 5 are linked but both at level 0; an up/down tree links only adjacent levels" \
	"$a" "$top/topofiles/matsuoka-clique-8.topo" "${v[@]}"
# forwarding tables
expect 2 "vartree-analyze: $tmp/missing.lfts: cannot open: No such file or directory" "$a" "$tmp/good.topo" --lfts "$tmp/missing.lfts" -q
expect 2 "vartree-analyze: $tmp/empty.topo: no forwarding tables in the file" "$a" "$tmp/good.topo" --lfts "$tmp/empty.topo" -q
expect 2 "vartree-analyze: $tmp/trunc.lfts:48: malformed line" "$a" "$tmp/good.topo" --lfts "$tmp/trunc.lfts" -q
expect 2 "vartree-analyze: $tmp/badport.lfts:3: cannot parse port" "$a" "$tmp/good.topo" --lfts "$tmp/badport.lfts" -q
expect 2 "vartree-analyze: $tmp/bigport.lfts:3: port 99 beyond the 8 ports of switch \"L0-S0000\" (0x0002c95000000000)" \
	"$a" "$tmp/good.topo" --lfts "$tmp/bigport.lfts" -q
# tables of one switch only (one ibroute), or of another fabric's LIDs: reported, not counted
awk '/^Unicast/ { n++ } n < 2' "$tmp/good.lfts" >"$tmp/part.lfts"
expect 2 "vartree-analyze: 7 of 8 switches have no table in $tmp/part.lfts: first \"L0-S0001\" (0x0002c95000000001)" \
	"$a" "$tmp/good.topo" --lfts "$tmp/part.lfts" -q
sed '2s/^0x0001 000 /0x0001 001 /' "$tmp/good.lfts" >"$tmp/otherlids.lfts"
expect 2 "vartree-analyze: LIDs in $tmp/otherlids.lfts do not match the topology: first \"L0-S0000\" (0x0002c95000000000), whose own LID 1 leads to port 1, not to port 0" \
	"$a" "$tmp/good.topo" --lfts "$tmp/otherlids.lfts" -q
# orders, patterns, options
expect 2 "vartree-analyze: $tmp/empty.topo: no nodes listed" "$a" "$tmp/good.topo" "${v[@]}" --order "$tmp/empty.topo"
expect 2 "vartree-analyze: pattern 'shift:9-3': shifts must lie in 1 .. 15" "$a" "$tmp/good.topo" "${v[@]}" -p shift:9-3
expect 2 "vartree-analyze: pattern 'bogus': unknown pattern (shift, butterfly, mesh2d, mesh3d, wavefront2d, wavefront3d, bintree, bisection, randperm, all2all, file:PATH)" \
	"$a" "$tmp/good.topo" "${v[@]}" -p bogus
expect 2 "vartree-analyze: --threads: '0' is not an integer (1..64)" "$a" "$tmp/good.topo" "${v[@]}" --threads 0
expect 2 "vartree-analyze: --top: 'x' is not an integer (0..2^32-1)" "$a" "$tmp/good.topo" "${v[@]}" --top x
expect 2 "vartree-analyze: --method: 'x' is not one of auto, walk, interval or naive" "$a" "$tmp/good.topo" "${v[@]}" --method x
expect 2 "vartree-analyze: --route: 'ftree': only 'vartree' is built in" "$a" "$tmp/good.topo" --route ftree
expect 2 "vartree-analyze: unknown option '--bogus'. Try 'vartree-analyze --help'." "$a" "$tmp/good.topo" "${v[@]}" --bogus
expect 2 "vartree-analyze: option '--pattern' needs a value. Try 'vartree-analyze --help'." "$a" "$tmp/good.topo" "${v[@]}" --pattern
expect 2 "vartree-analyze: --compare needs two LFT files: --compare A B. Try 'vartree-analyze --help'." "$a" "$tmp/good.topo" --compare "$tmp/good.lfts"
expect 2 "vartree-analyze: give exactly one of --lfts FILE, --route vartree, --live, --compare A B. Try 'vartree-analyze --help'." "$a" "$tmp/good.topo"
expect 2 "vartree-analyze: $tmp/run/no/dir: No such file or directory" "$a" "$tmp/good.topo" "${v[@]}" --plot "$tmp/run/no/dir"
finish
