#!/usr/bin/env bash
# vartree-harness: a fault on a node ibsim does not know is refused before
# anything starts (it used to exit 0 after sweeping the unchanged fabric), and
# routing_ms stays right across midnight (log stamps are HH:MM:SS).
. "$(dirname "$0")/robust_lib.bash"
h=$top/sim/vartree-harness
command -v ibsim >/dev/null && [ -x /usr/sbin/opensm ] || { echo "ibsim or opensm not installed"; exit 77; }
mkbad

expect 2 "vartree-harness: -F down:nosuch: no node 'nosuch' in $tmp/good.topo (give its node id, description or GUID)" \
	"$h" -q -o "$tmp/run/o" -F down:nosuch "$tmp/good.topo"
expect 2 "vartree-harness: -F up:0x1234:3: no node '0x1234' in $tmp/good.topo (give its node id, description or GUID)" \
	"$h" -q -o "$tmp/run/o" -F up:0x1234:3 "$tmp/good.topo"

# The summary parser on a log that crosses midnight: a stand-in for OpenSM that
# writes only the log lines the summary reads (the real OpenSM cannot be made to
# sweep at midnight); ibsim is real.
cat >"$tmp/fake-opensm" <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = -f ] && log=$2; shift; done
{
	echo "Nov 23 23:59:59 900000 [1] 0x02 -> osm_ucast_mgr_process: building routing with 'minhop' routing algorithm"
	echo "Nov 24 00:00:00 150000 [1] 0x02 -> osm_ucast_mgr_process: minhop tables configured on all switches"
	echo "Nov 24 00:00:00 160000 [1] 0x80 -> SUBNET UP"
} >"$log"
SH
chmod +x "$tmp/fake-opensm"
ncase=$((ncase + 1))
VT_OPENSM=$tmp/fake-opensm "$h" -q -e minhop -o "$tmp/mid" "$tmp/good.topo" >/dev/null 2>"$tmp/mid.err"
got=$(grep -o "routing_ms [^,]*" "$tmp/mid/summary.txt" 2>/dev/null)
if [ "$got" != "routing_ms 250.000" ]; then
	echo "FAIL: midnight: '$got', want 'routing_ms 250.000'; $(head -2 "$tmp/mid.err")"
	nfail=$((nfail + 1))
fi
finish
