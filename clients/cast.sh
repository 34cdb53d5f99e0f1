#!/usr/bin/env bash
# cast.sh: the client suite's scenarios with Foundry's cast 1.7.1, against both endpoints of
# fresh flashrpc dev nodes (manual mode: dev_preconfirm / dev_seal through `cast rpc`; and one
# node on the default 200 ms / 2 s timing). Prints `PASS name (N ms)` or `FAIL name (N ms)` and
# the failure's output per scenario, then `cast: N passed, M failed`; exits 1 on any failure.
#
# Usage: clients/cast.sh [SCENARIO…]   (after `npm ci` in clients/, which installs cast)
#
# Environment:
#   CAST          cast binary (default: clients/node_modules/@foundry-rs/cast-linux-amd64/bin/cast)
#   FORGE         forge binary (default: clients/node_modules/@foundry-rs/forge-linux-amd64/bin/forge)
#   FLASHRPC_BIN  flashrpc binary (default: .tools/flashrpc, built from ./cmd/flashrpc if missing)
#
# What cast 1.7.1 does that shapes these scenarios:
#   - cast send takes the nonce from eth_getTransactionCount(…, "latest"), so a second send before
#     the first is pre-confirmed needs --nonce from `cast nonce --block pending` (send_async does
#     that); on the pre-confirmed endpoint `latest` counts pre-confirmed transactions, so sends
#     that each wait for their receipt need nothing (send-back-to-back);
#   - cast send estimates gas on "pending"; cast estimate and cast call use "latest" unless
#     --block says otherwise; cast sends both `input` and `data` in call objects;
#   - cast waits for receipts by watching blocks: a plain cast send returns once sealed;
#   - cast has no new-block watcher: ws-watch-blocks subscribes to newHeads with `cast rpc` over
#     WebSocket; ws-watch-events streams logs with `cast logs --subscribe`.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CAST=${CAST:-$ROOT/clients/node_modules/@foundry-rs/cast-linux-amd64/bin/cast}
FORGE=${FORGE:-$ROOT/clients/node_modules/@foundry-rs/forge-linux-amd64/bin/forge}
BIN=${FLASHRPC_BIN:-$ROOT/.tools/flashrpc}
ARTIFACT=$ROOT/clients/contracts/ClientSuite.json

# Dev accounts 0-2 of the test mnemonic (public and well known; never use on a real chain).
K0=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80
K1=0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d
K2=0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a
DEV0=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
DEV1=0x70997970C51812dc3A010C7d01b50e0d17dc79C8
SINK=0x000000000000000000000000000000000000dEaD
REASON="ClientSuite: value too large"
TRANSFER="Transfer(address indexed from, address indexed to, uint256 value)"

for tool in jq curl; do
	command -v "$tool" >/dev/null || { echo "cast.sh: $tool is required" >&2; exit 2; }
done
[[ -x $CAST ]] || { echo "cast.sh: no cast at $CAST (run npm ci in clients/)" >&2; exit 2; }
BYTECODE=$(jq -r .bytecode "$ARTIFACT")
RUNTIME=$(jq -r .deployedBytecode "$ARTIFACT")

now_ms() { date +%s%3N; }
cast() { "$CAST" "$@"; }

# ---- nodes ----------------------------------------------------------------------------------

NODE_PID= STD= PRE= STD_WS= PRE_WS=

# start_node NAME [manual|default] starts `flashrpc dev` on random ports in its own process
# group and sets STD, PRE, STD_WS and PRE_WS from its banner.
start_node() {
	local name=$1 timing=${2:-manual} log=$ROOT/.tools/clients-$1.log
	local args=(dev --http.port 0 --preconf.port 0 --feed.port 0)
	[[ $timing == manual ]] && args+=(--block-time 0 --preconf-interval 0)
	[[ -n ${FLASHRPC_CHAIN_TYPE:-} ]] && args+=(--chain-type "$FLASHRPC_CHAIN_TYPE")
	[[ -n ${FLASHRPC_NETWORK:-} ]] && args+=(--network "$FLASHRPC_NETWORK")
	setsid "$BIN" "${args[@]}" >"$log" 2>&1 &
	NODE_PID=$!
	local deadline=$(($(now_ms) + 30000))
	until [[ -n $STD && -n $PRE ]]; do
		STD=$(awk '/^ *standard /{print $2; exit}' "$log")
		PRE=$(awk '/^ *pre-confirmed /{print $2; exit}' "$log")
		kill -0 "$NODE_PID" 2>/dev/null || { cat "$log" >&2; echo "cast.sh: node $name exited" >&2; return 1; }
		(($(now_ms) < deadline)) || { echo "cast.sh: node $name printed no banner" >&2; return 1; }
		sleep 0.05
	done
	STD_WS=${STD/http:/ws:} PRE_WS=${PRE/http:/ws:}
	until cast chain-id --rpc-url "$PRE" >/dev/null 2>&1; do sleep 0.05; done
}

