#!/usr/bin/env bash
# vartree-route's host orders launched by the real mpirun (Open MPI, and MPICH's hydra when Debian's
# mpich is installed beside it): rank i must run on the i-th host of vartree's order with the
# command each file's header gives (and vartree-route(1) names), on a fat 2,3 whose 8 HCAs sit on
# 4 hosts of 2 HCAs each, the hosts interleaved in the order (n0 n0 n1 n2 n1 n3 n2 n3; Open MPI's
# plain --hostfile would fill n0, n1, n2, n3 in turn: issue 25 M1). The rankfile gives each rank
# of a host its own core (M2: both used to get slot=0, one core). A host name with '_', which
# mpirun refuses ("illegal character"), is refused by vartree-route (M3).
# The hosts are not real: mpirun's ssh is a script that starts the remote daemon here, in a UTS
# namespace of its own named as the host (unshare --uts, root only), so `hostname` in a rank says
# where mpirun put it.
set -u
skip() {
	echo "$1"
	exit 77
}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
command -v mpirun.openmpi >/dev/null || skip "mpirun.openmpi is not installed (openmpi-bin)"
command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
unshare --uts true 2>/dev/null || skip "unshare --uts refused (needs root): fake host names impossible"
[ "$(nproc)" -ge 2 ] || skip "one CPU: a rankfile's slot=1 cannot be bound"
R=$VT_BIN/vartree-route
T=$(mktemp -d /tmp/vt-mpirun.XXXXXX)
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=0

# ssh for both launchers: options (hydra passes some), the host, the command
cat >"$T/ssh" <<'EOF'
#!/bin/sh
while [ "${1#-}" != "$1" ]; do shift; done
h=$1
shift
exec unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$h" "$*"
EOF
# a rank: its number (Open MPI's or MPICH's variable), the host it runs on, the CPUs it may use
cat >"$T/rank" <<'EOF'
#!/bin/sh
echo "$OMPI_COMM_WORLD_RANK$PMI_RANK $(hostname) $(sed -n 's/^Cpus_allowed_list:\t*//p' /proc/self/status)"
EOF
chmod +x "$T/ssh" "$T/rank"

# H-000k -> host and HCA: ranks 0..7 on n0 n0 n1 n2 n1 n3 n2 n3
"$VT_BIN/vartree-gen" fat 2,3 -o "$T/f.topo" || fail gen
hosts=(n0 n0 n1 n2 n1 n3 n2 n3)
hcas=(0 1 0 0 1 0 1 1)
sedargs=()
for k in 0 1 2 3 4 5 6 7; do
	sedargs+=(-e "s/\"H-000$k\"/\"${hosts[$k]} mlx5_${hcas[$k]}\"/")
done
sed "${sedargs[@]}" "$T/f.topo" >"$T/n.topo"
for fmt in hostfile rankfile machinefile; do
	"$R" -q "$T/n.topo" -o /dev/null --order-out "$T/$fmt" --order-format "$fmt" || fail "route $fmt"
done
printf '%s\n' "${hosts[@]}" >"$T/want-hosts"
grep -v '^#' "$T/hostfile" | diff "$T/want-hosts" - || fail "hostfile is not vartree's order"

