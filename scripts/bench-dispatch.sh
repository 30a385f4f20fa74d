#!/usr/bin/env bash
# Dispatch throughput of the evaluator pool over 1, 2, 4, 8 and 16 fixed-sleep devices, in this
# process and on node processes over CAF's middleman (loopback). docs/BENCHMARKS.md, "Dispatch
# over devices". Usage: scripts/bench-dispatch.sh [BUILD_DIR] [SLEEP_MS] [EVALS_PER_DEVICE]
set -euo pipefail
build=${1:-build/ci}
sleep_ms=${2:-50}
per_device=${3:-20}
cmake --build "$build" --target bench_dispatch >/dev/null
"$build/tests/actors/bench_dispatch" local "$sleep_ms" "$per_device"
echo
"$build/tests/actors/bench_dispatch" nodes "$sleep_ms" "$per_device"
