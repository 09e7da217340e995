#!/usr/bin/env bash
# vartree-route --slurm-topology and --order-format: a topology.conf that a parser written from
# Slurm's topology.conf(5) accepts, with the right hosts per leaf and every switch of the tree;
# host names from NodeDescs; hostfile and Open MPI rankfile in vartree's rank order; no partial files.
set -u
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
R="$VT_BIN/vartree-route"
CHECK="$VT_TOP/tests/data/slurm_topology_check.py"
"$VT_BIN/vartree-gen" fat 4,3 -o "$T/f.topo" || fail gen

# hosts named as on real clusters ("nodeNN HCA-1"), switches as NVIDIA names them (not a word
# Slurm's hostlists take: the generated names are used), one description with a backslash
sed -E -e 's/"H-00([0-9][0-9])"/"node\1 HCA-1"/' -e 's/"(L[0-9]-S[0-9]+)"/"MF0;\1:MQM8700\/U1"/' \
	-e 's/"MF0;L2-S0015:MQM8700\/U1"/"MF0;L2-S0015:MQM8700\\"/' "$T/f.topo" >"$T/n.topo"
grep -q '"node63 HCA-1"' "$T/n.topo" || fail "host rename did nothing"
"$R" -q "$T/n.topo" -o "$T/n.lfts" --slurm-topology "$T/topology.conf" --order-out "$T/hosts" \
	--order-format hostfile || fail "route n.topo"
python3 "$CHECK" "$T/topology.conf" >"$T/parsed" || fail "Slurm grammar: $(head -20 "$T/topology.conf")"
# 16 leaves of 4 hosts in natural order, then 16 level-1 and 16 top switches
[ "$(grep -c '^leaf ' "$T/parsed")" = 16 ] || fail "leaves: $(cat "$T/parsed")"
grep -qx 'leaf ibsw-l0-0000 node00 node01 node02 node03' "$T/parsed" || fail "first leaf: $(head -2 "$T/parsed")"
grep -qx 'leaf ibsw-l0-0015 node60 node61 node62 node63' "$T/parsed" || fail "last leaf"
[ "$(grep -c '^root ' "$T/parsed")" = 16 ] || fail "every top switch reaches all 64 hosts: $(grep root "$T/parsed")"
grep -qx 'SwitchName=ibsw-l0-0000 Nodes=node\[00-03\]' "$T/topology.conf" || fail "compressed hostlist"
[ "$(grep -c '^SwitchName=' "$T/topology.conf")" = 48 ] || fail "48 switches"
grep -q '^# "MF0;L0-S0000:MQM8700/U1" 0x0002c95000000000 level 0$' "$T/topology.conf" || fail "comment names the switch"
grep -q '^# "MF0;L2-S0015:MQM8700?" 0x0002c95002000015 level 2$' "$T/topology.conf" || fail "backslash kept out of the comment"
# leaves first, the top last
awk '/^SwitchName=/ { split($1, a, "-l"); l = substr(a[2], 1, 1); if (l < last) bad = 1; last = l } END { exit bad }' \
	"$T/topology.conf" || fail "levels out of order"
# switch descriptions that are usable, unique words are kept as switch names
"$R" -q "$T/f.topo" -o /dev/null --slurm-topology "$T/g.conf" || fail "route f.topo"
python3 "$CHECK" "$T/g.conf" >"$T/parsed" || fail "Slurm grammar (own names)"
grep -qx 'SwitchName=L2-S0000 Switches=L1-S\[0000,0004,0008,0012\]' "$T/g.conf" || fail "own names: $(tail -2 "$T/g.conf")"

# the hostfile: one host per rank in vartree's order (natural leaf order here)
[ "$(grep -vc '^#' "$T/hosts")" = 64 ] || fail "hostfile lines"
[ "$(grep -vm1 '^#' "$T/hosts")" = node00 ] && [ "$(tail -1 "$T/hosts")" = node63 ] || fail "hostfile: $(head -3 "$T/hosts")"
# a fabric with missing hosts: place-keepers are left out of the rankfile, MPI ranks stay dense
"$R" -q "$VT_TOP/topofiles/degraded-4ary3-hosts.topo" -o /dev/null --order-out "$T/ca" || fail "ca-order"
"$R" -q "$VT_TOP/topofiles/degraded-4ary3-hosts.topo" -o /dev/null --order-out "$T/rf" --order-format rankfile || fail rankfile
dummies=$(grep -c 'DUMMY' "$T/ca")
[ "$dummies" -gt 0 ] || fail "the degraded fabric has place-keepers"
[ "$(grep -c '^# vartree rank [0-9]*: place-keeper' "$T/rf")" = "$dummies" ] || fail "rankfile place-keepers"
# the rankfile's hosts are the ca-order's, in the same order
grep -v DUMMY "$T/ca" | cut -f2 | awk '{ print $1 }' >"$T/want"
grep '^rank ' "$T/rf" | sed -E 's/^rank ([0-9]+)=([^ ]+) slot=0$/\1 \2/' >"$T/got"
awk '{ print $2 }' "$T/got" | diff "$T/want" - || fail "rankfile hosts differ from the ca-order"
awk '$1 != NR - 1 { exit 1 }' "$T/got" || fail "MPI ranks not dense"

