#!/usr/bin/env bash
# --node-name-map (infiniband-diags' format): every command prints the mapped names, accepts
# them where it takes names, and computes the same tables and figures as without the map.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$VT_BIN/vartree-gen" fat 2,3 -o "$T/f.topo" || fail gen
"$VT_BIN/vartree-route" -q "$T/f.topo" -o "$T/f.lfts" --order-out "$T/f.order" --slurm-topology "$T/f.conf" || fail route
cat >"$T/map" <<'M'
# site names: quoted, unquoted with a comment, a GUID of another fabric (ignored), CRLF below
0x0002c91000000000 "compute-a01 mlx5_0"
0x0002c95000000000   leaf-1   # unquoted
0x0002c9ffffffffff "not in this fabric"
M
printf '0x0002c91000000070 "compute-a08 mlx5_0"\r\n' >>"$T/map"

# route: the same tables and order, the new names in their comments, hostfile and topology.conf
"$VT_BIN/vartree-route" -q "$T/f.topo" --node-name-map "$T/map" -o "$T/m.lfts" --order-out "$T/m.order" \
	--slurm-topology "$T/m.conf" || fail "route with map"
diff <(cut -d'#' -f1 "$T/f.lfts" | sed 's/ (.*//') <(cut -d'#' -f1 "$T/m.lfts" | sed 's/ (.*//') >/dev/null ||
	fail "tables differ with the map"
grep -q "^Unicast lids \[0-20\] of switch Lid 1 guid 0x0002c95000000000 ('leaf-1'):" "$T/m.lfts" || fail "switch name in the dump"
grep -q "^0x000d 001 # Channel Adapter portguid 0x0002c91000000001: 'compute-a01 mlx5_0'" "$T/m.lfts" || fail "CA name in the dump"
diff <(cut -f1 "$T/f.order") <(cut -f1 "$T/m.order") || fail "order differs with the map"
grep -qx $'0x000d\tcompute-a01 mlx5_0' "$T/m.order" || fail "order names: $(head -2 "$T/m.order")"
grep -qx 'SwitchName=leaf-1 Nodes=H-0001,compute-a01' "$T/m.conf" || fail "topology.conf: $(grep -m2 Nodes "$T/m.conf")"
grep -q 'Nodes=H-0006,compute-a08$' "$T/m.conf" || fail "CRLF line of the map"

# trace: mapped names printed and accepted
"$VT_BIN/vartree-trace" "$T/f.topo" --lfts "$T/f.lfts" --node-name-map "$T/map" compute-a01 compute-a08 >"$T/p" || fail trace
sed -n 1,2p "$T/p" | diff - <(printf '%s\n' 'From ca {0x0002c91000000000} portnum 1 lid 13-13 "compute-a01 mlx5_0"' \
	'[1] -> switch port {0x0002c95000000000}[1] lid 1-1 "leaf-1"') || fail "trace names: $(head -2 "$T/p")"
"$VT_BIN/vartree-trace" "$T/f.topo" --lfts "$T/f.lfts" --node-name-map "$T/map" --port leaf-1/1 -q >"$T/c" || fail "trace --port"
grep -qx 'port "leaf-1" (0x0002c95000000000, lid 1)/1 -> "compute-a01 mlx5_0" (0x0002c91000000000, lid 13)/1 (8 ranks)' "$T/c" ||
	fail "trace port: $(cat "$T/c")"

# analyze: the same figures, the link list with the new names
"$VT_BIN/vartree-analyze" "$T/f.topo" --lfts "$T/f.lfts" -q --top 1 >"$T/a0" || fail analyze
"$VT_BIN/vartree-analyze" "$T/f.topo" --lfts "$T/f.lfts" -q --top 1 --node-name-map "$T/map" >"$T/a1" || fail "analyze map"
grep -q '  "leaf-1" (0x0002c95000000000, lid 1)/1 -> "compute-a01 mlx5_0" (0x0002c91000000000, lid 13)/1$' "$T/a1" ||
	fail "analyze names: $(cat "$T/a1")"
diff <(grep '^shift ' "$T/a0") <(grep '^shift ' "$T/a1") || fail "figures differ with the map"

# gen: descriptions written as mapped
"$VT_BIN/vartree-gen" fat 2,3 --node-name-map "$T/map" | grep -q '^Switch	4 "S-0002c95000000000"		# "leaf-1" base port 0' ||
	fail "gen names"

# sim: link names in its JSON link list
"$VT_BIN/vartree-sim" -q "$T/f.topo" --lfts "$T/f.lfts" --node-name-map "$T/map" --json --links >"$T/s.json" || fail "sim map"
python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["runs"][0]["links"][0]
assert l["from"] == {"desc": "leaf-1", "guid": "0x0002c95000000000", "lid": 1, "port": 1}, l
assert l["to"] == {"desc": "compute-a01 mlx5_0", "guid": "0x0002c91000000000", "lid": 13, "port": 1}, l' "$T/s.json" ||
	fail "sim names: $(head -c 300 "$T/s.json")"

# a malformed map: one line naming file and line, the command's input-error status
printf '0x0002c91000000000 "unterminated\n' >"$T/bad"
"$VT_BIN/vartree-analyze" "$T/f.topo" --lfts "$T/f.lfts" -q --node-name-map "$T/bad" 2>"$T/err"; [ $? = 2 ] || fail "analyze bad map exit"
grep -qx "vartree-analyze: $T/bad:1: name without its closing '\"'" "$T/err" || fail "bad map: $(cat "$T/err")"
printf 'node7 "x"\n' >"$T/bad"
"$VT_BIN/vartree-trace" "$T/f.topo" --lfts "$T/f.lfts" --node-name-map "$T/bad" H-0000 H-0001 2>"$T/err"; [ $? = 2 ] || fail "trace bad map exit"
grep -qx "vartree-trace: $T/bad:1: expected a GUID and a name, got 'node7 \"x\"'" "$T/err" || fail "bad map: $(cat "$T/err")"
"$VT_BIN/vartree-route" -q "$T/f.topo" -o "$T/x" --node-name-map "$T/nonexistent" 2>"$T/err"; [ $? = 2 ] || fail "route missing map exit"
grep -q "^vartree-route: $T/nonexistent: " "$T/err" || fail "missing map: $(cat "$T/err")"
[ -e "$T/x" ] && fail "tables written despite a bad map"
echo ok
