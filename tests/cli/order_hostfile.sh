#!/usr/bin/env bash
# --order takes an MPI hostfile (host = first word of a NodeDesc, one per line, slots=N,
# comments), besides ca-order dumps and node lists: on a fabric of 80 hosts with 4 HCAs each
# (vartree-gen gpu), vartree-route's hostfile gives the analyzer byte-identical JSON to its
# ca-order dump; an Open MPI hostfile with slots= places ranks on the hosts' HCAs in order
# (checked rank by rank through vartree-trace, and in vartree-sim); refusals name file and line.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$VT_BIN/vartree-gen" gpu -o "$T/g.topo" || fail gen
"$VT_BIN/vartree-route" -q "$T/g.topo" -o "$T/g.lfts" --order-out "$T/g.order" || fail route
"$VT_BIN/vartree-route" -q "$T/g.topo" -o "$T/g.lfts" --order-out "$T/g.hosts" --order-format hostfile ||
	fail "route hostfile"
[ "$(grep -vc '^#' "$T/g.hosts")" = 320 ] && [ "$(grep -c '^gpu017$' "$T/g.hosts")" = 4 ] ||
	fail "hostfile: $(head -3 "$T/g.hosts")"
# (the exit status is compared too: 0, the non-minimal hops to the management CAs pass)
for o in order hosts; do
	"$VT_BIN/vartree-analyze" "$T/g.topo" --lfts "$T/g.lfts" --order "$T/g.$o" -q --json \
		-p shift -p bisection:seed=3,count=4 >"$T/a.$o"
	echo $? >>"$T/a.$o"
done
grep -q '"ranks": 320, "hosts": 320' "$T/a.hosts" || fail "hostfile ranks: $(head -c 300 "$T/a.hosts")"
cmp "$T/a.order" "$T/a.hosts" || fail "hostfile and ca-order give different figures or exits"
[ "$(tail -n 1 "$T/a.hosts")" = 0 ] || fail "exit $(tail -n 1 "$T/a.hosts"), want 0"

# an Open MPI hostfile: slots, max_slots, comments, blank lines, CRLF; a host listed again
# takes its next HCA
printf '# job 42\ngpu003 slots=4 max_slots=8\n\ngpu001   slots=2  # two ranks\r\ngpu001\ngpu000\n' >"$T/h1"
want=(
	'gpu003 mlx5_0' 'gpu003 mlx5_1' 'gpu003 mlx5_2' 'gpu003 mlx5_3'
	'gpu001 mlx5_0' 'gpu001 mlx5_1' 'gpu001 mlx5_2' 'gpu000 mlx5_0'
)
for r in 0 1 2 3 4 5 6 7; do
	got=$("$VT_BIN/vartree-trace" "$T/g.topo" --lfts "$T/g.lfts" --order "$T/h1" --rank "$r" 0 | head -1)
	[[ $got == *"\"${want[$r]}\"" ]] || fail "rank $r: $got, want ${want[$r]}"
done
"$VT_BIN/vartree-trace" "$T/g.topo" --lfts "$T/g.lfts" --order "$T/h1" --rank 0 8 2>"$T/err"
[ $? = 2 ] && grep -qx "vartree-trace: '8': expected a rank 0 .. 7" "$T/err" || fail "8 ranks: $(cat "$T/err")"
# MPI's slots count cores: ranks beyond a host's CA ports are not placed, the host keeps its
# place (a Slurm-style "slots=64" file gives one rank per HCA, hosts in the file's order)
printf 'gpu001 slots=64\ngpu000 mlx5_1\ngpu000 slots=64\n' >"$T/h2"
want=('gpu001 mlx5_0' 'gpu001 mlx5_1' 'gpu001 mlx5_2' 'gpu001 mlx5_3' 'gpu000 mlx5_1' 'gpu000 mlx5_0' 'gpu000 mlx5_2' 'gpu000 mlx5_3')
for r in 0 1 2 3 4 5 6 7; do
	got=$("$VT_BIN/vartree-trace" "$T/g.topo" --lfts "$T/g.lfts" --order "$T/h2" --rank "$r" 0 | head -1)
	[[ $got == *"\"${want[$r]}\"" ]] || fail "slots=64 rank $r: $got, want ${want[$r]}"
done
# MPICH's and Intel MPI's form, host:N
printf 'gpu002:2\ngpu001\n' >"$T/h3"
want=('gpu002 mlx5_0' 'gpu002 mlx5_1' 'gpu001 mlx5_0')
for r in 0 1 2; do
	got=$("$VT_BIN/vartree-trace" "$T/g.topo" --lfts "$T/g.lfts" --order "$T/h3" --rank "$r" 0 | head -1)
	[[ $got == *"\"${want[$r]}\"" ]] || fail "host:N rank $r: $got, want ${want[$r]}"
done
# the simulator takes it as well: 8 ranks, a shift of 7 stages
"$VT_BIN/vartree-sim" -q "$T/g.topo" --lfts "$T/g.lfts" --order "$T/h1" --json >"$T/s.json" || fail sim
grep -q '"ranks": 8, "message_bytes": 4096, "stages": 7, "flows": 56' "$T/s.json" || fail "sim: $(head -c 400 "$T/s.json")"

# refusals: one line, file and line, exit 2
refuse() { # content message
	printf '%b' "$1" >"$T/bad"
	"$VT_BIN/vartree-analyze" "$T/g.topo" --lfts "$T/g.lfts" --order "$T/bad" -q 2>"$T/err"
	[ $? = 2 ] || fail "exit for '$1'"
	[ "$(cat "$T/err")" = "vartree-analyze: $T/bad:$2" ] || fail "'$1': $(cat "$T/err")"
}
refuse 'gpu000 slots=4\ngpu000\n' '2: host "gpu000" listed again, but its 4 CA ports are already placed'
refuse 'gpu001 slots=1000001\n' '1: "gpu001 slots=1000001": expected a node, or a host name and slots=N or :N (1 .. 1000000)'
refuse 'gpu001 slot=5\n' '1: "gpu001 slot=5": expected a node, or a host name and slots=N or :N (1 .. 1000000)'
refuse 'gpu001 slots=0\n' '1: "gpu001 slots=0": expected a node, or a host name and slots=N or :N (1 .. 1000000)'
refuse 'gpu001 slots=-1\n' '1: "gpu001 slots=-1": expected a node, or a host name and slots=N or :N (1 .. 1000000)'
refuse 'gpu002\nnosuch slots=2\n' '2: unknown node "nosuch slots=2"'
refuse 'gpu002:0\n' '1: unknown node "gpu002:0"'
refuse 'gpu002:2 slots=3\n' '1: "gpu002:2 slots=3": expected a node, or a host name and slots=N or :N (1 .. 1000000)'
refuse 'gpu002 mlx5_0\ngpu002 mlx5_0\n' '2: "H-0002c91000000020" listed twice'
# a Slurm hostlist, a fully qualified name: said what they look like, and what to give
refuse 'gpu[000-003]\n' "1: unknown node \"gpu[000-003]\" (a Slurm hostlist? one host a line, as 'scontrol show hostnames' lists them)"
refuse 'gpu001.cluster.example.org slots=2\n' '1: unknown node "gpu001.cluster.example.org slots=2" (the fabric'"'"'s host is "gpu001": give host names without their domain)'
echo ok
