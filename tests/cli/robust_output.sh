#!/usr/bin/env bash
# Outputs that cannot be written or are interrupted: stdout on a full device
# (/dev/full) is an error with exit status != 0 for every command; -o and
# --order-out naming one file (but a character device) is refused, as is an
# output that is an input or an output option given twice; SIGTERM or SIGINT while a command
# writes a large file leaves no OUT.tmpXXXXXX behind and the target as it was.
. "$(dirname "$0")/robust_lib.bash"
r=$VT_BIN/vartree-route
g=$VT_BIN/vartree-gen
a=$VT_BIN/vartree-analyze
mkbad
full='standard output: write error: No space left on device'

# expect_full STATUS PROG ARGS...: PROG's stdout goes to /dev/full
expect_full() {
	local rc=$1 p=$2
	shift 2
	expect "$rc" "$(basename "$p"): $full" bash -c '"$0" "$@" >/dev/full' "$p" "$@"
}
expect_full 2 "$r" -q "$tmp/good.topo"
expect_full 2 "$g" fat 4,3
expect_full 2 "$g" fat 4,3 --stats
expect_full 2 "$a" "$tmp/good.topo" --route vartree
expect_full 2 "$a" "$tmp/good.topo" --route vartree --json
expect 2 "vartree-route: /dev/full: write error: No space left on device" \
	"$r" -q "$tmp/good.topo" -o /dev/full
expect 2 "vartree-gen: /dev/full: write error: No space left on device" \
	"$g" fat 4,3 -o /dev/full
# one file for both outputs: the order used to replace the tables
expect 2 "vartree-route: --order-out names the same file as --output: 'x'. Try 'vartree-route --help'." \
	"$r" -q "$tmp/good.topo" -o x --order-out x
expect 2 "vartree-route: --order-out names the same file as --output: '-'. Try 'vartree-route --help'." \
	"$r" -q "$tmp/good.topo" --order-out -
expect 2 "vartree-route: --slurm-topology names the same file as another output: 'y'. Try 'vartree-route --help'." \
	"$r" -q "$tmp/good.topo" -o x --order-out y --slurm-topology y
# an output that is an input (by file identity, a hard link too) would replace it:
# refused, the input intact; an output option given twice is refused, not the last kept
cp "$tmp/good.topo" "$tmp/in.topo"
ln -f "$tmp/in.topo" "$tmp/in-link.topo"
expect 2 "vartree-route: --output '$tmp/in.topo' is an input file (the topology): it would be replaced. Try 'vartree-route --help'." \
	"$r" -q "$tmp/in.topo" -o "$tmp/in.topo"
expect 2 "vartree-route: --order-out '$tmp/in-link.topo' is an input file (the topology): it would be replaced. Try 'vartree-route --help'." \
	"$r" -q "$tmp/in.topo" -o /dev/null --order-out "$tmp/in-link.topo"
cmp -s "$tmp/good.topo" "$tmp/in.topo" || { echo "FAIL: the input topology was changed"; nfail=$((nfail + 1)); }
expect 2 "vartree-route: -o/--output given twice ('x' and 'y'). Try 'vartree-route --help'." \
	"$r" -q "$tmp/good.topo" -o x -o y
expect 2 "vartree-route: --order-out given twice ('x' and 'y'). Try 'vartree-route --help'." \
	"$r" -q "$tmp/good.topo" --order-out x --order-out y
# /dev/null (a character device) takes both outputs
expect 0 "" "$r" -q "$tmp/good.topo" -o /dev/null --order-out /dev/null

# (job control on and default dispositions: a background job of a script ignores SIGINT,
# one under nohup SIGHUP, and the commands keep a signal ignored from the start)
# interrupted SIG PROG ARGS... -o OUT: OUT holds "old" before; waits (deadline 120 s)
# for the temporary file, sends SIG, then wants death by SIG, no temporary file and
# OUT still "old". A run that ends before its temporary file is seen is tried again.
interrupted() {
	local sig=$1 d=$tmp/sig pid caught=0 try i rc deadline
	shift
	ncase=$((ncase + 1))
	for ((try = 0; try < 10 && !caught; try++)); do
		rm -rf "$d" && mkdir "$d"
		echo old >"$d/out"
		set -m
		env --default-signal=HUP,INT,TERM "$@" -o "$d/out" 2>/dev/null &
		pid=$!
		set +m
		deadline=$((SECONDS + 120))
		while [ $SECONDS -lt $deadline ]; do
			if compgen -G "$d/out.tmp*" >/dev/null; then
				kill -"$sig" "$pid" && caught=1
				break
			fi
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.005
		done
		wait "$pid"
		rc=$?
	done
	if [ $caught = 0 ]; then
		echo "FAIL: $sig ${*#"$VT_BIN"/}: never saw the temporary file in 10 runs"
		nfail=$((nfail + 1))
		return
	fi
	# a run that finished between the check and the kill exits 0: then only the
	# target may have changed, and no temporary file may remain either way
	left=$(cd "$d" && ls -A | grep -v '^out$')
	if [ -n "$left" ]; then
		echo "FAIL: $sig ${*#"$VT_BIN"/}: left behind: $left (exit $rc)"
		nfail=$((nfail + 1))
	elif [ $rc != 0 ] && { [ $rc -le 128 ] || [ "$(cat "$d/out")" != old ]; }; then
		echo "FAIL: $sig ${*#"$VT_BIN"/}: exit $rc, target: $(head -c 20 "$d/out")"
		nfail=$((nfail + 1))
	fi
}
interrupted TERM "$r" -q "$top/topofiles/wolfe-pruned-36-6.topo"
interrupted HUP "$r" -q "$top/topofiles/wolfe-pruned-36-6.topo"
interrupted TERM "$g" pruned 36,36
interrupted INT "$g" pruned 36,36
finish