# errors: a bad format, a format without a file, a host name Slurm cannot take; nothing written
"$R" -q "$T/f.topo" -o "$T/x" --order-out "$T/o" --order-format csv 2>"$T/err"; [ $? = 2 ] || fail "bad format exit"
grep -qx "vartree-route: --order-format: 'csv' is not one of ca-order, hostfile, rankfile or machinefile" "$T/err" || fail "format: $(cat "$T/err")"
"$R" -q "$T/f.topo" -o "$T/x" --order-format hostfile 2>"$T/err"; [ $? = 2 ] || fail "format alone exit"
sed -E 's/"H-0005"/"bad[5] HCA-1"/' "$T/f.topo" >"$T/b.topo"
"$R" -q "$T/b.topo" -o "$T/x" --slurm-topology "$T/s" 2>"$T/err"; [ $? = 2 ] || fail "bad host name exit"
grep -q '^vartree-route: "bad\[5\] HCA-1" (0x0002c91000000050): host name with a character Slurm and MPI cannot take' "$T/err" ||
	fail "bad host name: $(cat "$T/err")"
[ -e "$T/x" ] || [ -e "$T/s" ] && fail "partial output left"

# issue 25 S3: host lists in natural order, whatever the port order (stage100 stage99 .. on a leaf)
awk '/^Ca/ && match($0, /# "H-00[0-9][0-9]"/) { n = substr($0, RSTART + 5, 4) + 0
	sub(/# "H-00[0-9][0-9]"/, "# \"stage" (100 - n) " mlx4_0\"") } { print }' "$T/f.topo" >"$T/st.topo"
"$R" -q "$T/st.topo" -o /dev/null --slurm-topology "$T/st.conf" || fail "route st.topo"
grep -qx 'SwitchName=L0-S0000 Nodes=stage\[97-100\]' "$T/st.conf" || fail "natural order: $(grep -m2 Nodes "$T/st.conf")"
grep -qx 'SwitchName=L0-S0002 Nodes=stage\[89-92\]' "$T/st.conf" || fail "natural order: $(grep -m3 Nodes "$T/st.conf")"
# zero-padded and plain numbers apart, as Slurm expands a range with its first number's width
sed -E -e 's/"H-0000"/"n07 a"/' -e 's/"H-0001"/"n7 a"/' -e 's/"H-0002"/"n08 a"/' -e 's/"H-0003"/"n9 a"/' \
	"$T/f.topo" >"$T/pad.topo"
"$R" -q "$T/pad.topo" -o /dev/null --slurm-topology "$T/pad.conf" || fail "route pad.topo"
grep -qx 'SwitchName=L0-S0000 Nodes=n\[7,07-08,9\]' "$T/pad.conf" || fail "padded: $(grep -m1 Nodes "$T/pad.conf")"
# nodes of one description (hosts never named: an adapter's default NodeDesc) or "localhost"
# would give two hosts one name: refused for every output, naming the nodes by description and GUID
sed -E 's/"H-00(0[0-9]|1[0-5])"/"MT4119 ConnectX5   Mellanox Technologies"/' "$T/f.topo" >"$T/mt.topo"
for o in "--slurm-topology $T/s" "--order-out $T/s --order-format hostfile" \
	"--order-out $T/s --order-format rankfile" "--order-out $T/s --order-format machinefile"; do
	# shellcheck disable=SC2086
	"$R" -q "$T/mt.topo" -o "$T/x" $o 2>"$T/err"
	[ $? = 2 ] || fail "default NodeDesc exit ($o)"
	[ "$(cat "$T/err")" = 'vartree-route: "MT4119 ConnectX5   Mellanox Technologies" (0x0002c91000000000) and "MT4119 ConnectX5   Mellanox Technologies" (0x0002c91000000010): two nodes of one description, so one host name "MT4119" for two hosts (16 nodes have it); give the hosts their names in a node name map' ] ||
		fail "default NodeDesc ($o): $(cat "$T/err")"
	[ -e "$T/x" ] || [ -e "$T/s" ] && fail "output left ($o)"
done
sed -E 's/"H-0007"/"localhost mlx5_0"/' "$T/f.topo" >"$T/lh.topo"
"$R" -q "$T/lh.topo" -o "$T/x" --slurm-topology "$T/s" 2>"$T/err"; [ $? = 2 ] || fail "localhost exit"
[ "$(cat "$T/err")" = 'vartree-route: "localhost mlx5_0" (0x0002c91000000070): host name "localhost" names no one host; give the hosts their names in a node name map' ] ||
	fail "localhost: $(cat "$T/err")"
# two adapters of one host ("gpu017 mlx5_0", "gpu017 mlx5_1") are not a clash
sed -E -e 's/"H-0000"/"twin mlx5_0"/' -e 's/"H-0001"/"twin mlx5_1"/' "$T/f.topo" >"$T/tw.topo"
"$R" -q "$T/tw.topo" -o /dev/null --slurm-topology "$T/tw.conf" --order-out "$T/tw.rf" --order-format rankfile ||
	fail "two adapters of one host"
grep -q '^SwitchName=L0-S0000 Nodes=H-\[0002-0003\],twin$' "$T/tw.conf" || fail "twin: $(grep -m1 Nodes "$T/tw.conf")"
# issue 25 M2: the rankfile gives each rank of a host the next slot
[ "$(grep -m2 twin "$T/tw.rf" | tr '\n' ' ')" = "rank 0=twin slot=0 rank 1=twin slot=1 " ] || fail "slots: $(head -4 "$T/tw.rf")"
# MPICH's host:N, and every form's header names its launch line
"$R" -q "$T/tw.topo" -o /dev/null --order-out "$T/tw.mf" --order-format machinefile || fail machinefile
[ "$(sed -n 3,5p "$T/tw.mf" | tr '\n' ' ')" = "twin:2 H-0002:1 H-0003:1 " ] || fail "machinefile: $(head -5 "$T/tw.mf")"
grep -qx '# MPICH: mpiexec -f FILE -n 64 PROGRAM' "$T/tw.mf" || fail "machinefile header"
grep -qx '# Open MPI: mpirun --rankfile FILE -np 64 PROGRAM' "$T/tw.rf" || fail "rankfile header"
ls "$T" | grep -q tmp && fail "temporary file left"
echo ok
