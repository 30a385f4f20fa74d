#!/usr/bin/env bash
# The seeded fuzzer of the spec readers (aopt.json, msOpST case files, load_package), run longer
# than CI's 10,000 inputs: tests/hardening/fuzz_spec_test.cpp. A new seed each run unless given;
# the seed is printed, and a failure names the input to rerun. Figures: docs/evaluation.md.
# Usage: scripts/fuzz-spec.sh [BUILD_DIR] [ITERATIONS] [SEED]
#   defaults: build/ci, 100000, a random seed; AOPT_FUZZ_CAP_MS (per-input cap, default 2000 ms)
#   and AOPT_FUZZ_SAVE=FILE (each input written there first: a crash leaves its input) pass through.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$src/build/ci}"
bin="$build/tests/hardening/fuzz_spec_test"
[ -x "$bin" ] || { echo "fuzz-spec: $bin missing; build the fuzz_spec_test target first" >&2; exit 2; }
export AOPT_FUZZ_ITERATIONS="${2:-100000}"
export AOPT_FUZZ_SEED="${3:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
echo "fuzz-spec: $bin, $AOPT_FUZZ_ITERATIONS inputs, seed $AOPT_FUZZ_SEED"
start=$(date +%s.%N)
"$bin" --gtest_brief=1
echo "fuzz-spec: passed in $(echo "$(date +%s.%N) - $start" | bc) s"
