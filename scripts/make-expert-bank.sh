#!/usr/bin/env bash
# Rebuilds examples/bank/experts.jsonl: the experience tuples that offline rewind of every expert
# of the suite keeps (simulated slowdowns on `sim`, profile 910b4), exported as JSONL.
# Usage: scripts/make-expert-bank.sh [BUILD_DIR]   (default build/default)
set -euo pipefail
cd "$(dirname "$0")/.."
AOPT="${1:-build/default}/apps/aopt/aopt"
BANK="$(mktemp -d)/bank"
trap 'rm -rf "$(dirname "$BANK")"' EXIT
"$AOPT" bank --bank "$BANK" rewind examples/ops/*/expert --steps 3 --attempts 8
"$AOPT" bank --bank "$BANK" export --format jsonl --out examples/bank/experts.jsonl
wc -l examples/bank/experts.jsonl