stop_node() {
	[[ -n $NODE_PID ]] || return 0
	kill -TERM -- "-$NODE_PID" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$NODE_PID" 2>/dev/null || break; sleep 0.1; done
	kill -KILL -- "-$NODE_PID" 2>/dev/null
	wait "$NODE_PID" 2>/dev/null
	NODE_PID= STD= PRE= STD_WS= PRE_WS=
}
trap stop_node EXIT

preconfirm() { cast rpc --rpc-url "$PRE" dev_preconfirm >/dev/null; }
seal() { cast rpc --rpc-url "$STD" dev_seal >/dev/null; }

# with_sealer CMD… runs CMD while pre-confirming and sealing every 100 ms, as the default timing
# would, so a cast command that waits for a sealed receipt returns.
with_sealer() {
	(while :; do preconfirm; seal; sleep 0.1; done) >/dev/null 2>&1 &
	local sealer=$! rc=0
	"$@" || rc=$?
	kill "$sealer" 2>/dev/null
	wait "$sealer" 2>/dev/null
	return $rc
}

# with_preconfirmer CMD… runs CMD while pre-confirming (never sealing) every 100 ms.
with_preconfirmer() {
	(while :; do preconfirm; sleep 0.1; done) >/dev/null 2>&1 &
	local pre=$! rc=0
	"$@" || rc=$?
	kill "$pre" 2>/dev/null
	wait "$pre" 2>/dev/null
	return $rc
}

# ---- checks ---------------------------------------------------------------------------------

fail() {
	echo "$*" >&2
	exit 1
}
expect_eq() { [[ $1 == "$2" ]] || fail "$3: got '$1', want '$2'"; }
expect_eqi() { [[ ${1,,} == "${2,,}" ]] || fail "$3: got '$1', want '$2'"; }

# revert_data CMD… runs CMD, which must fail with "execution reverted", and prints the revert
# data from cast's error message.
revert_data() {
	local out
	if out=$("$@" 2>&1); then fail "$* succeeded, want a revert"; fi
	[[ $out == *"execution reverted"* ]] || fail "$*: $out"
	grep -o 'data: "0x[0-9a-fA-F]*"' <<<"$out" | grep -o '0x[0-9a-fA-F]*'
}

# send_async KEY URL ARGS… sends without waiting, with the nonce from the pending state, and
# prints the transaction hash.
send_async() {
	local key=$1 url=$2 from nonce
	shift 2
	from=$(cast wallet address --private-key "$key")
	nonce=$(cast nonce --block pending --rpc-url "$url" "$from")
	cast send --async --private-key "$key" --nonce "$nonce" --rpc-url "$url" "$@"
}

receipt_field() { cast receipt --async --json --rpc-url "$1" "$2" | jq -r ".$3"; }

# deploy_sealed [START] deploys ClientSuite(START) from dev account 0, pre-confirms and seals,
# and prints its address.
deploy_sealed() {
	local h
	h=$(send_async "$K0" "$STD" --create "$BYTECODE" "constructor(uint256)" "${1:-7}")
	preconfirm
	seal
	[[ $(receipt_field "$STD" "$h" status) == 0x1 ]] || fail "deployment failed"
	receipt_field "$STD" "$h" contractAddress
}

# ---- scenarios ------------------------------------------------------------------------------

sc_chain_id() {
	for url in "$STD" "$PRE"; do
		expect_eq "$(cast chain-id --rpc-url "$url")" 1337 "chain-id $url"
	done
}

sc_blocks_by_tag() {
	local url tag n h head_n head_h pending_h
	for url in "$STD" "$PRE"; do
		for tag in latest earliest safe finalized pending; do
			n=$(cast block "$tag" -f number --rpc-url "$url")
			[[ $n =~ ^[0-9]+$ ]] || fail "$url block $tag: number '$n'"
		done
	done
	h=$(send_async "$K0" "$PRE" "$SINK" --value 1)
	preconfirm
	head_n=$(cast block latest -f number --rpc-url "$STD")
	head_h=$(cast block latest -f hash --rpc-url "$STD")
	expect_eq "$(cast block pending -f number --rpc-url "$PRE")" $((head_n + 1)) "pre-confirmed pending number"
	expect_eq "$(cast block pending -f parentHash --rpc-url "$PRE")" "$head_h" "pending parentHash"
	cast block pending --json --rpc-url "$PRE" | jq -e --arg h "$h" '.transactions | index($h)' >/dev/null ||
		fail "pending block does not list $h"
	# The standard endpoint's pending is the next block as forecast: nothing pre-confirmed.
	expect_eq "$(cast block pending -f number --rpc-url "$STD")" $((head_n + 1)) "standard pending number (the next block as forecast)"
	expect_eq "$(cast block pending -f parentHash --rpc-url "$STD")" "$head_h" "standard pending parentHash"
	cast block pending --json --rpc-url "$STD" | jq -e '.transactions | length == 0' >/dev/null ||
		fail "standard pending block lists transactions"
	expect_eq "$(cast block "$head_n" -f hash --rpc-url "$PRE")" "$head_h" "block by number"
	pending_h=$(cast block pending -f hash --rpc-url "$PRE")
	seal
	expect_eq "$(cast block latest -f hash --rpc-url "$STD")" "$pending_h" "sealed hash = last pre-confirmation hash"
}