# The launch line a file's header gives for LAUNCHER ("# Open MPI: mpirun ..."), run with the
# fake ssh; prints "RANK HOST CPUS" per rank, sorted by rank.
launch() { # FILE LABEL REAL-COMMAND LAUNCHER-OPTIONS...
	local file=$1 label=$2 cmd=$3 line
	shift 3
	line=$(sed -n "s/^# $label: //p" "$T/$file")
	[ -n "$line" ] || fail "$file: no '# $label:' launch line: $(head -3 "$T/$file")"
	line=${line//FILE/$T/$file}
	line=${line//PROGRAM/$T/rank}
	# shellcheck disable=SC2086 # the header's words
	set -- $cmd "$@" ${line#* }
	timeout 120 "$@" >"$T/out" 2>"$T/err" || fail "$file: $* exits $?: $(tail -5 "$T/err")"
	sort -n "$T/out"
}
ompi=(--mca plm_rsh_agent "$T/ssh")
# M1: the hostfile with --map-by seq
launch hostfile "Open MPI" mpirun.openmpi "${ompi[@]}" >"$T/got" || exit 1
awk '{ print $2 }' "$T/got" | diff "$T/want-hosts" - || fail "Open MPI hostfile: $(cat "$T/got")"
[ "$(awk '{ print $1 }' "$T/got" | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 " ] || fail "ranks: $(cat "$T/got")"
# (what the header's --map-by seq is for: the same file without it fills each host in turn)
timeout 120 mpirun.openmpi "${ompi[@]}" --hostfile "$T/hostfile" -np 8 "$T/rank" | sort -n |
	awk '{ print $2 }' | tr '\n' ' ' >"$T/plain"
[ "$(cat "$T/plain")" = "n0 n0 n1 n1 n2 n2 n3 n3 " ] || fail "plain --hostfile: $(cat "$T/plain")"

# M2: the rankfile, each rank of a host on its own core
launch rankfile "Open MPI" mpirun.openmpi "${ompi[@]}" >"$T/got" || exit 1
awk '{ print $2 }' "$T/got" | diff "$T/want-hosts" - || fail "Open MPI rankfile: $(cat "$T/got")"
[ "$(awk '{ print $3 }' "$T/got" | tr '\n' ' ')" = "0 1 0 0 1 0 1 1 " ] ||
	fail "rankfile cores (rank host cpus): $(cat "$T/got")"

# MPICH: the machine file's host:N lines and the hostfile, both with its header's line
grep -v '^#' "$T/machinefile" | tr '\n' ' ' >"$T/mf"
[ "$(cat "$T/mf")" = "n0:2 n1:1 n2:1 n1:1 n3:1 n2:1 n3:1 " ] || fail "machinefile: $(cat "$T/mf")"
if command -v mpiexec.hydra >/dev/null; then
	for f in machinefile hostfile; do
		launch $f MPICH mpiexec.hydra -launcher ssh -launcher-exec "$T/ssh" >"$T/got" || exit 1
		awk '{ print $2 }' "$T/got" | diff "$T/want-hosts" - || fail "MPICH $f: $(cat "$T/got")"
	done
else
	echo "mpiexec.hydra not installed (mpich): MPICH's launch skipped"
fi

# the man page names the same launch lines
man=$(MANWIDTH=200 man -l "$VT_TOP/man/vartree-route.1" 2>/dev/null) || fail "man -l"
for l in "mpirun --hostfile FILE --map-by seq -np N PROGRAM" "mpirun --rankfile FILE -np N PROGRAM" \
	"mpiexec -f FILE -n N PROGRAM"; do
	grep -qF -- "$l" <<<"$man" || fail "vartree-route(1) does not give '$l'"
done

# M3: '_' in a host name: mpirun refuses it, and so does vartree-route, naming the node
printf 'n_0\nn1\n' >"$T/us"
timeout 120 mpirun.openmpi "${ompi[@]}" --hostfile "$T/us" --map-by seq -np 2 "$T/rank" >"$T/out" 2>&1 &&
	fail "mpirun took a host name with '_'"
grep -q 'presence of an illegal character' "$T/out" && grep -qE '^ +node: +n_0$' "$T/out" ||
	fail "mpirun on '_': $(head -5 "$T/out")"
sed 's/"n0 mlx5_0"/"n_0 mlx5_0"/' "$T/n.topo" >"$T/u.topo"
for fmt in hostfile rankfile machinefile; do
	"$R" -q "$T/u.topo" -o /dev/null --order-out "$T/u.$fmt" --order-format $fmt 2>"$T/err"
	[ $? = 2 ] || fail "$fmt with '_': exit"
	[ "$(cat "$T/err")" = "vartree-route: \"n_0 mlx5_0\" (0x0002c91000000000): host name \"n_0\" has '_', which Open MPI's mpirun refuses in a node name; give the host its real name in a node name map" ] ||
		fail "'_': $(cat "$T/err")"
	[ -e "$T/u.$fmt" ] && fail "$fmt written"
done
echo ok
