#!/usr/bin/env bash
# run.sh compares JSON-RPC requests per second of flashrpc and anvil 1.7.1 in
# one run, on loopback, with wrk. docs/benchmarks.md describes the method.
#
# Usage: scripts/bench/run.sh [options] [body ...]
#
#   body            names from the BODIES table below (default: all of them)
#   --only SERVER   measure only "anvil" or only "flashrpc"
#   --rounds N      rounds per server and body (default 5; at least 3)
#   --duration S    seconds per wrk run (default 10)
#   --out FILE      Markdown result file (default .tools/bench/results-<time>.md)
#   --no-pin        do not pin servers and wrk to separate CPUs
#   --list          print the body names and exit
#
# Environment:
#   FLASHRPC_CMD    command starting the flashrpc side instead of building
#                   ./cmd/flashrpc and running `.tools/flashrpc dev --http.port
#                   18645 --preconf.port 18647` (e.g. a second anvil as stand-in)
#   FLASHRPC_URL    URL measured for the flashrpc side (default http://127.0.0.1:18647,
#                   the pre-confirmed endpoint: it serves every method, eth_simulateV1 included)
#   FLASHRPC_LABEL  server name printed for the flashrpc side (default flashrpc)
#   ANVIL_PORT      anvil's port (default 18545)
#   SERVER_CPUS     taskset CPU list for both servers (default 1)
#   WRK_CPUS        taskset CPU list for wrk (default 0)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

