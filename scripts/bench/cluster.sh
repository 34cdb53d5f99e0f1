#!/usr/bin/env bash
# cluster.sh measures JSON-RPC requests per second through HAProxy in front of 1 and then 2
# replicas (scripts/cluster --replicas N), with wrk and scripts/bench/rpc.lua, and straight at
# one replica for reference. docs/benchmarks.md ("Throughput through HAProxy") has the figures.
#
# Usage: scripts/bench/cluster.sh [--rounds N] [--duration S] [--conns C] [--replicas "1 2"]
#
# Environment: FLASHRPC_BIN (a built flashrpc; default: ./cmd/flashrpc built once), PORT (the
# cluster's base port, default 8700), RPC_BODY (the request; default eth_getBlockByNumber
# latest without transactions). wrk is installed with apt-get when it is missing.
#
# wrk prints its report only when it ends by itself: run under `timeout` equal to its
# duration it is killed first and prints nothing at all (the earlier ad-hoc attempt).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
rounds=3
duration=10
conns=16
counts="1 2"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --conns) conns="$2"; shift 2 ;;
    --replicas) counts="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "cluster.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
base=${PORT:-8700}
# A read every replica answers from its own chain: the latest block's header.
BODY=${RPC_BODY:-'{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}'}

if ! command -v wrk >/dev/null; then
  echo "cluster.sh: installing Debian's wrk" >&2
  apt-get install -y -qq wrk >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
fi
work=$(mktemp -d -t flashrpc-cluster-bench-XXXXXX)
bin="${FLASHRPC_BIN:-}"
if [ -z "$bin" ]; then
  bin="$work/flashrpc"
  go build -o "$bin" ./cmd/flashrpc
fi

cluster_pid=""
stop_cluster() {
  if [ -n "$cluster_pid" ]; then
    kill "$cluster_pid" 2>/dev/null || true
    wait "$cluster_pid" 2>/dev/null || true
    cluster_pid=""
  fi
}
trap stop_cluster EXIT

# measure LABEL URL: one wrk run per round; prints "LABEL round req/s p50 p99".
measure() {
  local label=$1 url=$2 out
  # The body must answer a result, not an error: checked once with curl.
  if ! curl -fsS -H 'Content-Type: application/json' -d "$BODY" "$url" | grep -q '"result"'; then
    echo "cluster.sh: $url does not answer the body with a result" >&2
    exit 1
  fi
  for r in $(seq "$rounds"); do
    # wrk prints its report on stdout only when it ends normally; its errors go to stderr.
    out=$(RPC_BODY=$BODY wrk -t2 -c"$conns" -d"${duration}s" --latency -s scripts/bench/rpc.lua "$url" 2>&1) || {
      echo "cluster.sh: wrk failed: $out" >&2
      exit 1
    }
    rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
    p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    errs=$(awk '/Non-2xx|Socket errors/ {printf "%s ", $0}' <<<"$out")
    echo "$label round $r: $rps req/s, p50 $p50, p99 $p99 ${errs}"
  done
}

echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) nproc $(nproc) load:$(uptime | sed 's/.*load average://')"
for n in $counts; do
  dir="$work/cluster$n"
  mkdir -p "$dir"
  FLASHRPC_BIN=$bin scripts/cluster --replicas "$n" --port "$base" --dir "$dir" >"$dir/cluster.out" 2>&1 &
  cluster_pid=$!
  for _ in $(seq 600); do
    grep -q "cluster ready" "$dir/cluster.out" && break
    sleep 0.1
  done
  grep -q "cluster ready" "$dir/cluster.out" || { cat "$dir/cluster.out" >&2; exit 1; }
  measure "haproxy, $n replica(s)" "http://127.0.0.1:$((base + 101))"
  if [ "$n" = 1 ]; then
    measure "replica 1 direct" "http://127.0.0.1:$((base + 11))"
  fi
  echo "load after:$(uptime | sed 's/.*load average://')"
  stop_cluster
  sleep 2
done
