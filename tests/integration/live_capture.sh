#!/usr/bin/env bash
# vt_live against ibsim: the forwarding tables read back with SMPs, written
# with vt_lfts_write, are byte for byte the opensm-lfts.dump OpenSM wrote
# after routing the subnet (LMC 0, then LMC 1).
set -u
. "$VT_TOP/tests/integration/live_lib.bash"

start_sim /usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
run_opensm "$tmp/lmc0"
capture "$tmp/lmc0.live"
same "$tmp/lmc0/opensm-lfts.dump" "$tmp/lmc0.live"
grep -q "^0x0004 001 # Channel Adapter" "$tmp/lmc0.live" || { echo "unexpected table"; exit 1; }

run_opensm "$tmp/lmc1" -l 1
capture "$tmp/lmc1.live"
same "$tmp/lmc1/opensm-lfts.dump" "$tmp/lmc1.live"
# LMC 1: each CA owns two LIDs, both routed
[ "$(grep -c "Channel Adapter" "$tmp/lmc1.live")" = 16 ] || { echo "LMC 1 tables incomplete"; exit 1; }
echo "live capture matches OpenSM's dump (LMC 0 and 1)"
