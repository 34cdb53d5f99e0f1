#!/usr/bin/env bash
# cast-demo.sh shows flashrpc from a user's seat: it starts a dev node and
# drives it with Foundry's cast 1.7.1 through both endpoints, the standard one
# (sealed blocks, every 2 s) and the pre-confirmed one (every 200 ms).
#
# Usage: scripts/cast-demo.sh            (from anywhere; works in the repo root)
#
# Environment:
#   FLASHRPC_CMD          command that starts the node instead of building
#                         ./cmd/flashrpc and running `.tools/flashrpc dev`
#                         (e.g. an anvil stand-in, see scripts/README.md)
#   FLASHRPC_RPC_URL      standard endpoint      (default http://127.0.0.1:8545)
#   FLASHRPC_PRECONF_URL  pre-confirmed endpoint (default http://127.0.0.1:8547)
#   CAST                  cast binary (default: installed into .tools/foundry by npm)
#
# Exits non-zero as soon as a step fails; the node is stopped on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

RPC=${FLASHRPC_RPC_URL:-http://127.0.0.1:8545}
PRECONF=${FLASHRPC_PRECONF_URL:-http://127.0.0.1:8547}
FOUNDRY_DIR=.tools/foundry
CAST=${CAST:-$FOUNDRY_DIR/node_modules/@foundry-rs/cast-linux-amd64/bin/cast}
LOG=.tools/cast-demo-node.log

# Dev account 0 of the test mnemonic (public, well known; never use on a real chain).
DEV0=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
DEV0_KEY=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80
RECIPIENT=0x000000000000000000000000000000000000dEaD

# Contract, hand-assembled (23 bytes of init code + runtime). Every call emits
# one LOG1 whose topic is the caller and whose data is the calldata.
#
#   init code (11 bytes): copy the runtime to memory and return it
#     600c  PUSH1 0x0c    runtime length
#     80    DUP1
#     600b  PUSH1 0x0b    runtime offset in this code
#     6000  PUSH1 0
#     39    CODECOPY      mem[0:12] = code[11:23]
#     6000  PUSH1 0
#     f3    RETURN        return mem[0:12]
#   runtime (12 bytes):
#     36    CALLDATASIZE
#     6000  PUSH1 0
#     6000  PUSH1 0
#     37    CALLDATACOPY  mem[0:size] = calldata
#     33    CALLER        topic0 = msg.sender
#     36    CALLDATASIZE
#     6000  PUSH1 0
#     a1    LOG1          log(mem[0:size], caller)
#     00    STOP
INITCODE=0x600c80600b6000396000f3
RUNTIME=36600060003733366000a100
BYTECODE=$INITCODE$RUNTIME

NODE_PID=
cleanup() {
	local rc=$?
	if [[ -n $NODE_PID ]] && kill -0 "$NODE_PID" 2>/dev/null; then
		# The node runs in its own process group (setsid); stop that group only.
		kill -TERM -- "-$NODE_PID" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$NODE_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL -- "-$NODE_PID" 2>/dev/null || true
	fi
	if ((rc != 0)); then
		echo "cast-demo: FAILED (exit $rc); node log: $LOG" >&2
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	echo "cast-demo: $*" >&2
	exit 1
}

now_ms() { date +%s%3N; }

# cast runs the cast binary; a function so that printed commands read "cast …".
cast() { "$CAST" "$@"; }

# step TITLE EXPLANATION CMD... prints the step, runs CMD, prints its output
# indented with the elapsed time, and leaves the output in $OUT. A failing CMD
# ends the script.
OUT=
step() {
	local title=$1 why=$2
	shift 2
	local shown="$*"
	shown=${shown//$DEV0_KEY/\$DEV0_KEY}
	printf '\n==> %s\n    %s\n    $ %s\n' "$title" "$why" "$shown"
	local t0 rc=0
	t0=$(now_ms)
	OUT=$("$@" 2>&1) || rc=$?
	# logsBloom lines are 512 hex digits of zeros here; leave them out.
	[[ -n $OUT ]] && printf '%s\n' "$OUT" | sed -e '/^ *logsBloom /d' -e 's/^/    | /'
	printf '    (%d ms)\n' "$(($(now_ms) - t0))"
	((rc == 0)) || die "step \"$title\" failed (exit $rc)"
}

# check CONDITION-DESCRIPTION CMD... fails the script unless CMD succeeds.
check() {
	local what=$1
	shift
	"$@" || die "check failed: $what"
}

rpc_answers() {
	curl -sf -m 1 -H 'Content-Type: application/json' \
		-d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' "$1" 2>/dev/null | grep -q '"result"'
}

install_cast() {
	[[ -x $CAST ]] && return
	command -v npm >/dev/null || die "npm is needed to install cast (apt-get install -y npm)"
	echo "installing cast 1.7.1 into $FOUNDRY_DIR …"
	mkdir -p "$FOUNDRY_DIR"
	npm install --silent --prefix "$FOUNDRY_DIR" @foundry-rs/cast-linux-amd64@1.7.1 >/dev/null
	[[ -x $CAST ]] || die "cast not found at $CAST after npm install"
}

start_node() {
	local url
	for url in "$RPC" "$PRECONF"; do
		! rpc_answers "$url" || die "something already answers on $url; stop it first"
	done
	mkdir -p .tools
	local cmd=${FLASHRPC_CMD:-}
	if [[ -z $cmd ]]; then
		echo "building ./cmd/flashrpc …"
		go build -o .tools/flashrpc ./cmd/flashrpc
		cmd=".tools/flashrpc dev"
	fi
	echo "starting node: $cmd  (log: $LOG)"
	setsid bash -c "exec $cmd" >"$LOG" 2>&1 &
	NODE_PID=$!
	local deadline=$(($(now_ms) + 30000))
	until rpc_answers "$RPC" && rpc_answers "$PRECONF"; do
		if ! kill -0 "$NODE_PID" 2>/dev/null; then
			tail -n 20 "$LOG" >&2
			die "node exited before answering"
		fi
		(($(now_ms) < deadline)) || die "node did not answer on $RPC and $PRECONF within 30 s"
		sleep 0.1
	done
	echo "node answers on $RPC (standard) and $PRECONF (pre-confirmed)"
}

# wait_code URL BLOCK ADDR polls eth_getCode until ADDR has code at BLOCK
# (at most 10 s) and prints how long that took.
wait_code() {
	local url=$1 block=$2 addr=$3 t0 code
	t0=$(now_ms)
	while :; do
		code=$(cast code --rpc-url "$url" --block "$block" "$addr") || return 1
		[[ $code != 0x ]] && break
		(($(now_ms) - t0 < 10000)) || {
			echo "no code at $addr ($block) after 10 s"
			return 1
		}
		sleep 0.05
	done
	echo "$code"
	echo "code visible after $(($(now_ms) - t0)) ms of polling"
}

# wait_receipt URL TX polls for the receipt of TX (at most 10 s), prints it
# and how long that took.
wait_receipt() {
	local url=$1 tx=$2 t0 receipt
	t0=$(now_ms)
	until receipt=$(cast receipt --async --rpc-url "$url" "$tx" 2>/dev/null); do
		(($(now_ms) - t0 < 10000)) || {
			echo "no receipt for $tx after 10 s"
			return 1
		}
		sleep 0.02
	done
	echo "$receipt"
	echo "receipt visible after $(($(now_ms) - t0)) ms of polling"
}

main() {
	install_cast
	start_node

	step "chain id" "Both endpoints serve the same dev chain (flashrpc default: 1337)." \
		cast chain-id --rpc-url "$PRECONF"
	step "dev account 0" "Funded at genesis from the test mnemonic (10,000 ETH)." \
		cast balance --ether --rpc-url "$RPC" "$DEV0"

	step "transfer" "Send 1 ETH via the standard endpoint; cast waits for the receipt of the sealed block (up to one 2 s block)." \
		cast send --rpc-url "$RPC" --private-key "$DEV0_KEY" "$RECIPIENT" --value 1ether
	check "transfer status 1" grep -Eq '^status +1' <<<"$OUT"

	local nonce addr
	nonce=$(cast nonce --rpc-url "$RPC" "$DEV0")
	addr=$(cast compute-address --nonce "$nonce" "$DEV0" | grep -Eo '0x[0-9a-fA-F]{40}')

	step "deploy (async)" "Submit the contract creation without waiting; it returns the transaction hash at once." \
		cast send --async --rpc-url "$RPC" --private-key "$DEV0_KEY" --create "$BYTECODE"
	local deploy_tx=$OUT
	[[ $deploy_tx =~ ^0x[0-9a-fA-F]{64}$ ]] || die "unexpected deploy output: $deploy_tx"

	step "pending code" "The pre-confirmed endpoint serves the new code at \"pending\" within a 200 ms pre-confirmation, before the block is sealed." \
		wait_code "$PRECONF" pending "$addr"
	check "runtime code matches" grep -qi "^0x$RUNTIME\$" <<<"$OUT"

	step "pending block" "The pending block on the pre-confirmed endpoint: latest+1 with the transactions pre-confirmed so far." \
		cast block pending --rpc-url "$PRECONF"

	# The deployment may not be sealed yet, so take the nonce from the pending
	# state explicitly (cast itself asks for the "latest" nonce).
	nonce=$(cast nonce --block pending --rpc-url "$PRECONF" "$DEV0")
	step "call that logs (async)" "Call the contract via the pre-confirmed endpoint (nonce $nonce from the pending state) without waiting." \
		cast send --async --rpc-url "$PRECONF" --private-key "$DEV0_KEY" --nonce "$nonce" "$addr" "ping(uint256)" 42
	local call_tx=$OUT
	[[ $call_tx =~ ^0x[0-9a-fA-F]{64}$ ]] || die "unexpected call output: $call_tx"

	# A plain `cast send` to the pre-confirmed endpoint would return at the
	# pre-confirmation too; polling `cast receipt --async` after an --async
	# send shows when the pre-confirmed receipt appears.
	step "pre-confirmed receipt" "Poll the pre-confirmed endpoint for the receipt: it appears within one 200 ms pre-confirmation, before the block is sealed." \
		wait_receipt "$PRECONF" "$call_tx"
	check "call status 1" grep -Eq '^status +1' <<<"$OUT"

	step "logs" "eth_getLogs for the contract up to \"pending\": the log (topic = caller, data = calldata) is visible once pre-confirmed." \
		cast logs --rpc-url "$PRECONF" --from-block 0 --to-block pending --address "$addr"
	check "one log from the contract" grep -qi "$addr" <<<"$OUT"

	step "receipt (standard)" "The same transaction through the standard endpoint: cast waits until it is in a sealed block." \
		cast receipt --rpc-url "$RPC" "$call_tx"
	check "receipt status 1" grep -Eq '^status +1' <<<"$OUT"

	step "deploy receipt" "The contract creation's receipt names the contract address." \
		cast receipt --rpc-url "$RPC" "$deploy_tx" contractAddress
	check "contract address $addr" grep -qi "^$addr\$" <<<"$OUT"

	step "balance" "The recipient holds the 1 ETH sent in the first step." \
		cast balance --ether --rpc-url "$RPC" "$RECIPIENT"
	check "recipient has 1 ETH" grep -Eq '^1(\.0+)?$' <<<"$OUT"

	printf '\ncast-demo: all steps passed\n'
}

main "$@"
