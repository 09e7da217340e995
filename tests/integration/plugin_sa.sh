#!/usr/bin/env bash
# Multicast and SA path records after a vartree sweep, on real OpenSM and ibsim.
# vartree fills OpenSM's min-hop tables itself (build_lid_matrices returns 0),
# and those tables are what OpenSM's multicast routing reads. OpenSM stays up
# here: vartree-harness without -F runs it once (opensm -o), so its SA is gone
# by the time -x clients ask, and saquery waits in vain. Through umad2sim the
# SA answers, but a table answer brings its first MAD alone (no RMPP: 3 records
# of these sizes), so queries here ask for one record each. Four hosts in different pods
# join the IPoIB broadcast group OpenSM creates in the default partition
# (build/tests/mcast_join, an MCMemberRecord Set through libumad2sim, each from
# its own ibsim node via SIM_HOST), a SIGHUP sweep routes again, and then:
# saquery -g/-m show the group and its members, path records between the
# members name the right LIDs, and the multicast tables read back from the
# switches (dump_mfts) span the members. The same run with OpenSM's own hop
# tables (vartree.hops=opensm) and with the minhop engine must give identical
# path records and multicast tables.
set -u
. "$VT_TOP/tests/integration/plugin_lib.bash"
join=$VT_TOP/build/tests/mcast_join
[ -x "$join" ] || skip "build/tests/mcast_join is not built (make unit)"
for x in saquery dump_mfts; do command -v $x >/dev/null || skip "$x is not installed"; done
mgid=ff12:401b:ffff::ffff:ffff

sim="" osm=""
stop() { # each by its own PID
	if [ -n "$osm" ]; then
		kill "$osm" 2>/dev/null
		wait "$osm" 2>/dev/null
	fi
	if [ -n "$sim" ]; then
		kill "$sim" 2>/dev/null
		wait "$sim" 2>/dev/null
	fi
	sim="" osm=""
}
trap 'stop; rm -rf "$tmp"' EXIT

ups() { # number of SUBNET UP lines in LOG (0 before it exists)
	local n
	n=$(grep -c "SUBNET UP$" "$1" 2>/dev/null)
	echo "${n:-0}"
}
wait_up() { # LOG COUNT: waits (120 s at most) for the COUNT-th SUBNET UP
	local deadline=$((SECONDS + 120))
	while [ "$(ups "$1")" -lt "$2" ]; do
		[ $SECONDS -lt $deadline ] && kill -0 "$osm" 2>/dev/null || { tail -5 "$1"; fail "no SUBNET UP $2 in $1"; }
		sleep 0.1
	done
}
c() { LD_PRELOAD=$umad2sim "$@"; }

