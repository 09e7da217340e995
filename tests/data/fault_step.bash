# Sourced by tests/cli/route_fault_seq.sh and tests/bench/fault.sh: one step of a
# fault sequence. down:X takes X out of the previous step's topology
# (topo_fault.py); up:X brings back the topology from just before X went down.
# The caller declares `declare -A fault_before=()` once per sequence.
fault_step() { # DIR K FAULT: DIR/sK.topo from DIR/s(K-1).topo
	local d=$1 k=$2 fault=$3
	case $fault in
	up:*) cp "${fault_before[${fault#up:}]}" "$d/s$k.topo" ;;
	*) fault_before[${fault#down:}]=$d/s$((k - 1)).topo
		python3 "$(dirname "${BASH_SOURCE[0]}")/topo_fault.py" "$d/s$((k - 1)).topo" "$fault" >"$d/s$k.topo" ;;
	esac
}
