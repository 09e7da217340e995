# Shared by tests/cli/gen_*.sh: vartree-gen on a bad spec or option must exit 2
# with exactly the one line given, and write no output file. Sourced, not run
# (the test runner runs only *.sh); needs $gen and fail().
gen_err() { # expected-line args...
	local want=$1 out got rc
	shift
	out=$(mktemp -d) || fail "mktemp"
	got=$("$gen" "$@" -o "$out/x.topo" 2>&1 >/dev/null)
	rc=$?
	[ -e "$out/x.topo" ] && { rm -rf "$out"; fail "$*: output written"; }
	rm -rf "$out"
	[ $rc = 2 ] || fail "$*: exit $rc, want 2"
	[ "$got" = "$want" ] || fail "$*: got '$got', want '$want'"
}
