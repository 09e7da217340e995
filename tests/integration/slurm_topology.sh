#!/usr/bin/env bash
# vartree-route --slurm-topology read by the real slurmctld (Debian's, TopologyPlugin=topology/tree):
# a private munged and slurmctld per run (own key, socket, port, state directory, config), each
# stopped by its PID, also on failure. slurmctld must start, and `scontrol show topology` must agree
# with the tree switch by switch (level, child switches, nodes below: tests/data/slurm_topology_check.py
# with the scontrol output), with no topology warning in its log, on: the GPU fabric of rail-optimised
# nodes (issue 25 S2: each node once, under its rail-0 leaf), a fat-tree with host-less leaves and
# a director whose leaves bypass the spine ASICs (S1: no bare SwitchName), and the shared real dumps.
set -u
skip() {
	echo "$1"
	exit 77
}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
for x in slurmctld scontrol munged mungekey munge unmunge python3; do
	command -v $x >/dev/null || PATH=$PATH:/usr/sbin command -v $x >/dev/null ||
		skip "$x is not installed (scripts/install-deps: slurmctld slurm-client munge)"
done
export PATH=$PATH:/usr/sbin
R=$VT_BIN/vartree-route
CHECK=$VT_TOP/tests/data/slurm_topology_check.py
T=$(mktemp -d /tmp/vt-slurm.XXXXXX)
chmod 755 "$T" # munged wants its socket's directories open to all
pids=()
stop() { # PID: TERM, then KILL after a generous deadline; reaped
	local p=$1 i
	kill "$p" 2>/dev/null || return 0
	for ((i = 0; i < 600; i++)); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
}
cleanup() {
	for p in "${pids[@]}"; do stop "$p"; done
	rm -rf "$T"
}
trap cleanup EXIT
# waits (60 s at most) until the command succeeds, or fails the test naming what did not happen
wait_for() { # WHAT PID COMMAND...
	local what=$1 p=$2 i
	shift 2
	for ((i = 0; i < 600; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		kill -0 "$p" 2>/dev/null || return 1
		sleep 0.1
	done
	fail "$what: not ready after 60 s"
}

# munged: its own key, socket, pid, log and seed files
mkdir -m 700 "$T/mk" && mkdir -m 755 "$T/ms" || fail mkdir
mungekey -c -k "$T/mk/munge.key" -b 1024 || fail mungekey
SOCK=$T/ms/munge.sock
munged -F --socket="$SOCK" --key-file="$T/mk/munge.key" --pid-file="$T/mk/munged.pid" \
	--log-file="$T/mk/munged.log" --seed-file="$T/mk/munged.seed" >"$T/munged.out" 2>&1 &
pids+=($!)
munge_ok() { munge -n -S "$SOCK" | unmunge -S "$SOCK"; }
wait_for munged "${pids[0]}" munge_ok || fail "munged stopped: $(cat "$T/munged.out")"

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
HOST=$(hostname -s)
n=0
# Routes TOPO, starts slurmctld on its topology.conf, compares `scontrol show topology`; in $T/NAME/,
# "agree" ends with "slurmctld agrees: N switches". Not in a subshell: the daemon's PID must reach
# the cleanup.
slurm_run() { # NAME TOPO
	local name=$1 topo=$2 d=$T/$1 port pid
	n=$((n + 1))
	mkdir -p "$d/state" || fail mkdir
	"$R" -q "$topo" -o /dev/null --slurm-topology "$d/topology.conf" || fail "$name: vartree-route"
	python3 "$CHECK" "$d/topology.conf" >"$d/parsed" || fail "$name: grammar: $(head -40 "$d/topology.conf")"
	port=$(free_port) || fail "no free port"
	{
		echo "ClusterName=vt$n"
		echo "SlurmctldHost=$HOST"
		echo "SlurmctldPort=$port"
		echo "SlurmUser=root"
		echo "AuthType=auth/munge"
		echo "AuthInfo=socket=$SOCK"
		echo "CredType=cred/munge"
		echo "StateSaveLocation=$d/state"
		echo "SlurmdSpoolDir=$d/spool"
		echo "SlurmctldPidFile=$d/slurmctld.pid"
		echo "SlurmctldLogFile=$d/slurmctld.log"
		echo "TopologyPlugin=topology/tree"
		echo "ProctrackType=proctrack/linuxproc"
		echo "TaskPlugin=task/none"
		echo "SchedulerType=sched/builtin"
		echo "JobCompType=jobcomp/none"
		echo "AccountingStorageType=accounting_storage/none"
		echo "ReturnToService=2"
		echo "MailProg=/bin/true"
		# every host of the file, as a node of this machine's loopback address
		sed -n 's/^SwitchName=[^ ]* Nodes=//p' "$d/topology.conf" |
			sed 's/$/ NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN/; s/^/NodeName=/'
		echo "PartitionName=all Nodes=ALL Default=YES"
	} >"$d/slurm.conf"
	slurmctld -D -i -f "$d/slurm.conf" >"$d/slurmctld.out" 2>&1 &
	pid=$!
	pids+=("$pid")
	if ! wait_for "$name: slurmctld" "$pid" env SLURM_CONF="$d/slurm.conf" scontrol ping; then
		fail "$name: slurmctld stopped: $(grep -E 'fatal|error' "$d/slurmctld.out" | tail -5)"
	fi
	SLURM_CONF=$d/slurm.conf scontrol show topology >"$d/scontrol" ||
		fail "$name: scontrol show topology"
	python3 "$CHECK" "$d/topology.conf" "$d/scontrol" >"$d/agree" || fail "$name: $(head -5 "$d/scontrol")"
	stop "$pid"
	pids=("${pids[@]:0:${#pids[@]}-1}")
	# what slurmctld says about the file while reading it: nothing
	if grep -iE 'topology|switch|leaf' "$d/slurmctld.out" | grep -iE 'error|warn|fatal'; then
		fail "$name: slurmctld complains"
	fi
}
agrees() { # NAME: the last line of its comparison
	tail -1 "$T/$1/agree"
}

# S2: 80 GPU nodes of 4 HCAs each on rail leaves: each node once, under its rail-0 leaf; the other
# rails' leaves have no node listed and are left out (the level-1 switches of a pod keep the pod's)
"$VT_BIN/vartree-gen" gpu -o "$T/gpu.topo" || fail gen
slurm_run gpu "$T/gpu.topo"
[ "$(agrees gpu)" = "slurmctld agrees: 36 switches" ] || fail "gpu: $(cat "$T/gpu/agree")"
grep -qx 'SwitchName=L0-S0004 Level=0 LinkSpeed=1 Nodes=gpu\[020-039\]' "$T/gpu/scontrol" ||
	fail "gpu leaf: $(head -3 "$T/gpu/scontrol")"
grep -qx 'SwitchName=L1-S0005 Level=1 LinkSpeed=1 Nodes=gpu\[020-039\] Switches=L0-S0004' "$T/gpu/scontrol" ||
	fail "gpu level 1: $(grep L1-S0005 "$T/gpu/scontrol")"
grep -qx 'SwitchName=L2-S0001 Level=2 LinkSpeed=1 Nodes=gpu\[000-079\] Switches=L1-S\[0001,0005,0009,0013\]' \
	"$T/gpu/scontrol" || fail "gpu top: $(grep L2-S0001 "$T/gpu/scontrol")"
[ "$(grep -c '^# (left out: no host listed below it)$' "$T/gpu/topology.conf")" = 12 ] ||
	fail "gpu: 12 rail leaves left out"

# S1: three host-less leaves of a fat 4,3, and leaves cabled past a director's spine ASICs
"$VT_BIN/vartree-gen" fat 4,3 --hostless-leaves 3 -o "$T/hl.topo" || fail gen
slurm_run hostless "$T/hl.topo"
[ "$(agrees hostless)" = "slurmctld agrees: 45 switches" ] || fail "hostless: $(cat "$T/hostless/agree")"
"$VT_BIN/vartree-gen" fat 4,3 --director CS8500:bypass -o "$T/by.topo" || fail gen
slurm_run bypass "$T/by.topo"
[ "$(agrees bypass)" = "slurmctld agrees: 48 switches" ] || fail "bypass: $(cat "$T/bypass/agree")"

# the shared real dumps vartree routes
real=$VT_TOP/../shared/fixtures/real
if [ -d "$real" ]; then
	# switches slurmctld sees: of the cs8500 director's 40 line ASICs (level 0) the two with hosts
	# (fit101, fit26), the 38 others left out, and its 20 spine ASICs
	for f in loginoff-stage-sx6036-8sw:8 nvlab-cs8500-quantum-2host:22 nvlab-msb7800-4sw-anon:4; do
		slurm_run "${f%:*}" "$real/${f%:*}.topo"
		[ "$(agrees "${f%:*}")" = "slurmctld agrees: ${f#*:} switches" ] || fail "$f: $(agrees "${f%:*}")"
	done
	slurm_run ibsim-example "$real/ibsim-example-net.net"
	[ "$(agrees ibsim-example)" = "slurmctld agrees: 2 switches" ] || fail "ibsim-example: $(agrees ibsim-example)"
	[ "$(grep -c '^# (left out: no host listed below it)$' "$T/nvlab-cs8500-quantum-2host/topology.conf")" = 38 ] ||
		fail "cs8500: 38 switches left out"
	# host lists in natural order, compressed: stage1 .. stage24 on the first leaf
	grep -qx 'SwitchName=ibsw-l0-0000 Level=0 LinkSpeed=1 Nodes=stage\[1-24\]' \
		"$T/loginoff-stage-sx6036-8sw/scontrol" || fail "stage: $(head -2 "$T/loginoff-stage-sx6036-8sw/scontrol")"
else
	echo "skipped: $real absent: the real dumps not given to slurmctld"
fi
echo ok
