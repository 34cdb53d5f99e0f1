#!/usr/bin/env bash
# denim.sh measures Base as it runs since Denim on `flashrpc dev --network base-mainnet` (a
# sealed block every 200 ms, no pre-confirmations): the realistic mix offered at rising rates,
# and for each rate the interval between sealed blocks (newHeads) and its p99, how late the
# blocks arrive after their timestampMs, the seal's cost (the node's debug log) and the
# datadir's growth; the node's CPU profile at the last rate. docs/benchmarks.md ("Base since
# Denim") describes the method and records the figures.
#
# Usage: scripts/bench/denim.sh [--rates 1000,2000,3000,4000,5000] [--duration 60s]
#                               [--gas-limit 100000000] [--metrics-port 9464] [--idle 30]
#
# --idle N first measures the datadir's growth over N seconds of empty blocks (each carries the
# L1-attributes and BaseTime deposits); 0 skips it.
#
# Base's Denim gas limit (18.75M a block, 93.75 Mgas/s) holds the mix to about 2,300
# transactions a second; the default 100M a block leaves room to look for the node's own
# limit. The node and the load generator share the machine's cores; the output (the tables, the
# node's log and the profile) goes to .tools/bench/denim-<time>/.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
RATES=1000,2000,3000,4000,5000
DURATION=60s
GAS_LIMIT=100000000
METRICS_PORT=9464
IDLE=30
while [[ $# -gt 0 ]]; do
	case $1 in
	--rates) RATES=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--gas-limit) GAS_LIMIT=$2; shift 2 ;;
	--metrics-port) METRICS_PORT=$2; shift 2 ;;
	--idle) IDLE=$2; shift 2 ;;
	*) echo "unknown argument $1 (see the usage at the top of $0)" >&2; exit 2 ;;
	esac
done
OUT=.tools/bench/denim-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
go build -o .tools/flashrpc ./cmd/flashrpc
go build -o .tools/benchseq ./scripts/bench/sequencer

.tools/flashrpc dev --network base-mainnet --accounts 500 --gas-limit "$GAS_LIMIT" \
	--datadir "$OUT/datadir" --log.level debug --metrics.port "$METRICS_PORT" --pprof \
	>"$OUT/node.log" 2>&1 &
NODE=$!
trap 'kill $NODE 2>/dev/null; wait $NODE 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	curl -sf -o /dev/null -H 'content-type: application/json' \
		--data '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' http://127.0.0.1:8545 && break
	sleep 0.1
done

{
	echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)'), $(date -u +%FT%TZ)"
	echo "load at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "node: flashrpc dev --network base-mainnet --accounts 500 --gas-limit $GAS_LIMIT"
	echo
} | tee "$OUT/result.md"
chain_head() {
	curl -sf -H 'content-type: application/json' \
		--data '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' http://127.0.0.1:8545 |
		sed -E 's/.*"result":"0x([0-9a-f]+)".*/\1/' | { read -r h; echo $((16#$h)); }
}
if [[ $IDLE -gt 0 ]]; then
	h0=$(chain_head); k0=$(du -sk "$OUT/datadir" | cut -f1)
	sleep "$IDLE"
	h1=$(chain_head); k1=$(du -sk "$OUT/datadir" | cut -f1)
	echo "idle: $((k1 - k0)) kB over $((h1 - h0)) empty blocks ($IDLE s): $(((k1 - k0) * 1000 / (h1 - h0))) bytes a block" | tee -a "$OUT/result.md"
	echo | tee -a "$OUT/result.md"
fi
status=0
.tools/benchseq --mix realistic --heads ws://127.0.0.1:8545 --node-log "$OUT/node.log" \
	--datadir "$OUT/datadir" --rates "$RATES" --duration "$DURATION" --slowest 5 \
	--cpuprofile-url "http://127.0.0.1:$METRICS_PORT/debug/pprof/profile" --cpuprofile-out "$OUT/cpu.pprof" \
	2> >(tee "$OUT/stderr.txt" >&2) | tee -a "$OUT/result.md" || status=$?
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/result.md"
# The whole datadir once the node has stopped (Pebble flushes its memtables at close; while it
# runs, the write-ahead log is preallocated and du lags): its size over every block sealed.
h=$(chain_head)
kill "$NODE"
wait "$NODE" || true
trap - EXIT
echo "datadir after stopping: $(du -sk "$OUT/datadir" | cut -f1) kB over $h blocks" | tee -a "$OUT/result.md"
echo "written to $OUT (result.md, node.log, cpu.pprof: go tool pprof -top .tools/flashrpc $OUT/cpu.pprof)"
exit $status