"$gen" fat 4,3 -o "$tmp/f.topo" || fail "vartree-gen fat 4,3"
# hosts 0, 5, 10 and 15 of 16 leaves x 4: different leaves, pods 0..3 (ibsim node ids)
mapfile -t members < <(awk '/^(Ca|Hca)/ { gsub(/"/, "", $3); if (n++ % 21 == 0) print $3 }' "$tmp/f.topo")
[ ${#members[@]} = 4 ] || fail "expected 4 member hosts, got ${#members[@]}"

run() { # NAME ENGINE [event_plugin_options]
	local n=$1 d=$tmp/$1 i k
	mkdir -p "$d/cache"
	export IBSIM_SOCKNAME=vt-$$-sa-$n OSM_CACHE_DIR=$d/cache OSM_TMP_DIR=$d/cache
	export LD_LIBRARY_PATH=$VT_TOP/build/lib
	ibsim -s -n "$tmp/f.topo" </dev/null >"$d/ibsim.log" 2>&1 &
	sim=$!
	local deadline=$((SECONDS + 120))
	until grep -q "simulator ready" "$d/ibsim.log" 2>/dev/null; do
		[ $SECONDS -lt $deadline ] && kill -0 "$sim" 2>/dev/null || fail "$n: ibsim did not start"
		sleep 0.1
	done
	{
		echo "routing_engine $2"
		echo "event_plugin_name vartree"
		[ -n "${3:-}" ] && echo "event_plugin_options $3"
		echo "dump_files_dir $d"
		echo "log_flags 0x47"
		echo "force_log_flush TRUE"
		echo "sweep_interval 0"
	} >"$d/opensm.conf"
	# not through c(): $! must be OpenSM's own PID
	LD_PRELOAD=$umad2sim /usr/sbin/opensm -F "$d/opensm.conf" -f "$d/opensm.log" >"$d/opensm.out" 2>&1 &
	osm=$!
	wait_up "$d/opensm.log" 1
	for i in "${!members[@]}"; do
		SIM_HOST=${members[$i]} c "$join" "$mgid" >>"$d/joins" 2>&1 || { cat "$d/joins"; fail "$n: ${members[$i]} cannot join"; }
	done
	[ "$(grep -c ' mlid 0xc000$' "$d/joins")" = 4 ] || { cat "$d/joins"; fail "$n: joins did not all get MLID 0xc000"; }
	# a heavy sweep routes unicast (vartree and its hop tables) and the group again;
	# SUBNET UP comes after every switch has its tables
	k=$(ups "$d/opensm.log")
	kill -HUP "$osm"
	wait_up "$d/opensm.log" $((k + 1))
	c saquery -g >"$d/groups" 2>"$d/saquery.err" || fail "$n: saquery -g: $(tail -1 "$d/saquery.err")"
	grep -q "MGID\.*$mgid$" "$d/groups" && grep -q "Mlid\.*0xC000$" "$d/groups" ||
		{ cat "$d/groups"; fail "$n: the group is not in saquery -g"; }
	# OpenSM gives members' port GIDs only to a trusted requester (its SM_Key,
	# default 1); one query per member: umad2sim has no RMPP, so a table answer
	# brings its first MAD alone (3 records here)
	for g in $(awk '{ print $1 }' "$d/joins"); do
		c saquery --smkey 1 --gid "$g" MCMR >"$d/member" 2>>"$d/saquery.err" || fail "$n: saquery MCMR --gid $g"
		grep -q "PortGid\.*$g$" "$d/member" && grep -qi "mlid\.*0xc000$" "$d/member" &&
			grep -q "JoinState\.*0x1$" "$d/member" ||
			{ cat "$d/member"; fail "$n: member $g not in saquery MCMR"; }
	done
	# path records between the members, by LID (a name would be looked up in a
	# NodeRecord table, which umad2sim cuts to its first MAD)
	mapfile -t lids < <(awk '{ print $3 }' "$d/joins")
	for i in 0 1 2 3; do
		for k in 0 1 2 3; do
			[ $i = $k ] && continue
			c saquery --src-to-dst "${lids[$i]}:${lids[$k]}" >>"$d/paths" 2>>"$d/saquery.err" ||
				fail "$n: no path record ${lids[$i]} -> ${lids[$k]}: $(tail -1 "$d/saquery.err")"
		done
	done
	c dump_mfts >"$d/mfts.raw" 2>"$d/dump_mfts.err" || fail "$n: dump_mfts: $(tail -1 "$d/dump_mfts.err")"
	# "GUID MLID PORT..." per switch with an entry: ibroute marks a port with an x
	# under its number in the Ports: header
	awk '/^Multicast mlids/ { g = $0; sub(/.*guid 0x/, "", g); sub(/ .*/, "", g); next }
	     /^ *Ports:/ { np = 0; for (i = 1; i <= length($0); i++) if (substr($0, i, 1) ~ /[0-9]/ && substr($0, i + 1, 1) !~ /[0-9]/) { j = i; while (j > 1 && substr($0, j - 1, 1) ~ /[0-9]/) j--; col[np] = i; num[np++] = substr($0, j, i - j + 1) } next }
	     /^0x[cC][0-9a-fA-F]+ / { l = g " " tolower($1); for (k = 0; k < np; k++) if (substr($0, col[k], 1) == "x") l = l " " num[k]; print l }' \
		"$d/mfts.raw" | sort >"$d/mfts"
	stop
}

run vartree vartree
grep -q "vartree: min-hop tables filled" "$tmp/vartree/opensm.log" || fail "vartree did not fill the hop tables"
grep -q "Min Hop Table Assignment" "$tmp/vartree/opensm.log" && fail "OpenSM built its own hop tables too"
[ "$(grep -c "vartree tables configured on all switches" "$tmp/vartree/opensm.log")" = 2 ] ||
	fail "vartree did not route both sweeps"
run opensm-hops vartree vartree.hops=opensm
run minhop minhop

v=$tmp/vartree
# each path record names the LIDs of its ends, in the order asked
mapfile -t lids < <(awk '{ print $3 }' "$v/joins")
want=$(for i in 0 1 2 3; do for k in 0 1 2 3; do [ $i = $k ] || echo "${lids[$i]} ${lids[$k]}"; done; done)
got=$(awk '/dlid\.+/ { d = $0; sub(/.*\.+/, "", d) } /slid\.+/ { s = $0; sub(/.*\.+/, "", s); print s + 0, d + 0 }' "$v/paths")
[ "$got" = "$want" ] || { printf 'want\n%s\ngot\n%s\n' "$want" "$got"; fail "path records do not name the members' LIDs"; }
# the group's tree (from the switches' tables and the topology): each member's
# leaf forwards to it, no other CA gets the group, and the switch-to-switch
# links both of whose ends forward form one tree (connected, edges = switches - 1)
tree=$(awk -v members="${members[*]}" '
	BEGIN { split(members, m, " "); for (i in m) ism[m[i]] = 1 }
	FNR == 1 { file++ }
	file == 1 && /^Switch/ { cur = $3; gsub(/"|S-/, "", cur); cur = tolower(cur); next }
	file == 1 && /^(Ca|Hca)/ { cur = ""; next }
	file == 1 && cur != "" && /^\[/ { p = $1; gsub(/[^0-9]/, "", p); peer = $2; sub(/\[.*/, "", peer); gsub(/"/, "", peer)
		if (peer ~ /^S-/) { sub(/^S-/, "", peer); sw[cur, p] = tolower(peer) } else ca[cur, p] = peer; next }
	file == 2 && $2 == "0xc000" { in_tree[$1] = 1; n++; for (i = 3; i <= NF; i++) fw[$1, $i] = 1 }
	END {
		for (k in ca) { split(k, a, SUBSEP); if (((a[1], a[2]) in fw) != (ca[k] in ism)) { print "bad CA port " a[1] "/" a[2] " " ca[k]; bad = 1 }
			if (ca[k] in ism) found++ }
		for (k in sw) { split(k, a, SUBSEP); if ((k in fw) && a[1] < sw[k]) { e++; adj[a[1]] = adj[a[1]] " " sw[k]; adj[sw[k]] = adj[sw[k]] " " a[1] } }
		for (s in in_tree) { start = s; break }
		q[0] = start; seen[start] = 1; h = 0; t = 1
		while (h < t) { split(adj[q[h++]], nb, " "); for (i in nb) if (!(nb[i] in seen)) { seen[nb[i]] = 1; q[t++] = nb[i] } }
		print "switches " n " edges " e " reached " t " members " found + 0 (bad ? " BAD" : "")
	}' "$tmp/f.topo" "$v/mfts")
sw=$(tail -1 <<<"$tree" | awk '{ print $2 + 0 }')
[ "$tree" = "switches $sw edges $((sw - 1)) reached $sw members 4" ] && [ "$sw" -ge 5 ] ||
	{ echo "$tree"; cat "$v/mfts"; fail "the multicast tables do not form a tree spanning the members"; }
for o in opensm-hops minhop; do
	cmp -s "$v/mfts" "$tmp/$o/mfts" || { diff "$v/mfts" "$tmp/$o/mfts" | head; fail "multicast tables differ from $o's"; }
	cmp -s "$v/paths" "$tmp/$o/paths" || { diff "$v/paths" "$tmp/$o/paths" | head; fail "path records differ from $o's"; }
done
echo "sa ok: 4 members of MLID 0xc000, multicast tree ($tree), 12 path records; both equal with OpenSM's hop tables and with minhop"
