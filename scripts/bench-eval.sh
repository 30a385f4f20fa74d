#!/usr/bin/env bash
# Benchmark of `aopt eval` on this machine: candidate build time (cold, ccache + PCH, kernel-only
# change), emulation+timing of a 16M-element fp16 Add (host run alone, whole evaluation),
# evaluations per minute over a stream of distinct candidates, and build artifacts reused per side
# (AOPT_ARTIFACT_CACHE) against ccache alone on the same edits. Figures: docs/BENCHMARKS.md.
# Usage: scripts/bench-eval.sh [BUILD_DIR]   (default build/default)
#   AOPT_BENCH_EVALS=N   candidates in the evaluations-per-minute stream (default 10)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$src/build/default}"
aopt="$build/apps/aopt/aopt"
[ -x "$aopt" ] || { echo "bench-eval: $aopt missing; build the aopt target first" >&2; exit 2; }
work="$(mktemp -d /tmp/aopt-bench.XXXXXX)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cache="$work/cache"   # a fresh cache: the first evaluation pays for inputs and reference
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
# The steps above measure ccache + PCH alone; the artifact reuse is measured separately below.
export AOPT_ARTIFACT_CACHE=0
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== cold build (no ccache), fresh cache: inputs generated, baseline evaluated as its own reference"
AOPT_CCACHE=0 "$aopt" eval "$pkg" --cache-dir "$cache" --no-cache --json > "$work/cold.json"
echo "build $(field "$work/cold.json" "r['build']['seconds']") s (host $(field "$work/cold.json" "r['build']['host_seconds']") s, kernel $(field "$work/cold.json" "r['build']['kernel_seconds']") s); total $(field "$work/cold.json" "r['total_seconds']") s"

echo "== warm build (ccache + PCH), same sources"
"$aopt" eval "$pkg" --cache-dir "$cache" --no-cache --json --keep-workdir > "$work/warm.json"
echo "build $(field "$work/warm.json" "r['build']['seconds']") s"

echo "== kernel-only change (host from ccache, kernel compiled with the PCH)"
echo "// bench: kernel edit $$" >> "$pkg/op_kernel/add_custom.cpp"
"$aopt" eval "$pkg" --cache-dir "$cache" --no-cache --json > "$work/kedit.json"
echo "build $(field "$work/kedit.json" "r['build']['seconds']") s (host $(field "$work/kedit.json" "r['build']['host_seconds']") s, kernel $(field "$work/kedit.json" "r['build']['kernel_seconds']") s); status $(field "$work/kedit.json" "r['status']")"

echo "== emulation + timing of 16M fp16 elements"
wd="$(ls -d /tmp/aopt-work/"$(field "$work/warm.json" "r['key'][:12]")"-* 2>/dev/null | head -1 || true)"
if [ -n "$wd" ] && [ -f "$wd/run/perf16m/run.json" ]; then
  t0=$(date +%s.%N)
  (cd "$wd/run/perf16m" && "$wd/build/host" --run run.json > /dev/null)
  t1=$(date +%s.%N)
  python3 -c "import sys; print(f'host run alone (read inputs, tiling, GM, emulate 40 cores, trace, timing replay, write output): {float(sys.argv[2])-float(sys.argv[1]):.2f} s')" "$t0" "$t1"
  rm -rf "$wd"
fi
echo "case run (inputs from cache, host run, compare with the cached reference) $(field "$work/warm.json" "r['cases'][0]['run_seconds']") s; simulated latency $(field "$work/warm.json" "r['latency_us']") us"
echo "whole evaluation (build from ccache + case) $(field "$work/warm.json" "r['total_seconds']") s"

echo "== evaluations per minute: distinct candidates (QUEUE_NUM = 3, 4, ... in the tiling), reference cached"
n=${AOPT_BENCH_EVALS:-10}
host_src="$pkg/op_host/add_custom.cpp"
cp "$host_src" "$work/host.orig"
t0=$(date +%s.%N)
for i in $(seq 1 "$n"); do
  sed "s/QUEUE_NUM = 3;/QUEUE_NUM = $((2 + i));/" "$work/host.orig" > "$host_src"
  "$aopt" eval "$pkg" --cache-dir "$cache" --json > "$work/stream-$i.json" || true
done
t1=$(date +%s.%N)
for i in $(seq 1 "$n"); do
  echo "  candidate $i: $(field "$work/stream-$i.json" "r['status']"), $(field "$work/stream-$i.json" "r['latency_us']") us, build $(field "$work/stream-$i.json" "r['build']['seconds']") s (host $(field "$work/stream-$i.json" "r['build']['host_seconds']") s), case $(field "$work/stream-$i.json" "r['cases'][0]['run_seconds']") s, total $(field "$work/stream-$i.json" "r['total_seconds']") s"
done
python3 -c "import sys; n=int(sys.argv[1]); d=float(sys.argv[3])-float(sys.argv[2]); print(f'{n} evaluations in {d:.1f} s: {60*n/d:.1f} per minute')" "$n" "$t0" "$t1"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== build artifacts reused per side vs ccache + PCH alone (same edits, same run)"
cp "$work/host.orig" "$host_src"
arts="$work/artifacts"
build_s() { field "$1" "r['build']['seconds']"; }
AOPT_ARTIFACT_CACHE="$arts" "$aopt" eval "$pkg" --cache-dir "$cache" --no-cache --json > "$work/a0.json"   # fills the artifact cache
for mode in off on; do
  if [ "$mode" = off ]; then art=0; else art="$arts"; fi
  echo "// bench: kernel edit $mode $$" >> "$pkg/op_kernel/add_custom.cpp"
  AOPT_ARTIFACT_CACHE="$art" "$aopt" eval "$pkg" --cache-dir "$cache" --no-cache --json > "$work/k-$mode.json"
  sed "s/QUEUE_NUM = 3;/QUEUE_NUM = 7;/" "$work/host.orig" > "$host_src"
  AOPT_ARTIFACT_CACHE="$art" "$aopt" eval "$pkg" --cache-dir "$cache" --no-cache --json > "$work/h-$mode.json"
  cp "$work/host.orig" "$host_src"
  AOPT_ARTIFACT_CACHE="$art" "$aopt" eval "$pkg" --cache-dir "$cache" --no-cache --json > "$work/s-$mode.json"
done
# The "on" runs edit the kernel once more: its host and the "off" runs' kernels are in the cache.
for step in k:kernel-only h:tiling-only s:unchanged; do
  key=${step%%:*}; name=${step#*:}
  python3 -c "import sys; off=float(sys.argv[2]); on=float(sys.argv[3]); print(f'{sys.argv[1]:>12} change: build {off:.2f} s with ccache alone, {on:.2f} s with artifact reuse ({off/max(on,1e-3):.1f}x)')" \
    "$name" "$(build_s "$work/$key-off.json")" "$(build_s "$work/$key-on.json")"
done
echo "reused (host, kernel): kernel-only $(field "$work/k-on.json" "(r['build']['host_reused'], r['build']['kernel_reused'])"), tiling-only $(field "$work/h-on.json" "(r['build']['host_reused'], r['build']['kernel_reused'])"), unchanged $(field "$work/s-on.json" "(r['build']['host_reused'], r['build']['kernel_reused'])")"
