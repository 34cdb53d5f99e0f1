#!/usr/bin/env bash
# eth_getLogs over a generated chain of 1,000,000 blocks (docs/benchmarks.md, "eth_getLogs over
# 1,000,000 blocks"): latency over HTTP of the same query set against
#
#   flashrpc      flashrpc serve, with its log index (the default)
#   scan          flashrpc serve --logs.index=false: header blooms, then receipts
#   geth          go-ethereum's eth/filters (op-geth v1.101702.3) over the same database, unindexed
#   geth-index    go-ethereum eth/filters with its own log index (core/filtermaps), built first
#
# one server at a time, each with the same database block cache. The chain is generated once
# into .tools/ (flashrpc generate; about 8 minutes for a million blocks) and reused.
#
# Usage: scripts/bench/getlogs.sh [flashrpc] [scan] [geth] [geth-index]   (default: all four)
# Environment: BLOCKS (1000000), DATADIR (.tools/getlogs-1m), RUNS per cell (20), BUDGET per
# cell (60s; at least 3 runs), CACHE in MB (3072), RANGES (1k,10k,100k,full), OUT (results
# directory, .tools/getlogs-results).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOLS=$ROOT/.tools
BIN=$TOOLS/getlogs-bench
BLOCKS=${BLOCKS:-1000000}
DATADIR=${DATADIR:-$TOOLS/getlogs-1m}
RUNS=${RUNS:-20}
BUDGET=${BUDGET:-60s}
CACHE=${CACHE:-3072}
RANGES=${RANGES:-1k,10k,100k,full}
OUT=${OUT:-$TOOLS/getlogs-results}
PORT=18745
SERVERS=("$@")
[ ${#SERVERS[@]} -gt 0 ] || SERVERS=(flashrpc scan geth geth-index)

mkdir -p "$BIN" "$OUT"
cd "$ROOT"
echo "building into $BIN"
go build -o "$BIN/flashrpc" ./cmd/flashrpc
go build -o "$BIN/getlogs" ./scripts/bench/getlogs
go build -tags gethbench -o "$BIN/gethlogs" ./scripts/bench/gethlogs

if [ ! -d "$DATADIR/chaindata" ]; then
	echo "generating $BLOCKS blocks into $DATADIR"
	/usr/bin/time -v "$BIN/flashrpc" generate --datadir "$DATADIR" --blocks "$BLOCKS" --seed 1 2>&1 | tee "$OUT/generate.log" | grep -v '^generated'
fi

server_pid=""
stop_server() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
		server_pid=""
	fi
}
trap stop_server EXIT

wait_ready() {
	for _ in $(seq 1 600); do
		if curl -sf -X POST -H 'Content-Type: application/json' \
			--data '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "http://127.0.0.1:$PORT" >/dev/null; then
			return 0
		fi
		kill -0 "$server_pid" 2>/dev/null || { echo "server exited; see its log"; return 1; }
		sleep 1
	done
	return 1
}

for name in "${SERVERS[@]}"; do
	log=$OUT/$name.log
	skip=""
	case $name in
	flashrpc | scan)
		index=true
		[ "$name" = scan ] && index=false
		# Unindexed full-range scans take seconds: lift the query and request time limits.
		"$BIN/flashrpc" serve --datadir "$DATADIR" --http.port $PORT --preconf.port $((PORT + 2)) \
			--db.cache "$CACHE" --logs.index=$index --rpc.logs.timeout 10m --rpc.timeout 10m >"$log" 2>&1 &
		;;
	geth | geth-index)
		index=false
		[ "$name" = geth-index ] && index=true
		# eth/filters has no result cap: every Transfer of 100k blocks is half a million logs.
		skip="broad:100k,broad:full"
		"$BIN/gethlogs" --datadir "$DATADIR" --addr 127.0.0.1:$PORT --cache "$CACHE" --index=$index \
			--fm-dir "$DATADIR-gethfm" >"$log" 2>&1 &
		;;
	*)
		echo "unknown server $name"
		exit 2
		;;
	esac
	server_pid=$!
	echo "== $name (pid $server_pid, log $log)"
	wait_ready
	grep -E 'log index|filtermaps' "$log" || true
	echo "load before: $(cat /proc/loadavg)"
	"$BIN/getlogs" --url "http://127.0.0.1:$PORT" --label "$name" --runs "$RUNS" --budget "$BUDGET" \
		--ranges "$RANGES" --skip "$skip" --pid "$server_pid" --json "$OUT/results.jsonl" | tee "$OUT/$name.md"
	echo "load after: $(cat /proc/loadavg)"
	stop_server
done