BENCH_DIR=.tools/bench
FOUNDRY_DIR=.tools/foundry
ANVIL=$FOUNDRY_DIR/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil
CAST=$FOUNDRY_DIR/node_modules/@foundry-rs/cast-linux-amd64/bin/cast
LUA=scripts/bench/rpc.lua
ANVIL_PORT=${ANVIL_PORT:-18545}
ANVIL_URL=http://127.0.0.1:$ANVIL_PORT
FLASHRPC_URL=${FLASHRPC_URL:-http://127.0.0.1:18647}
FLASHRPC_LABEL=${FLASHRPC_LABEL:-flashrpc}
SERVER_CPUS=${SERVER_CPUS:-1}
WRK_CPUS=${WRK_CPUS:-0}
WRK_THREADS=1
WRK_CONNS=8
GAP=1 # seconds between runs

# Dev account 0 of the test mnemonic; both servers fund it at genesis.
DEV0_KEY=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80
# The contract of scripts/cast-demo.sh (see the comment there): 11 bytes of
# init code and a 12-byte runtime that emits one LOG1 per call.
BYTECODE=0x600c80600b6000396000f336600060003733366000a100

# ---------------------------------------------------------------------------
# BODIES is the table of request bodies, by name. To add one, add its name
# here and a function body_<name> that prints the JSON request on one line.
# The functions may use $CONTRACT (the deployed contract on the server being
# checked or measured), $TXHASH (a sealed call of it there), $DEV0 (dev account 0) and
# $TOKEN_A, $TOKEN_B, $POOL (the realistic mix's contracts there, deploy_mix).
BODIES=(getBlockByNumber getCode estimateGas simulateV1_1x1 simulateV1_1x100 simulateV1_3x10_mix getProof traceTransaction_callTracer)

DEV0=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
CONTRACT=
TXHASH= # a sealed call of CONTRACT (one LOG1) on the server being checked or measured

body_getBlockByNumber() { rpc eth_getBlockByNumber '["latest",false]'; }
body_getCode() { rpc eth_getCode "[\"$CONTRACT\",\"latest\"]"; }
# The call of reference/peers.md §6: the contract's LOG1 runs.
call_json() { printf '{"from":"%s","to":"%s","data":"0x01"}' "$DEV0" "$CONTRACT"; }
body_estimateGas() { rpc eth_estimateGas "[$(call_json)]"; }
# simulate_body N: one block of N calls on latest.
simulate_body() {
	local calls i
	calls=$(call_json)
	for ((i = 1; i < $1; i++)); do calls+=",$(call_json)"; done
	rpc eth_simulateV1 "[{\"blockStateCalls\":[{\"calls\":[$calls]}]},\"latest\"]"
}
body_simulateV1_1x1() { simulate_body 1; }
body_simulateV1_1x100() { simulate_body 100; }
# The realistic body of issue 30: three blocks of ten calls, each block eight ERC-20 transfers
# of dev account 0 to fresh holders (tokens A and B in turn), a swap on the pool and an ether
# transfer from MIX_FUNDED, an account without ether that the first block's state override
# (balance) funds; traceTransfers adds the transfer logs. Same calls, same gas on both servers.
body_simulateV1_3x10_mix() {
	local blocks="" b i calls
	for b in 0 1 2; do
		calls=""
		for i in 0 1 2 3 4 5 6 7; do
			calls+=$(printf '{"from":"%s","to":"%s","data":"%s"},' "$DEV0" "$( ((i % 2)) && echo "$TOKEN_B" || echo "$TOKEN_A")" \
				"$(transfer_data $((b * 10 + i)))")
		done
		calls+=$(printf '{"from":"%s","to":"%s","data":"%s"},' "$DEV0" "$POOL" "${SWAP_DATA[b % 2]}")
		calls+=$(printf '{"from":"%s","to":"%s","value":"0x2386f26fc10000"}' "$MIX_FUNDED" "$(mix_receiver $((b * 10 + 9)))")
		((b == 0)) && blocks+="{\"stateOverrides\":{\"$MIX_FUNDED\":{\"balance\":\"0xde0b6b3a7640000\"}},\"calls\":[$calls]}" ||
			blocks+=",{\"calls\":[$calls]}"
	done
	rpc eth_simulateV1 "[{\"traceTransfers\":true,\"blockStateCalls\":[$blocks]},\"latest\"]"
}
# An account of no one, with no ether until the state override funds it.
MIX_FUNDED=0x00000000000000000000000000000000000f00d5
# mix_receiver N is the N-th receiver of the mix's transfers: addresses without state.
mix_receiver() { printf '0x%040x' $((0xbe000 + $1)); }
# transfer_data N is the call data of Token.transfer(mix_receiver N, 1000 + N), ABI-encoded.
transfer_data() { printf '0xa9059cbb%064x%064x' $((0xbe000 + $1)) $((1000 + $1)); }
# Pool.swap(1e15, zeroForOne, 1) for zeroForOne = true (index 0) and false (index 1).
SWAP_DATA=(
	"0x$(printf '4312ae31%064x%064x%064x' 1000000000000000 1 1)"
	"0x$(printf '4312ae31%064x%064x%064x' 1000000000000000 0 1)"
)
TOKEN_A= TOKEN_B= POOL=
# The Merkle proof of dev account 0 in the latest state (EIP-1186).
body_getProof() { rpc eth_getProof "[\"$DEV0\",[],\"latest\"]"; }
# The call tree of a sealed transaction: its block is replayed up to it, then it runs with
# go-ethereum's callTracer (with its log), as Foundry's cast run and debuggers ask for it.
body_traceTransaction_callTracer() { rpc debug_traceTransaction "[\"$TXHASH\",{\"tracer\":\"callTracer\",\"tracerConfig\":{\"withLog\":true}}]"; }

# rpc METHOD PARAMS prints a JSON-RPC 2.0 request with id 1.
rpc() { printf '{"jsonrpc":"2.0","id":1,"method":"%s","params":%s}' "$1" "$2"; }
# ---------------------------------------------------------------------------

ROUNDS=5
DURATION=10
ONLY=
OUT=
PIN=1
SELECTED=()

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() {
	echo "bench: $*" >&2
	exit 1
}

parse_args() {
	while (($#)); do
		case $1 in
		--only) ONLY=${2:?--only needs anvil or flashrpc}; shift ;;
		--rounds) ROUNDS=${2:?}; shift ;;
		--duration) DURATION=${2:?}; shift ;;
		--out) OUT=${2:?}; shift ;;
		--no-pin) PIN= ;;
		--list) printf '%s\n' "${BODIES[@]}"; exit 0 ;;
		-h | --help) usage; exit 0 ;;
		-*) die "unknown option $1 (see --help)" ;;
		*) SELECTED+=("$1") ;;
		esac
		shift
	done
	[[ -z $ONLY || $ONLY == anvil || $ONLY == flashrpc ]] || die "--only takes anvil or flashrpc, not $ONLY"
	[[ $ROUNDS =~ ^[0-9]+$ ]] && ((ROUNDS >= 3)) || die "--rounds must be at least 3"
	[[ $DURATION =~ ^[0-9]+$ ]] && ((DURATION >= 1)) || die "--duration must be a whole number of seconds"
	((${#SELECTED[@]})) || SELECTED=("${BODIES[@]}")
	local b
	for b in "${SELECTED[@]}"; do
		declare -F "body_$b" >/dev/null || die "unknown body $b; known: ${BODIES[*]}"
	done
	if [[ -n $PIN ]] && (($(nproc) < 2)); then
		echo "bench: only one CPU, not pinning" >&2
		PIN=
	fi
	mkdir -p "$BENCH_DIR"
	OUT=${OUT:-$BENCH_DIR/results-$(date -u +%Y%m%dT%H%M%SZ).md}
}

# --- tools -------------------------------------------------------------------

install_tools() {
	if ! command -v wrk >/dev/null; then
		if ((EUID == 0)); then
			echo "installing wrk with apt-get …"
			apt-get install -y wrk >/dev/null || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
		else
			die "wrk is missing; install it with: sudo apt-get install -y wrk"
		fi
	fi
	command -v jq >/dev/null || die "jq is missing (the mix's set-up reads the contracts with it); install it with: apt-get install -y jq"
	command -v taskset >/dev/null || { [[ -z $PIN ]] || die "taskset (util-linux) is missing; install it or pass --no-pin"; }
	local pkgs=()
	[[ -x $ANVIL ]] || pkgs+=(@foundry-rs/anvil-linux-amd64@1.7.1)
	[[ -x $CAST ]] || pkgs+=(@foundry-rs/cast-linux-amd64@1.7.1)
	if ((${#pkgs[@]})); then
		command -v npm >/dev/null || die "npm is needed to install ${pkgs[*]}"
		echo "installing ${pkgs[*]} into $FOUNDRY_DIR …"
		npm install --silent --prefix "$FOUNDRY_DIR" "${pkgs[@]}" >/dev/null
	fi
	[[ -x $ANVIL && -x $CAST ]] || die "anvil or cast missing after npm install"
}

# --- servers -----------------------------------------------------------------

PGIDS=()
cleanup() {
	local pg
	for pg in "${PGIDS[@]}"; do
		kill -TERM -- "-$pg" 2>/dev/null || true
	done
	for pg in "${PGIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$pg" 2>/dev/null || break; sleep 0.1; done
		kill -KILL -- "-$pg" 2>/dev/null || true
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

answers() {
	curl -sf -m 1 -H 'Content-Type: application/json' \
		-d "$(rpc eth_chainId '[]')" "$1" 2>/dev/null | grep -q '"result"'
}

# start NAME URL CMD starts CMD in its own process group (pinned to
# SERVER_CPUS unless --no-pin), logs to .tools/bench/NAME.log, waits until URL
# answers and sets PGID_<NAME>.
start() {
	local name=$1 url=$2 cmd=$3 pin=
	! answers "$url" || die "something already answers on $url; stop it or pick another port"
	[[ -z $PIN ]] || pin="taskset -c $SERVER_CPUS"
	echo "starting $name: $cmd"
	setsid bash -c "exec $pin $cmd" >"$BENCH_DIR/$name.log" 2>&1 &
	local pg=$!
	PGIDS+=("$pg")
	printf -v "PGID_${name//-/_}" %s "$pg"
	local i
	for i in $(seq 300); do
		answers "$url" && return
		kill -0 "$pg" 2>/dev/null || { tail -n 20 "$BENCH_DIR/$name.log" >&2; die "$name exited before answering"; }
		sleep 0.1
	done
	die "$name did not answer on $url within 30 s"
}

# deploy URL deploys the contract with dev account 0 and prints its address once
# its code is in the latest block: a pre-confirming node has the receipt ~200 ms
# after sending, but "latest" (what the bodies ask for) only once the block is
# sealed, and calls to an address without code measure something else.
deploy() {
	local tx addr
	tx=$("$CAST" send --async --rpc-url "$1" --private-key "$DEV0_KEY" --create "$BYTECODE")
	addr=$("$CAST" receipt --rpc-url "$1" "$tx" contractAddress)
	for _ in $(seq 300); do
		[[ $("$CAST" code --rpc-url "$1" --block latest "$addr") != 0x ]] && { echo "$addr"; return; }
		sleep 0.1
	done
	echo "contract $addr has no code at latest after 30 s" >&2
	return 1
}

# call_tx URL CONTRACT sends a call of the contract (its LOG1 runs) with dev account 0 and
# prints its hash once its block is sealed: traceTransaction traces it.
call_tx() {
	local tx
	tx=$("$CAST" send --async --rpc-url "$1" --private-key "$DEV0_KEY" "$2" 0x01)
	"$CAST" receipt --rpc-url "$1" "$tx" >/dev/null
	sealed "$1" "$tx" && echo "$tx"
}

# deploy_mix URL deploys the realistic mix's contracts (internal/benchmix: two ERC-20 tokens and
# a constant-product pool) with dev account 0, seeds the pool, gives dev account 0 both tokens
# and approves the pool for them, and prints "tokenA tokenB pool" once all of it is in the
# latest block. The same ten transactions, from the same nonce, on both servers.
deploy_mix() {
	local url=$1 nonce art=internal/benchmix/contracts/BenchMix.json token pool maxu txs=() i tx
	nonce=$("$CAST" nonce --rpc-url "$url" "$DEV0")
	token=$(jq -r .Token.bytecode "$art")
	pool=$(jq -r .Pool.bytecode "$art")
	TOKEN_A=$("$CAST" compute-address --nonce "$nonce" "$DEV0" | awk '{print $NF}')
	TOKEN_B=$("$CAST" compute-address --nonce $((nonce + 1)) "$DEV0" | awk '{print $NF}')
	POOL=$("$CAST" compute-address --nonce $((nonce + 2)) "$DEV0" | awk '{print $NF}')
	maxu=0x$(printf 'f%.0s' {1..64})
	local -a steps=(
		"--create $token$("$CAST" abi-encode 'c(string,string)' 'Bench A' BA | cut -c3-)"
		"--create $token$("$CAST" abi-encode 'c(string,string)' 'Bench B' BB | cut -c3-)"
		"--create $pool$("$CAST" abi-encode 'c(address,address)' "$TOKEN_A" "$TOKEN_B" | cut -c3-)"
		"$TOKEN_A $("$CAST" calldata 'mint(address,uint256)' "$POOL" 1000000000000000000000000000)"
		"$TOKEN_B $("$CAST" calldata 'mint(address,uint256)' "$POOL" 1000000000000000000000000000)"
		"$POOL $("$CAST" calldata 'sync()')"
		"$TOKEN_A $("$CAST" calldata 'mint(address,uint256)' "$DEV0" 1000000000000000000000000000)"
		"$TOKEN_B $("$CAST" calldata 'mint(address,uint256)' "$DEV0" 1000000000000000000000000000)"
		"$TOKEN_A $("$CAST" calldata 'approve(address,uint256)' "$POOL" "$maxu")"
		"$TOKEN_B $("$CAST" calldata 'approve(address,uint256)' "$POOL" "$maxu")"
	)
	for i in "${!steps[@]}"; do
		# shellcheck disable=SC2086 # a step is "--create CODE" or "TO DATA"
		tx=$("$CAST" send --async --rpc-url "$url" --private-key "$DEV0_KEY" --nonce $((nonce + i)) --gas-limit 1500000 ${steps[i]})
		txs+=("$tx")
	done
	for tx in "${txs[@]}"; do
		[[ $("$CAST" receipt --rpc-url "$url" "$tx" status) =~ ^(true|1) ]] || { echo "mix set-up transaction $tx failed" >&2; return 1; }
	done
	sealed "$url" "${txs[-1]}" || return 1
	echo "$TOKEN_A $TOKEN_B $POOL"
}

# sealed URL TX waits until the block of transaction TX is the latest block or below it.
sealed() {
	for _ in $(seq 300); do
		[[ $("$CAST" block-number --rpc-url "$1") -ge $("$CAST" receipt --rpc-url "$1" "$2" blockNumber) ]] &&
			[[ $("$CAST" receipt --rpc-url "$1" "$2" blockHash) != 0x0000000000000000000000000000000000000000000000000000000000000000 ]] &&
			return
		sleep 0.1
	done
	echo "transaction $2 not sealed after 30 s" >&2
	return 1
}

# --- measuring ---------------------------------------------------------------

# group_cpu_ticks PGID prints utime+stime, in clock ticks, summed over the live
# processes of process group PGID.
group_cpu_ticks() {
	local pid t=0 stat rest
	for pid in $(pgrep -g "$1"); do
		stat=$(<"/proc/$pid/stat") 2>/dev/null || continue
		rest=${stat##*) } # fields from "state" on; comm may contain spaces
		read -r -a f <<<"$rest"
		t=$((t + f[11] + f[12])) # utime, stime
	done
	echo "$t"
}

# to_ms VALUE converts a wrk latency ("84.00us", "1.51ms", "1.02s") to ms.
to_ms() {
	awk -v v="$1" 'BEGIN {
		if (v ~ /us$/) printf "%.3f", v / 1000
		else if (v ~ /ms$/) printf "%.3f", v + 0
		else if (v ~ /m$/) printf "%.3f", v * 60000
		else if (v ~ /s$/) printf "%.3f", v * 1000
		else printf "NaN"
	}'
}

# machine_ticks prints "busy steal": clock ticks all CPUs spent busy (user,
# nice, system, irq, softirq) and ticks stolen by the hypervisor, since boot.
machine_ticks() {
	awk '$1 == "cpu" {print $2 + $3 + $4 + $7 + $8, $9; exit}' /proc/stat
}

# children_ticks prints the CPU ticks (cutime + cstime) of this shell's reaped
# descendants, which include wrk once it has exited.
children_ticks() {
	local stat rest
	stat=$(<"/proc/$$/stat")
	rest=${stat##*) }
	read -r -a f <<<"$rest"
	echo $((f[13] + f[14]))
}

# run_wrk SERVER URL BODY ROUND runs one measurement and appends a line
# "body server round req/s p50 p99 server_cpu_s wrk_cpu_s other_cpu_s steal_s
# errors" to $RAW. other_cpu_s is the machine's busy time minus the server's
# and wrk's: interrupt time no process was charged for (loopback TCP), plus
# builds or tests running beside the benchmark.
run_wrk() {
	local server=$1 url=$2 name=$3 round=$4 body out pg t0 t1 m0 m1 c0 c1 wrk_pin=()
	body=$(body_"$name")
	[[ -z $PIN ]] || wrk_pin=(taskset -c "$WRK_CPUS")
	pg=$(pgid_of "$server")
	t0=$(group_cpu_ticks "$pg")
	c0=$(children_ticks)
	m0=$(machine_ticks)
	out=$(RPC_BODY=$body timeout $((DURATION + 20)) "${wrk_pin[@]}" wrk -t"$WRK_THREADS" -c"$WRK_CONNS" \
		-d"${DURATION}s" --latency -s "$LUA" "$url") || die "wrk failed for $name on $server: $out"
	m1=$(machine_ticks)
	t1=$(group_cpu_ticks "$pg")
	c1=$(children_ticks)
	local rps p50 p99 errs
	rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
	p50=$(to_ms "$(awk '$1 == "50%" {print $2}' <<<"$out")")
	p99=$(to_ms "$(awk '$1 == "99%" {print $2}' <<<"$out")")
	errs=$(awk '/Non-2xx|Socket errors/ {printf "%s%s", sep, $0; sep="; "}' <<<"$out" | sed 's/^ *//')
	[[ -n $rps ]] || die "could not parse wrk output: $out"
	local cpu wrkcpu other steal
	read -r cpu wrkcpu other steal < <(awk -v s=$((t1 - t0)) -v w=$((c1 - c0)) -v a="$m0" -v b="$m1" \
		-v hz="$(getconf CLK_TCK)" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		o = (y[1] - x[1]) - s - w; if (o < 0) o = 0
		printf "%.2f %.2f %.2f %.2f\n", s / hz, w / hz, o / hz, (y[2] - x[2]) / hz }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$server" "$round" "$rps" "$p50" "$p99" \
		"$cpu" "$wrkcpu" "$other" "$steal" "${errs:--}" >>"$RAW"
	printf '  %-18s %-10s round %d: %8.0f req/s  p50 %s ms  p99 %s ms  CPU-s: server %s, wrk %s, other %s, steal %s%s\n' \
		"$name" "$server" "$round" "$rps" "$p50" "$p99" "$cpu" "$wrkcpu" "$other" "$steal" "${errs:+  ($errs)}"
}

pgid_of() {
	local v="PGID_${1//-/_}"
	echo "${!v}"
}

# check_body SERVER URL NAME checks with curl that the body returns "result"
# and records the response size.
check_body() {
	local server=$1 url=$2 name=$3 resp
	resp=$(curl -sf -m 5 -H 'Content-Type: application/json' -d "$(body_"$name")" "$url") ||
		die "$name on $server: HTTP request failed"
	grep -q '"result"' <<<"$resp" || die "$name on $server: no \"result\" in response: ${resp:0:300}"
	! grep -q '"error"' <<<"$resp" || die "$name on $server: error in response: ${resp:0:300}"
	printf -v "BYTES_${name}_${server//-/_}" %s "$(printf %s "$resp" | wc -c)"
	printf '  %-18s %-10s %6d bytes\n' "$name" "$server" "$(printf %s "$resp" | wc -c)"
}

bytes_of() {
	local v="BYTES_${1}_${2//-/_}"
	echo "${!v:-?}"
}

# --- report ------------------------------------------------------------------

# stats prints "median min max" of the numbers on stdin.
stats() {
	sort -g | awk '{v[NR] = $1} END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%s %s %s\n", m, v[1], v[NR]
	}'
}

machine_info() {
	local cpu anvil_v go_v wrk_v rev
	cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
	anvil_v=$("$ANVIL" --version | head -n 1)
	go_v=$(go version 2>/dev/null || echo "go: not found")
	wrk_v=$(dpkg-query -W -f '${Version}' wrk 2>/dev/null || wrk -v 2>&1 | head -n 1)
	rev=$(git rev-parse --short HEAD 2>/dev/null || echo "no commit")
	git diff --quiet HEAD 2>/dev/null || rev="$rev (+ uncommitted changes)"
	cat <<EOF
- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)
- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, $(uname -sr)
- $go_v; $anvil_v; wrk $wrk_v; flashrpc $rev
$([[ $ONLY == anvil ]] || echo "- $FLASHRPC_LABEL: ${FLASHRPC_CMD:-.tools/flashrpc dev --http.port 18645 --preconf.port 18647 --feed.port 18648}, measured at $FLASHRPC_URL")
$([[ $ONLY == flashrpc ]] || echo "- anvil: anvil --port $ANVIL_PORT --block-time 1")
- wrk -t$WRK_THREADS -c$WRK_CONNS -d${DURATION}s --latency, $ROUNDS rounds per server and body, servers alternating, ${GAP} s gap
- CPU pinning: $([[ -n $PIN ]] && echo "servers on CPU $SERVER_CPUS, wrk on CPU $WRK_CPUS (taskset); one server loaded at a time" || echo "none")
- other processes: $(disturbance)
EOF
}

# disturbance summarises the CPU used by other processes during the runs.
disturbance() {
	awk -F'\t' -v d="$DURATION" '{
		n++; if ($9 > m) m = $9; if ($9 > 0.1 * d) bad++
	} END {
		printf "at most %.2f CPU-s in a %d s run; %d of %d runs above %.1f CPU-s", m, d, bad, n, 0.1 * d
		if (bad) printf " (**noisy: something else ran during the benchmark**)"
	}' "$RAW"
}

# preflight warns when other processes keep the machine busy.
preflight() {
	local a b
	a=$(machine_ticks)
	sleep 1
	b=$(machine_ticks)
	awk -v a="$a" -v b="$b" -v hz="$(getconf CLK_TCK)" 'BEGIN {
		split(a, x, " "); split(b, y, " "); u = (y[1] - x[1]) / hz
		if (u > 0.2) printf "bench: warning: the machine is busy (%.0f %% of a CPU before starting); results will be noisy\n", u * 100 > "/dev/stderr"
	}'
}

report() {
	local name server rps p50 p99 cpu
	echo "## Results"
	echo
	machine_info
	echo
	echo "| method | server | req/s median (min–max) | p50 / p99 ms (median) | response bytes | req per server CPU-s (median) |"
	echo "|---|---|---|---|---|---|"
	for name in "${SELECTED[@]}"; do
		for server in "${SERVERS[@]}"; do
			read -r rps rmin rmax < <(awk -F'\t' -v b="$name" -v s="$server" '$1 == b && $2 == s {print $4}' "$RAW" | stats)
			read -r p50 _ < <(awk -F'\t' -v b="$name" -v s="$server" '$1 == b && $2 == s {print $5}' "$RAW" | stats)
			read -r p99 _ < <(awk -F'\t' -v b="$name" -v s="$server" '$1 == b && $2 == s {print $6}' "$RAW" | stats)
			read -r cpu _ < <(awk -F'\t' -v b="$name" -v s="$server" '$1 == b && $2 == s && $7 > 0 {print $4 * '"$DURATION"' / $7}' "$RAW" | stats)
			printf '| %s | %s | %s (%s–%s) | %.3f / %.3f | %s | %s |\n' "$name" "$server" \
				"$(fmt_int "$rps")" "$(fmt_int "$rmin")" "$(fmt_int "$rmax")" "$p50" "$p99" \
				"$(bytes_of "$name" "$server")" "$(fmt_int "${cpu:-0}")"
		done
	done
	echo
	echo "Runs in order. CPU-seconds during each run: the server's process group, wrk, the rest"
	echo "of the machine's busy time (other processes, uncharged interrupts), and time stolen by"
	echo "the hypervisor."
	echo
	echo '```'
	{
		printf 'body\tserver\tround\treq/s\tp50_ms\tp99_ms\tserver_cpu_s\twrk_cpu_s\tother_cpu_s\tsteal_s\twrk_errors\n'
		cat "$RAW"
	} | { column -t -s $'\t' 2>/dev/null || cat; }
	echo '```'
}

# fmt_int prints a number rounded, with thousands separators.
fmt_int() { LC_ALL=C awk -v v="$1" 'BEGIN {
	s = sprintf("%.0f", v); out = ""
	while (length(s) > 3) { out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
	print s out
}'; }

# --- main --------------------------------------------------------------------

main() {
	parse_args "$@"
	install_tools
	preflight
	RAW=$BENCH_DIR/raw.tsv
	: >"$RAW"

	SERVERS=()
	URLS=()
	if [[ $ONLY != anvil ]]; then
		local cmd=${FLASHRPC_CMD:-}
		if [[ -z $cmd ]]; then
			echo "building ./cmd/flashrpc …"
			go build -o .tools/flashrpc ./cmd/flashrpc
			cmd=".tools/flashrpc dev --http.port 18645 --preconf.port 18647 --feed.port 18648"
		fi
		start "$FLASHRPC_LABEL" "$FLASHRPC_URL" "$cmd"
		SERVERS+=("$FLASHRPC_LABEL")
		URLS+=("$FLASHRPC_URL")
	fi
	if [[ $ONLY != flashrpc ]]; then
		start anvil "$ANVIL_URL" "$ANVIL --port $ANVIL_PORT --block-time 1"
		SERVERS+=(anvil)
		URLS+=("$ANVIL_URL")
	fi

	local i
	declare -A contract txhash mix
	for i in "${!SERVERS[@]}"; do
		contract[${SERVERS[i]}]=$(deploy "${URLS[i]}") || die "deploy on ${SERVERS[i]} failed"
		echo "contract on ${SERVERS[i]}: ${contract[${SERVERS[i]}]}"
		txhash[${SERVERS[i]}]=$(call_tx "${URLS[i]}" "${contract[${SERVERS[i]}]}") || die "call on ${SERVERS[i]} failed"
		echo "traced call on ${SERVERS[i]}: ${txhash[${SERVERS[i]}]}"
		if [[ " ${SELECTED[*]} " == *" simulateV1_3x10_mix "* ]]; then
			mix[${SERVERS[i]}]=$(deploy_mix "${URLS[i]}") || die "mix set-up on ${SERVERS[i]} failed"
			echo "mix contracts (token A, token B, pool) on ${SERVERS[i]}: ${mix[${SERVERS[i]}]}"
		fi
	done

	echo "response sizes (curl):"
	local name round
	for name in "${SELECTED[@]}"; do
		for i in "${!SERVERS[@]}"; do
			CONTRACT=${contract[${SERVERS[i]}]} TXHASH=${txhash[${SERVERS[i]}]}
			read -r TOKEN_A TOKEN_B POOL <<<"${mix[${SERVERS[i]}]:-}"
			check_body "${SERVERS[i]}" "${URLS[i]}" "$name"
		done
	done

	echo "measuring (${#SELECTED[@]} bodies × ${#SERVERS[@]} servers × $ROUNDS rounds × ${DURATION} s):"
	for name in "${SELECTED[@]}"; do
		for round in $(seq "$ROUNDS"); do
			for i in "${!SERVERS[@]}"; do
				CONTRACT=${contract[${SERVERS[i]}]} TXHASH=${txhash[${SERVERS[i]}]}
				read -r TOKEN_A TOKEN_B POOL <<<"${mix[${SERVERS[i]}]:-}"
				sleep "$GAP"
				run_wrk "${SERVERS[i]}" "${URLS[i]}" "$name" "$round"
			done
		done
	done

	echo
	report | tee "$OUT"
	echo
	echo "written to $OUT"
}

main "$@"
