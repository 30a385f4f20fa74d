#!/usr/bin/env bash
# The matmul ladder on sim (docs/BENCHMARKS.md, "Cube: the matmul ladder"): a tiled multi-core
# matmul kernel of our own (tests/sim_cube/bench_matmul.cpp) over square and skinny shapes, half
# and int8, single and double-buffered L0, base blocks 64/128/256, priced by the timing model.
#   scripts/bench-matmul.sh [--profile 910b4|a2] [--quick]
# Mmad's values are not computed here (AOPT_SIM_CUBE_TIMING_ONLY=1): the trace, and so the time,
# is the same; tests/sim_cube checks the values of the same primitives.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AOPT_BUILD_DIR:-$root/build/ci}"
cmake --build "$build" --target sim_cube_bench >/dev/null
AOPT_PROFILE_DIR="${AOPT_PROFILE_DIR:-$root/sim/profiles}" AOPT_SIM_CUBE_TIMING_ONLY=1 \
  "$build/tests/sim_cube/sim_cube_bench" "$@"
