#!/usr/bin/env bash
# The long versions of the daemon's crash and fuzz tests (CI runs 5 kills and 400 requests):
#   scripts/daemon-stress.sh [KILLS] [FUZZ_REQUESTS] [SEED]
# Defaults: 20 kill -9 while three jobs run, 10000 fuzzed requests, seed 14. Needs a built tree
# (cmake --preset ci && cmake --build --preset ci).
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-20}
requests=${2:-10000}
seed=${3:-14}
bin=build/ci/tests/daemon/daemon_api_test
[[ -x $bin ]] || { echo "daemon-stress: $bin is missing; build first (cmake --build --preset ci)" >&2; exit 2; }
export AOPT_SOURCE_DIR=$PWD AOPT_BUILD_DIR=$PWD/build/ci
AOPT_CRASH_KILLS=$kills AOPT_CRASH_SEED=$seed "$bin" --gtest_filter='daemon_api.CrashesLoseNothing'
AOPT_FUZZ_REQUESTS=$requests AOPT_FUZZ_SEED=$seed "$bin" --gtest_filter='daemon_api.SeededFuzzNeverCrashesOrHangs'