sc_send_and_receipt() {
	# An OP Stack genesis gives 0x00…00-0x00…ff one wei each (precompile placeholders).
	local to=0x00000000000000000000000000000000000000c5 h r before
	before=$(cast balance --rpc-url "$STD" "$to")
	h=$(send_async "$K1" "$STD" "$to" --value 1ether)
	preconfirm
	expect_eq "$(receipt_field "$PRE" "$h" status)" 0x1 "pre-confirmed receipt status"
	! cast receipt --async --rpc-url "$STD" "$h" >/dev/null 2>&1 || fail "standard endpoint has a receipt before sealing"
	expect_eq "$(cast balance --block pending --rpc-url "$PRE" "$to")" $((before + 1000000000000000000)) "pending balance (pre-confirmed)"
	expect_eq "$(cast balance --block pending --rpc-url "$STD" "$to")" "$before" "pending balance (standard)"
	seal
	expect_eq "$(receipt_field "$STD" "$h" blockHash)" "$(cast block latest -f hash --rpc-url "$STD")" "sealed receipt blockHash"
	# A plain cast send waits for the sealed receipt.
	r=$(with_sealer cast send --json --private-key "$K1" --rpc-url "$STD" "$to" --value 1ether)
	expect_eq "$(jq -r .status <<<"$r")" 0x1 "cast send receipt status"
	expect_eq "$(jq -r .blockHash <<<"$r")" "$(cast block "$(jq -r .blockNumber <<<"$r")" -f hash --rpc-url "$STD")" "cast send receipt blockHash"
	expect_eq "$(cast balance --rpc-url "$STD" "$to")" $((before + 2000000000000000000)) "balance after sealing"
}

sc_nonce_pending() {
	local url n h1 h2
	for url in "$STD" "$PRE"; do
		n=$(cast nonce --block pending --rpc-url "$url" "$DEV0")
		h1=$(cast send --async --private-key "$K0" --nonce "$n" --rpc-url "$url" "$SINK" --value 1)
		expect_eq "$(cast nonce --block pending --rpc-url "$url" "$DEV0")" $((n + 1)) "$url pending nonce after one send"
		h2=$(send_async "$K0" "$url" "$SINK" --value 2)
		preconfirm
		for h in "$h1" "$h2"; do expect_eq "$(receipt_field "$PRE" "$h" status)" 0x1 "$url receipt"; done
	done
	seal
}

# Three plain cast sends back to back to the pre-confirmed endpoint: each waits for its
# pre-confirmed receipt, and the next reads its nonce at `latest`, which counts it there
# (decisions.md "Nonces on the pre-confirmed endpoint"); nothing is sealed meanwhile.
sc_send_back_to_back() {
	local n i r nonces=()
	n=$(cast nonce --rpc-url "$STD" "$DEV1")
	for i in 1 2 3; do
		r=$(with_preconfirmer cast send --json --private-key "$K1" --rpc-url "$PRE" "$SINK" --value "$i")
		expect_eq "$(jq -r .status <<<"$r")" 0x1 "send $i status"
		expect_eq "$(jq -r .blockHash <<<"$r")" 0x0000000000000000000000000000000000000000000000000000000000000000 "send $i receipt is pre-confirmed"
		nonces+=("$(cast tx --rpc-url "$PRE" "$(jq -r .transactionHash <<<"$r")" nonce)")
	done
	expect_eq "${nonces[*]}" "$n $((n + 1)) $((n + 2))" "nonces"
	expect_eq "$(cast nonce --rpc-url "$PRE" "$DEV1")" $((n + 3)) "latest nonce (pre-confirmed endpoint)"
	expect_eq "$(cast nonce --rpc-url "$STD" "$DEV1")" "$n" "latest nonce (standard endpoint)"
	seal
	expect_eq "$(cast nonce --rpc-url "$STD" "$DEV1")" $((n + 3)) "latest nonce after sealing"
}

