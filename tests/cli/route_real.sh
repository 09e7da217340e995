#!/usr/bin/env bash
# vartree-route on the real ibnetdiscover dumps of ../shared/fixtures/real (their
# README says what each shows): each routes or is refused as listed; every
# routed one passes vartree-analyze's audit (no unreachable destination, loop,
# misdelivery or credit loop), with every switch and CA as a source (aggregation
# nodes, spine CAs and switches start traffic too), with the rank count listed.
set -u
top=${VT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
real=$top/../shared/fixtures/real
bin=$top/build/bin
[ -d "$real" ] || { echo "$real absent: the real dumps not routed or audited"; exit 77; }
[ -x "$bin/vartree-route" ] || { echo "normal build missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# file: "ranks N" (routed, N compute ranks) or the refusal line, @ standing for
# the file's path; the line is the one listing the link (checked by hand: the
# first-named switch's port line in its record)
declare -A want=(
	[loginoff-stage-sx6036-8sw.topo]="ranks 144"
	[nvlab-cs8500-quantum-2host.topo]="ranks 40" # 38 host-less line ASICs: place-keepers
	[nvlab-msb7800-4sw-anon.topo]="ranks 6"
	[ibm-pcm-2host-mt43132.topo]="ranks 2"
	[sun-dcs36-1host.topo]="ranks 1"
	[ibsim-example-net.net]="ranks 2"
	[mlnx-ufm-lab-selfloop-sx6012.topo]='vartree-route: @:14: switches "SwitchIB Mellanox Technologies" (0xe41d2d030003e470) port 3 and "MF0;switch-de779e:SX6012/U1" (0xf4521403005764b0) port 1 are linked but both at level 0; an up/down tree links only adjacent levels'
	[voltaire-isr9024-manpage-sample.topo]='vartree-route: @:17: switches "ISR9024 Voltaire" (0x005442ba00003080) port 6 and "SW-6IB4 Voltaire" (0x0008f10400410015) port 3 are linked but both at level 0; an up/down tree links only adjacent levels'
	[ibsim-example-2sw2path4hca2port.net]='vartree-route: @:24: switches "Switch1" (0x0000000000200000) port 3 and "Switch2" (0x0000000000200001) port 3 are linked but both at level 0; an up/down tree links only adjacent levels'
)
nfail=0
bad() { echo "FAIL: $n: $*"; nfail=$((nfail + 1)); }
for n in "${!want[@]}"; do
	f=$real/$n w=${want[$n]}
	[ -f "$f" ] || { bad "missing"; continue; }
	rm -f "$tmp/l" "$tmp/o"
	"$bin/vartree-route" -q "$f" -o "$tmp/l" --order-out "$tmp/o" 2>"$tmp/err"
	rc=$?
	if [[ $w == vartree-route:* ]]; then
		[ $rc = 1 ] || bad "exit $rc, want 1 (refusal)"
		[ "$(cat "$tmp/err")" = "${w/@/$f}" ] || bad "refusal: $(head -3 "$tmp/err")"
		[ ! -e "$tmp/l" ] || bad "refused but left output"
		continue
	fi
	[ $rc = 0 ] || { bad "exit $rc: $(head -3 "$tmp/err")"; continue; }
	"$bin/vartree-analyze" "$f" --lfts "$tmp/l" --order "$tmp/o" --all-sources --json >"$tmp/a.json" 2>"$tmp/err"
	rc=$?
	if [ "$w" = "ranks 1" ]; then # one host: nothing to analyse, and it says so
		[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "vartree-analyze: $f: needs at least 2 hosts to analyze" ] ||
			bad "one host: analyze exit $rc: $(head -2 "$tmp/err")"
		continue
	fi
	[ $rc -le 1 ] || bad "analyze exit $rc: $(head -2 "$tmp/err")"
	for k in unreachable loop misdelivery credit-loop; do
		c=$(grep -o "\"$k\": {\"count\": [0-9]*" "$tmp/a.json" | sed 's/.*: //')
		[ "$c" = 0 ] || bad "audit $k: ${c:-missing}"
	done
	[ "ranks $(grep -c . "$tmp/o")" = "$w" ] || bad "$(grep -c . "$tmp/o") ranks, want $w"
done
# the CS8500's 40 line ASICs are its leaves (38 host-less, place-keepers), its 20
# spine ASICs level 1: no level-0 switch without ranks
n=nvlab-cs8500-quantum-2host.topo
v=$("$bin/vartree-route" "$real/$n" -o "$tmp/l" 2>&1 >/dev/null | grep '^vartree-route: level [01]')
[ "$v" = "vartree-route: level 0: 40 leaf switches, up to 1 compute nodes each, 20 up-links in 20 groups
vartree-route: level 1: 20 switches, 40 down-links in 40 groups, 0 up-links in 0 groups" ] ||
	bad "summary: $v"
echo "${#want[@]} real fabrics, $nfail failures"
[ $nfail = 0 ]
