#!/usr/bin/env bash
# ab.sh compares the JSON-RPC requests per second of two flashrpc binaries (say, main and
# a branch) with wrk, interleaved: A, B, A, B, … per body, so that load from others on a
# shared machine hits both alike. docs/benchmarks.md ("Transport A/B") has its figures.
#
# Usage: scripts/bench/ab.sh BIN_A BIN_B [--rounds N] [--duration S] [--a-flags F] [--b-flags F] [body ...]
#
#   body          blockNumber, getBlockByNumber, getCode, estimateGas, simulateV1_1x1,
#                 simulateV1_1x100 (default: the first two)
#   --rounds N    rounds per binary and body (default 4)
#   --duration S  seconds per wrk run (default 10)
#   --a-flags F   extra flags of node A (one word list, e.g. "--metrics.port 18760");
#   --b-flags F   likewise for B: the same binary twice with different flags compares them
#
# Besides req/s it prints requests per CPU-second of the node (utime + stime from
# /proc/PID/stat around each run), which other load on a shared machine moves less.
#
# Both nodes run side by side (`dev --feed.port -1`, A on 18745, B on 18845, measured on
# the pre-confirmed endpoint) under `taskset -c 1`; wrk (-t1 -c8, scripts/bench/rpc.lua)
# runs under `taskset -c 0`, as scripts/bench/run.sh does. Only one node is under load at
# a time. Every request goes to 127.0.0.1; the run ends by itself.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ $# -ge 2 ]] || { sed -n 2,16p "$0"; exit 2; }
BIN_A=$1 BIN_B=$2
shift 2
ROUNDS=4 DURATION=10 BODY_NAMES=() FLAGS_A="" FLAGS_B=""
while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--a-flags) FLAGS_A=$2; shift 2 ;;
	--b-flags) FLAGS_B=$2; shift 2 ;;
	*) BODY_NAMES+=("$1"); shift ;;
	esac
done
[[ ${#BODY_NAMES[@]} -gt 0 ]] || BODY_NAMES=(blockNumber getBlockByNumber)
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }

body() {
	case $1 in
	blockNumber) echo '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' ;;
	getBlockByNumber) echo '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}' ;;
	# a predeployed system contract (EIP-4788 beacon roots), so the answer is real code
	getCode) echo '{"jsonrpc":"2.0","id":1,"method":"eth_getCode","params":["0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02","latest"]}' ;;
	# a transfer from dev account 0, funded at genesis on both nodes: execution without a
	# deployed contract, so the two nodes need no set-up
	estimateGas) echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_estimateGas\",\"params\":[$TRANSFER]}" ;;
	simulateV1_1x1) simulate 1 ;;
	simulateV1_1x100) simulate 100 ;;
	*) echo "unknown body $1" >&2; exit 2 ;;
	esac
}

TRANSFER='{"from":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","to":"0x000000000000000000000000000000000000dEaD","value":"0x1"}'
# simulate N prints eth_simulateV1 of one block of N transfers on latest.
simulate() {
	local calls=$TRANSFER i
	for ((i = 1; i < $1; i++)); do calls+=",$TRANSFER"; done
	echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_simulateV1\",\"params\":[{\"blockStateCalls\":[{\"calls\":[$calls]}]},\"latest\"]}"
}

PIDS=()
declare -A PID_OF
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
start() { # start BIN PORT [FLAGS]
	# shellcheck disable=SC2086 # FLAGS is a word list
	taskset -c 1 "$1" dev --http.port "$2" --preconf.port $(($2 + 2)) --feed.port -1 --log.level warn ${3:-} >/dev/null 2>&1 &
	PIDS+=($!)
	PID_OF[$(($2 + 2))]=$!
	for _ in $(seq 100); do
		curl -sf -H 'Content-Type: application/json' -d "$(body blockNumber)" "http://127.0.0.1:$(($2 + 2))" >/dev/null && return
		sleep 0.1
	done
	echo "$1 did not start" >&2
	exit 1
}
start "$BIN_A" 18745 "$FLAGS_A"
start "$BIN_B" 18845 "$FLAGS_B"

echo "A: $BIN_A $FLAGS_A"
echo "B: $BIN_B $FLAGS_B"
echo "$(nproc) CPUs, $(uname -r), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2); $ROUNDS rounds of ${DURATION}s, wrk -t1 -c8"
echo
echo "| body | round | A req/s | B req/s | A req per CPU-s | B req per CPU-s |"
echo "|---|---|---|---|---|---|"
declare -A ALL EFF
# cpu PID prints the process's user + system CPU time in clock ticks.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICKS=$(getconf CLK_TCK)
for name in "${BODY_NAMES[@]}"; do
	b=$(body "$name")
	for r in $(seq "$ROUNDS"); do
		row="| $name | $r |"
		effs=""
		for side in A B; do
			port=18747
			[[ $side == B ]] && port=18847
			sleep 1
			c0=$(cpu "${PID_OF[$port]}")
			out=$(RPC_BODY=$b taskset -c 0 wrk -t1 -c8 -d"${DURATION}s" -s "$ROOT/scripts/bench/rpc.lua" "http://127.0.0.1:$port")
			c1=$(cpu "${PID_OF[$port]}")
			rps=$(awk '/Requests\/sec/ {print int($2)}' <<<"$out")
			total=$(awk '/requests in/ {print $1}' <<<"$out")
			eff=$(awk -v n="$total" -v t=$((c1 - c0)) -v hz="$TICKS" 'BEGIN {print (t > 0 ? int(n * hz / t) : 0)}')
			ALL[$name$side]+="$rps "
			EFF[$name$side]+="$eff "
			row+=" $rps |"
			effs+=" $eff |"
		done
		echo "$row$effs"
	done
done
echo
echo "| body | A median req/s | B median req/s | B/A | A median req per CPU-s | B median req per CPU-s | B/A |"
echo "|---|---|---|---|---|---|---|"
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }
for name in "${BODY_NAMES[@]}"; do
	ma=$(echo "${ALL[${name}A]}" | median)
	mb=$(echo "${ALL[${name}B]}" | median)
	ea=$(echo "${EFF[${name}A]}" | median)
	eb=$(echo "${EFF[${name}B]}" | median)
	echo "| $name | $ma | $mb | $(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.2f", b/a}') | $ea | $eb | $(awk -v a="$ea" -v b="$eb" 'BEGIN {printf "%.2f", b/a}') |"
done