# The node's signing methods, each verified by `cast wallet verify`, and cast's own
# eth_sendTransaction path (`cast send --unlocked --from`) from a dev account and from an
# impersonated one (cast rpc anvil_impersonateAccount).
TYPED='{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}],"Mail":[{"name":"to","type":"address"},{"name":"contents","type":"string"}]},"primaryType":"Mail","domain":{"name":"flashrpc","chainId":1337},"message":{"to":"0x000000000000000000000000000000000000dEaD","contents":"hello"}}'
sc_dev_accounts() {
	local url sig accounts r imp=0x000000000000000000000000000000000000a11e
	for url in "$STD" "$PRE"; do
		accounts=$(cast rpc --rpc-url "$url" eth_accounts)
		expect_eq "$(jq length <<<"$accounts")" 10 "$url eth_accounts"
		expect_eqi "$(jq -r '.[1]' <<<"$accounts")" "$DEV1" "$url eth_accounts[1]"
		sig=$(cast rpc --rpc-url "$url" eth_sign "$DEV1" 0x68656c6c6f | jq -r .)
		cast wallet verify --address "$DEV1" 0x68656c6c6f "$sig" >/dev/null || fail "$url eth_sign: cast wallet verify failed"
		sig=$(cast rpc --rpc-url "$url" personal_sign "hello flashrpc" "$DEV1" | jq -r .)
		cast wallet verify --address "$DEV1" "hello flashrpc" "$sig" >/dev/null || fail "$url personal_sign: cast wallet verify failed"
		sig=$(cast rpc --rpc-url "$url" eth_signTypedData_v4 "$DEV1" "$TYPED" | jq -r .)
		cast wallet verify --data --address "$DEV1" "$TYPED" "$sig" >/dev/null || fail "$url eth_signTypedData_v4 (string): cast wallet verify failed"
		sig=$(cast rpc --rpc-url "$url" --raw eth_signTypedData_v4 "[\"$DEV1\", $TYPED]" | jq -r .)
		cast wallet verify --data --address "$DEV1" "$TYPED" "$sig" >/dev/null || fail "$url eth_signTypedData_v4 (object): cast wallet verify failed"
		! cast wallet verify --address "$DEV0" "hello flashrpc" "$sig" >/dev/null 2>&1 || fail "a signature verified for the wrong address"
	done
	r=$(with_sealer cast send --json --unlocked --from "$DEV1" --rpc-url "$STD" "$imp" --value 1ether)
	expect_eq "$(jq -r .status <<<"$r")" 0x1 "cast send --unlocked from a dev account"
	cast rpc --rpc-url "$PRE" anvil_impersonateAccount "$imp" >/dev/null
	r=$(with_preconfirmer cast send --json --unlocked --from "$imp" --rpc-url "$PRE" "$SINK" --value 1)
	expect_eq "$(jq -r .status <<<"$r")" 0x1 "cast send --unlocked from an impersonated account"
	expect_eqi "$(jq -r .from <<<"$r")" "$imp" "impersonated receipt from"
	seal
	expect_eq "$(cast nonce --rpc-url "$STD" "$imp")" 1 "impersonated sender's sealed nonce"
	cast rpc --rpc-url "$PRE" anvil_stopImpersonatingAccount "$imp" >/dev/null
	! cast send --async --unlocked --from "$imp" --rpc-url "$PRE" "$SINK" --value 1 >/dev/null 2>&1 || fail "sent after stopImpersonating"
}

# forge script --broadcast of forge/Deploy.s.sol against the pre-confirmed endpoint: a
# deployment and three calls, sent by forge with consecutive nonces, each with a pre-confirmed
# receipt (nothing is sealed while forge runs). forge compiles with solcjs behind forge/solc
# (clients/foundry.toml).
sc_forge_script() {
	[[ -x $FORGE ]] || fail "no forge at $FORGE (run npm ci in clients/)"
	local n run addr dev2
	dev2=$(cast wallet address --private-key "$K2")
	n=$(cast nonce --rpc-url "$PRE" "$dev2")
	(cd "$ROOT/clients" && with_preconfirmer "$FORGE" script forge/Deploy.s.sol:Deploy --broadcast --rpc-url "$PRE" --private-key "$K2") >"$WORK/forge.out" 2>&1 ||
		fail "forge script failed: $(tail -n 20 "$WORK/forge.out")"
	run=$ROOT/.tools/forge-broadcast/Deploy.s.sol/1337/run-latest.json
	[[ -f $run ]] || fail "no broadcast record at $run"
	expect_eq "$(jq '.receipts | length' "$run")" 4 "receipts forge recorded"
	expect_eq "$(jq -r '[.receipts[].status] | unique | join(",")' "$run")" 0x1 "receipt statuses"
	expect_eq "$(jq -r '[.transactions[].transaction.nonce] | join(" ")' "$run")" "$(printf '0x%x 0x%x 0x%x 0x%x' "$n" $((n + 1)) $((n + 2)) $((n + 3)))" "nonces"
	addr=$(jq -r '.transactions[0].contractAddress' "$run")
	expect_eq "$(cast call --block pending --rpc-url "$PRE" "$addr" "count()(uint256)")" 42 "count after the script (pending)"
	seal
	expect_eq "$(cast call --rpc-url "$STD" "$addr" "count()(uint256)")" 42 "count after sealing"
	expect_eq "$(cast nonce --rpc-url "$STD" "$dev2")" $((n + 4)) "sealed nonce"
}

