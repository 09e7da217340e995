# Shared by tests/cli/robust_*.sh: run a command on bad input and check that it
# fails with the exact one-line message and exit status, and leaves no file behind.
# Sourced, not run (the test runner runs only *.sh).
set -u
top=${VT_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nfail=0
ncase=0

# a small good fabric and the bad inputs every loader must refuse
mkbad() {
	cp "$top/topofiles/zahavi-4ary2.topo" "$tmp/good.topo"
	: >"$tmp/empty.topo"
	head -c 500 "$tmp/good.topo" >"$tmp/trunc.topo" # ends inside line 14's remote id
	sed '11s/^\[2\]/[99]/' "$tmp/good.topo" >"$tmp/badport.topo"
	sed '11s/^\[2\]/[x]/' "$tmp/good.topo" >"$tmp/badportnum.topo"
	printf 'hello\n' >"$tmp/foreign.topo"
}

# expect STATUS 'STDERR' CMD ARGS...: run in $tmp/run (fresh), compare status and the
# whole of stderr (one line), then check that the run directory is still empty.
expect() {
	local want_rc=$1 want=$2 rc got left
	shift 2
	ncase=$((ncase + 1))
	rm -rf "$tmp/run" && mkdir "$tmp/run"
	(cd "$tmp/run" && "$@" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	got=$(cat "$tmp/err")
	left=$(ls -A "$tmp/run")
	if [ "$rc" != "$want_rc" ]; then
		echo "FAIL: ${*#"$VT_BIN"/}: exit $rc, want $want_rc; stderr: $(head -3 "$tmp/err")"
		nfail=$((nfail + 1))
	elif [ "$got" != "$want" ]; then
		echo "FAIL: ${*#"$VT_BIN"/}:"
		echo "   got: $got"
		echo "  want: $want"
		nfail=$((nfail + 1))
	elif [ -n "$left" ]; then
		echo "FAIL: ${*#"$VT_BIN"/}: left behind: $left"
		nfail=$((nfail + 1))
	fi
}

finish() {
	echo "$((ncase - nfail)) of $ncase cases as expected"
	[ $nfail = 0 ]
}
