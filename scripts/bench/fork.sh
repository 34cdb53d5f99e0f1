#!/usr/bin/env bash
# fork.sh compares flashrpc's fork mode with anvil --fork-url on the same upstream (an anvil
# with a contract of 200 storage slots), through a proxy that adds a delay to every upstream
# request and counts them: cold and warm eth_call of one slot, cold and warm eth_call of 200
# slots. docs/benchmarks.md ("Fork mode") describes the method and records the figures.
#
# Usage: scripts/bench/fork.sh [--delay 20ms] [--rounds 3] [--warm 51]
#
# It installs anvil 1.7.1 (npm ci --prefix scripts/fork, pinned in its package-lock.json),
# builds ./cmd/flashrpc into .tools/flashrpc, and writes the output to
# .tools/bench/fork-<time>.txt as well.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
ANVIL=scripts/fork/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil
if [[ ! -x $ANVIL ]]; then
	echo "installing anvil 1.7.1 into scripts/fork …"
	npm ci --prefix scripts/fork --no-audit --no-fund >/dev/null
fi
mkdir -p .tools/bench
go build -o .tools/flashrpc ./cmd/flashrpc
OUT=.tools/bench/fork-$(date -u +%Y%m%dT%H%M%SZ).txt
go run ./scripts/bench/fork --flashrpc .tools/flashrpc --anvil "$ANVIL" "$@" | tee "$OUT"
echo "written to $OUT"