CONTRACT=
sc_deploy_and_call() {
	local h addr r
	h=$(send_async "$K0" "$PRE" --create "$BYTECODE" "constructor(uint256)" 7)
	preconfirm
	expect_eq "$(receipt_field "$PRE" "$h" status)" 0x1 "deployment status"
	addr=$(receipt_field "$PRE" "$h" contractAddress)
	expect_eq "$(cast call --block pending --rpc-url "$PRE" "$addr" "count()(uint256)")" 7 "count (pending)"
	h=$(send_async "$K0" "$PRE" "$addr" "setCount(uint256)" 42) # cast send estimates on pending
	preconfirm
	expect_eq "$(receipt_field "$PRE" "$h" status)" 0x1 "setCount status"
	expect_eq "$(cast call --block pending --rpc-url "$PRE" "$addr" "count()(uint256)")" 42 "count after setCount (pending)"
	seal
	expect_eq "$(cast call --rpc-url "$STD" "$addr" "count()(uint256)")" 42 "count (standard, sealed)"
	expect_eq "$(cast call --rpc-url "$STD" "$addr" "check(uint256)(uint256)" 21)" 42 "check(21)"
	r=$(with_sealer cast send --json --private-key "$K0" --rpc-url "$STD" "$addr" "setCount(uint256)" 43)
	expect_eq "$(jq -r .status <<<"$r")" 0x1 "cast send setCount(43)"
	expect_eq "$(cast call --rpc-url "$STD" "$addr" "count()(uint256)")" 43 "count after cast send"
	echo "$addr" >"$WORK/contract"
}

sc_estimate_gas_revert() {
	local addr url gas data
	addr=$(cat "$WORK/contract" 2>/dev/null) || addr=$(deploy_sealed)
	for url in "$STD" "$PRE"; do
		# cast estimate sends both `input` and `data`; the node takes them.
		gas=$(cast estimate --rpc-url "$url" "$addr" "setCount(uint256)" 5)
		((gas > 21000 && gas < 100000)) || fail "$url estimate $gas"
		data=$(revert_data cast estimate --rpc-url "$url" "$addr" "setCount(uint256)" 101)
		expect_eq "$(cast decode-error --sig "Error(string)" "$data")" "\"$REASON\"" "$url estimate revert reason"
		data=$(revert_data cast call --rpc-url "$url" "$addr" "check(uint256)(uint256)" 101)
		expect_eq "$(cast decode-error --sig "Error(string)" "$data")" "\"$REASON\"" "$url call revert reason"
		data=$(revert_data cast estimate --rpc-url "$url" "$addr" "setCountStrict(uint256)" 101)
		expect_eq "$(cast decode-error --sig "TooLarge(uint256,uint256)" "$data" | tr '\n' ' ')" "101 100 " "$url custom error"
		data=$(revert_data cast send --private-key "$K1" --rpc-url "$url" "$addr" "setCount(uint256)" 101)
		expect_eq "$(cast decode-error --sig "Error(string)" "$data")" "\"$REASON\"" "$url send revert reason"
	done
}

sc_pending_code() {
	local h addr
	h=$(send_async "$K1" "$STD" --create "$BYTECODE" "constructor(uint256)" 1)
	preconfirm
	addr=$(receipt_field "$PRE" "$h" contractAddress)
	expect_eq "$(cast code --block pending --rpc-url "$PRE" "$addr")" "$RUNTIME" "pending code (pre-confirmed)"
	expect_eq "$(cast code --block latest --rpc-url "$PRE" "$addr")" 0x "latest code before sealing"
	expect_eq "$(cast code --block pending --rpc-url "$STD" "$addr")" 0x "pending code (standard)"
	seal
	for url in "$STD" "$PRE"; do
		expect_eq "$(cast code --rpc-url "$url" "$addr")" "$RUNTIME" "$url code after sealing"
	done
}

sc_get_logs() {
	local addr r1=0x00000000000000000000000000000000000000a1 r2=0x00000000000000000000000000000000000000a2
	local r3=0x00000000000000000000000000000000000000a3 url head logs want
	addr=$(deploy_sealed 0)
	send_async "$K0" "$STD" "$addr" "transfer(address,uint256)" "$r1" 10 >/dev/null
	send_async "$K1" "$STD" "$addr" "transfer(address,uint256)" "$r2" 20 >/dev/null
	preconfirm
	seal
	head=$(cast block latest -f number --rpc-url "$STD")
	send_async "$K0" "$PRE" "$addr" "transfer(address,uint256)" "$r3" 30 >/dev/null
	preconfirm
	for url in "$STD" "$PRE"; do
		logs=$(cast logs --json --rpc-url "$url" --from-block 0 --to-block latest --address "$addr" "$TRANSFER")
		expect_eq "$(jq length <<<"$logs")" 2 "$url sealed logs"
		expect_eq "$(cast abi-decode "f()(uint256)" "$(jq -r '.[1].data' <<<"$logs")")" 20 "$url decoded value"
		logs=$(cast logs --json --rpc-url "$url" --from-block 0 --address "$addr" "$TRANSFER" "" "$r2")
		expect_eq "$(jq length <<<"$logs")" 1 "$url logs by indexed to"
		expect_eqi "$(cast parse-bytes32-address "$(jq -r '.[0].topics[1]' <<<"$logs")")" "$DEV1" "$url log by indexed to: from"
		want=2 && [[ $url == "$PRE" ]] && want=3
		logs=$(cast logs --json --rpc-url "$url" --from-block 0 --to-block pending --address "$addr" "$TRANSFER")
		expect_eq "$(jq length <<<"$logs")" "$want" "$url logs to pending"
	done
	logs=$(cast logs --json --rpc-url "$PRE" --from-block pending --to-block pending --address "$addr")
	expect_eq "$(jq length <<<"$logs")" 1 "pre-confirmed logs only"
	expect_eq "$(jq -r '.[0].blockNumber' <<<"$logs")" "$(cast to-hex $((head + 1)))" "pre-confirmed log blockNumber"
	seal
}

