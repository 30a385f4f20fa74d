#!/usr/bin/env bash
# Benchmark of `aopt eval` on this machine: candidate build time (cold, and with ccache + PCH),
# emulation+timing of a 16M-element fp16 Add, evaluations per minute. Figures: docs/BENCHMARKS.md.
# Usage: scripts/bench-eval.sh [BUILD_DIR]   (default build/default)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$src/build/default}"
aopt="$build/apps/aopt/aopt"
[ -x "$aopt" ] || { echo "bench-eval: $aopt missing; build the aopt target first" >&2; exit 2; }
work="$(mktemp -d /tmp/aopt-bench.XXXXXX)"
trap 'rm -rf "$work"' EXIT
pkg="$work/add16m"
mkdir -p "$pkg"
cp -rL "$src/examples/ops/add_custom/op_host" "$src/examples/ops/add_custom/op_kernel" "$pkg/"
cat > "$pkg/aopt.json" <<'JSON'
{ "kernel": "add_custom",
  "cases": [ { "name": "perf16m", "timed": true,
               "inputs": { "x": {"shape": [16, 1024, 1024], "dtype": "float16"},
                           "y": {"shape": [16, 1024, 1024], "dtype": "float16"} } } ],
  "reference": "baseline" }
JSON
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
echo "== cold build (no ccache)"
AOPT_CCACHE=0 "$aopt" eval "$pkg" --no-cache --json > "$work/cold.json"
echo "build $(field "$work/cold.json" "r['build']['seconds']") s (host $(field "$work/cold.json" "r['build']['host_seconds']") s, kernel $(field "$work/cold.json" "r['build']['kernel_seconds']") s)"
echo "== warm build (ccache + PCH)"
"$aopt" eval "$pkg" --no-cache --json > /dev/null
"$aopt" eval "$pkg" --no-cache --json > "$work/warm.json"
echo "build $(field "$work/warm.json" "r['build']['seconds']") s"
echo "== emulation + timing of 16M fp16 elements (one run of the host, inputs generated)"
echo "case run $(field "$work/warm.json" "r['cases'][0]['run_seconds']") s; simulated latency $(field "$work/warm.json" "r['latency_us']") us"
echo "total evaluation $(field "$work/warm.json" "r['total_seconds']") s"
echo "== evaluations per minute (distinct candidates: a new seed each, warm ccache)"
n=${AOPT_BENCH_EVALS:-6}
t0=$(date +%s.%N)
for i in $(seq 1 "$n"); do "$aopt" eval "$pkg" --no-cache --seed "$((100 + i))" --json > /dev/null; done
t1=$(date +%s.%N)
python3 -c "import sys; n=int(sys.argv[1]); d=float(sys.argv[3])-float(sys.argv[2]); print(f'{n} evaluations in {d:.1f} s: {60*n/d:.1f} per minute')" "$n" "$t0" "$t1"