sc_ws_watch_blocks() {
	local ws id
	for ws in "$STD_WS" "$PRE_WS"; do
		id=$(cast rpc --rpc-url "$ws" eth_subscribe newHeads)
		[[ $id =~ ^\"0x[0-9a-f]+\"$ ]] || fail "$ws eth_subscribe newHeads: $id"
		expect_eq "$(cast block-number --rpc-url "$ws")" "$(cast block-number --rpc-url "$STD")" "$ws block number"
		expect_eq "$(cast block latest -f hash --rpc-url "$ws")" "$(cast block latest -f hash --rpc-url "$STD")" "$ws latest block"
	done
}

sc_ws_watch_events() {
	local addr to=0x00000000000000000000000000000000000000b1 pids=() ws i out
	addr=$(deploy_sealed 0)
	# The scenario runs in a subshell: stop the subscribers however it ends.
	trap 'kill "${SUBSCRIBERS[@]}" 2>/dev/null || true' EXIT
	for ws in "$STD_WS" "$PRE_WS"; do
		# "$CAST", not the cast function: $! must be cast's own PID for the kill below.
		"$CAST" logs --subscribe --rpc-url "$ws" --address "$addr" "$TRANSFER" "" "$to" >"$WORK/sub-${#pids[@]}" 2>&1 &
		pids+=($!)
		SUBSCRIBERS=("${pids[@]}")
	done
	# The subscriptions start asynchronously: emit matching events until both have streamed one.
	for i in $(seq 20); do
		send_async "$K0" "$STD" "$addr" "transfer(address,uint256)" "$SINK" 1 >/dev/null # filtered out
		send_async "$K1" "$STD" "$addr" "transfer(address,uint256)" "$to" 77 >/dev/null
		preconfirm
		seal
		sleep 0.3
		grep -q transactionHash "$WORK/sub-0" && grep -q transactionHash "$WORK/sub-1" && break
	done
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	for i in 0 1; do
		out=$(cat "$WORK/sub-$i")
		grep -q transactionHash <<<"$out" || fail "no log streamed over ${i/0/standard}${i/1/pre-confirmed} WebSocket: $out"
		grep -qi "0x000000000000000000000000${DEV0:2}" <<<"$out" && fail "a filtered-out log was streamed: $out"
		grep -q "data: 0x000000000000000000000000000000000000000000000000000000000000004d" <<<"$out" || fail "log data: $out"
	done
}

sc_simulate() {
	local addr head calls res data
	addr=$(cat "$WORK/contract" 2>/dev/null) || addr=$(deploy_sealed)
	send_async "$K0" "$PRE" "$addr" "setCount(uint256)" 9 >/dev/null
	preconfirm
	head=$(cast block latest -f number --rpc-url "$STD")
	calls=$(jq -nc --arg from "$DEV0" --arg to "$addr" --arg a "$(cast calldata "count()")" \
		--arg b "$(cast calldata "transfer(address,uint256)" "$SINK" 5)" --arg c "$(cast calldata "check(uint256)" 101)" \
		'{blockStateCalls: [{calls: [{from: $from, to: $to, data: $a}, {from: $from, to: $to, data: $b}, {from: $from, to: $to, data: $c}]}]}')
	res=$(cast rpc --rpc-url "$PRE" eth_simulateV1 "$calls" pending)
	expect_eq "$(jq -r '.[0].number' <<<"$res")" "$(cast to-hex $((head + 1)))" "simulated block number (block in progress)"
	expect_eq "$(cast abi-decode "f()(uint256)" "$(jq -r '.[0].calls[0].returnData' <<<"$res")")" 9 "count sees the pre-confirmed setCount"
	expect_eq "$(jq -r '.[0].calls[1].logs | length' <<<"$res")" 1 "transfer log"
	expect_eq "$(jq -r '.[0].calls[2].status' <<<"$res")" 0x0 "check(101) status"
	data=$(jq -r '.[0].calls[2].error.data' <<<"$res")
	expect_eq "$(cast decode-error --sig "Error(string)" "$data")" "\"$REASON\"" "simulated revert reason"
	! res=$(cast rpc --rpc-url "$STD" eth_simulateV1 "$calls" latest 2>&1) || fail "standard endpoint simulated: $res"
	[[ $res == *"error code -32601"* ]] || fail "standard endpoint: $res, want -32601"
	seal
}

sc_fee_data() {
	local url tag fh
	for url in "$STD" "$PRE"; do
		(($(cast gas-price --rpc-url "$url") > 0)) || fail "$url gas-price"
		for tag in latest pending; do
			(($(cast base-fee "$tag" --rpc-url "$url") > 0)) || fail "$url base-fee $tag"
			fh=$(cast rpc --rpc-url "$url" eth_feeHistory '"0x4"' "$tag" '[25,75]')
			(($(jq '.baseFeePerGas | length' <<<"$fh") >= 2)) || fail "$url feeHistory $tag: $fh"
			expect_eq "$(jq '.reward | length' <<<"$fh")" "$(jq '.gasUsedRatio | length' <<<"$fh")" "$url feeHistory $tag rewards"
		done
		(($(cast to-dec "$(cast rpc --rpc-url "$url" eth_maxPriorityFeePerGas | jq -r .)") > 0)) || fail "$url maxPriorityFeePerGas"
		(($(cast to-dec "$(cast rpc --rpc-url "$url" eth_blobBaseFee | jq -r .)") > 0)) || fail "$url blobBaseFee"
	done
}

sc_default_timing() {
	local url t0 r addr name times=()
	for url in "$STD" "$PRE"; do
		name=standard && [[ $url == "$PRE" ]] && name=pre-confirmed
		t0=$(now_ms)
		r=$(cast send --json --private-key "$K2" --rpc-url "$url" --create "$BYTECODE" "constructor(uint256)" 1)
		expect_eq "$(jq -r .status <<<"$r")" 0x1 "$url deployment"
		addr=$(jq -r .contractAddress <<<"$r")
		times+=("$name deploy $(($(now_ms) - t0)) ms,")
		t0=$(now_ms)
		# On the pre-confirmed endpoint cast's receipt can be pre-confirmed, not yet sealed; cast
		# takes the next nonce from "latest", which counts it there.
		r=$(cast send --json --private-key "$K2" --rpc-url "$url" "$addr" "setCount(uint256)" 3)
		expect_eq "$(jq -r .status <<<"$r")" 0x1 "$url setCount"
		times+=("$name call $(($(now_ms) - t0)) ms,")
		expect_eq "$(cast call --block pending --rpc-url "$url" "$addr" "count()(uint256)")" 3 "$url count"
	done
	echo "receipts: ${times[*]}"
}

# sc_denim: on `dev --network base-mainnet` (a block every 200 ms, no pre-confirmations; run
# alone, `cast.sh denim` with FLASHRPC_NETWORK=base-mainnet): deploy and send, each waiting
# for its receipt; the logs, decoded by cast and raw; eth_sendRawTransactionSync of a
# transaction made with cast mktx, answered with a receipt whose block is sealed; and Base's
# millisecond fields: timestampMs on blocks, 200 after the parent's and within the header's
# second, blockTimestampMs on the transaction and its logs (eth_getLogs and the receipt).
sc_denim() {
	local url r addr n hex prev ms b t tx logs signed synced deadline
	for url in "$STD" "$PRE"; do
		r=$(cast send --json --private-key "$K0" --rpc-url "$url" --create "$BYTECODE" "constructor(uint256)" 7)
		expect_eq "$(jq -r .status <<<"$r")" 0x1 "$url deployment"
		addr=$(jq -r .contractAddress <<<"$r")
		r=$(cast send --json --private-key "$K0" --rpc-url "$url" "$addr" "transfer(address,uint256)" "$SINK" 5)
		expect_eq "$(jq -r .status <<<"$r")" 0x1 "$url transfer"
		tx=$(jq -r .transactionHash <<<"$r")
		n=$(cast to-dec "$(jq -r .blockNumber <<<"$r")")
		logs=$(cast logs --json --rpc-url "$url" --from-block "$n" --to-block "$n" --address "$addr" "$TRANSFER" "$DEV0" "$SINK")
		expect_eq "$(jq length <<<"$logs")" 1 "$url cast logs"
		cast block "$n" --json --rpc-url "$url" >/dev/null || fail "$url: cast block $n does not parse"
		# Wait for block n+1, then check blocks n-1, n, n+1.
		deadline=$(($(now_ms) + 10000))
		until [[ $(cast rpc --rpc-url "$url" eth_getBlockByNumber "$(cast to-hex $((n + 1)))" false) != null ]]; do
			(($(now_ms) < deadline)) || fail "$url: block $((n + 1)) not sealed within 10 s"
			sleep 0.05
		done
		prev=
		for b in $((n - 1)) "$n" $((n + 1)); do
			r=$(cast rpc --rpc-url "$url" eth_getBlockByNumber "$(cast to-hex "$b")" false)
			ms=$(jq -r .timestampMs <<<"$r")
			[[ $ms =~ ^0x[0-9a-f]+$ ]] || fail "$url block $b: timestampMs '$ms'"
			ms=$(cast to-dec "$ms")
			t=$(cast to-dec "$(jq -r .timestamp <<<"$r")")
			expect_eq $((ms / 1000)) "$t" "$url block $b: timestampMs / 1000"
			[[ -z $prev ]] || expect_eq $((ms - prev)) 200 "$url block $b: timestampMs minus its parent's"
			prev=$ms
			[[ $b != "$n" ]] || hex=$(jq -r .timestampMs <<<"$r")
		done
		expect_eq "$(cast rpc --rpc-url "$url" eth_getTransactionByHash "$tx" | jq -r .blockTimestampMs)" "$hex" "$url transaction blockTimestampMs"
		expect_eq "$(cast rpc --rpc-url "$url" eth_getTransactionReceipt "$tx" | jq -r '.logs[0].blockTimestampMs')" "$hex" "$url receipt log blockTimestampMs"
		logs=$(cast rpc --rpc-url "$url" eth_getLogs "{\"fromBlock\":\"$(cast to-hex "$n")\",\"toBlock\":\"$(cast to-hex "$n")\",\"address\":\"$addr\"}")
		expect_eq "$(jq -r '.[0].blockTimestampMs' <<<"$logs")" "$hex" "$url eth_getLogs blockTimestampMs"

		signed=$(cast mktx --private-key "$K1" --rpc-url "$url" "$SINK" --value 1)
		synced=$(cast rpc --rpc-url "$url" eth_sendRawTransactionSync "$signed")
		expect_eq "$(jq -r .status <<<"$synced")" 0x1 "$url eth_sendRawTransactionSync status"
		b=$(jq -r .blockHash <<<"$synced")
		deadline=$(($(now_ms) + 5000))
		until [[ $(cast rpc --rpc-url "$STD" eth_getBlockByHash "$b" false) != null ]]; do
			(($(now_ms) < deadline)) || fail "$url eth_sendRawTransactionSync: its block $b is not sealed on the standard endpoint within 5 s"
			sleep 0.05
		done
		expect_eq "$(cast rpc --rpc-url "$STD" eth_getBlockByHash "$b" false | jq --arg h "$(jq -r .transactionHash <<<"$synced")" '[.transactions[] | select(. == $h)] | length')" 1 "$url synced transaction in its sealed block"
	done
}

# ---- runner ---------------------------------------------------------------------------------

PASSED=0 FAILED=0
WORK=$(mktemp -d)
trap 'stop_node; rm -rf "$WORK"' EXIT

# scenario NAME runs sc_NAME (dashes as underscores) with `set -e` in a subshell and reports it.
scenario() {
	local name=$1 t0 out rc
	t0=$(now_ms)
	out=$( (
		set -e
		"sc_${name//-/_}"
	) 2>&1)
	rc=$?
	if ((rc == 0)); then
		PASSED=$((PASSED + 1))
		echo "PASS  $name ($(($(now_ms) - t0)) ms)"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL  $name ($(($(now_ms) - t0)) ms)"
	fi
	[[ -z $out ]] || sed 's/^/        /' <<<"$out" | tail -n 20
}

main() {
	mkdir -p "$ROOT/.tools"
	if [[ -z ${FLASHRPC_BIN:-} ]]; then
		(cd "$ROOT" && go build -o "$BIN" ./cmd/flashrpc) || exit 2
	fi
	echo "cast: $("$CAST" --version | head -n 1)"
	local all=(chain-id blocks-by-tag send-and-receipt nonce-pending send-back-to-back dev-accounts forge-script deploy-and-call estimate-gas-revert
		pending-code get-logs ws-watch-blocks ws-watch-events simulate fee-data)
	local selected=("${@:-${all[@]} default-timing}")
	if [[ " ${selected[*]} " == " denim " ]]; then
		# Base since Denim: blocks every 200 ms on their own, nothing to pre-confirm or seal.
		start_node cast-denim default || exit 2
		scenario denim
		stop_node
		echo "cast: $PASSED passed, $FAILED failed"
		((FAILED == 0))
		return
	fi
	start_node cast manual || exit 2
	for s in ${selected[*]}; do
		[[ $s == default-timing ]] || scenario "$s"
	done
	stop_node
	if [[ " ${selected[*]} " == *" default-timing "* ]]; then
		start_node cast-timing default || exit 2
		scenario default-timing
		stop_node
	fi
	echo "cast: $PASSED passed, $FAILED failed"
	((FAILED == 0))
}

main "$@"
