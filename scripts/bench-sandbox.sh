#!/usr/bin/env bash
# The cost of isolation (docs/evaluation.md, "The sandbox"): per process (aopt-sandbox-bench: N
# runs of /usr/bin/true with resource limits only, then in their own namespaces with the
# evaluator's mounts), and per evaluation (`aopt eval` of the add_custom example with the result
# cache off and inputs, references and build artifacts warm, isolated against --no-sandbox,
# alternating, R rounds). Figures: docs/BENCHMARKS.md.
# Usage: scripts/bench-sandbox.sh [BUILD_DIR] [N] [R] [OTHER_AOPT]   (default build/default, 100, 10)
# With OTHER_AOPT (an `aopt` binary of another commit, built in the same tree), its isolated
# evaluation alternates with the two others: a before/after comparison taken in one run.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$src/build/default}"
n="${2:-100}"
rounds="${3:-10}"
other="${4:-}"
aopt="$build/apps/aopt/aopt"
bench="$build/tests/security/aopt-sandbox-bench"
for b in "$aopt" "$bench"; do
  [ -x "$b" ] || { echo "bench-sandbox: $b missing; build the aopt and aopt-sandbox-bench targets" >&2; exit 2; }
done
work="$(mktemp -d /tmp/aopt-bench-sandbox.XXXXXX)"
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$bench" "$n"
pkg="$src/examples/ops/add_custom"
"$aopt" eval "$pkg" --cache-dir "$work/cache" --json > /dev/null   # warm: inputs, references, artifacts
seconds() { python3 -c "import json,sys; print(json.load(sys.stdin)['total_seconds'])"; }
[ -z "$other" ] || "$other" eval "$pkg" --cache-dir "$work/cache" --json > /dev/null
iso=0; plain=0; prev=0
for _ in $(seq "$rounds"); do
  a=$("$aopt" eval "$pkg" --cache-dir "$work/cache" --no-cache --json | seconds)
  b=$("$aopt" eval "$pkg" --cache-dir "$work/cache" --no-cache --json --no-sandbox | seconds)
  iso=$(python3 -c "print($iso + $a)"); plain=$(python3 -c "print($plain + $b)")
  if [ -n "$other" ]; then
    c=$("$other" eval "$pkg" --cache-dir "$work/cache" --no-cache --json | seconds)
    prev=$(python3 -c "print($prev + $c)")
  fi
done
python3 - "$iso" "$plain" "$rounds" "$prev" "$other" <<'PY'
import sys
iso, plain, r, prev, other = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
print(f"aopt eval add_custom (4 cases, artifacts warm), {r} rounds each:")
print(f"  isolated:   {iso / r * 1000:.1f} ms/evaluation")
print(f"  --no-sandbox: {plain / r * 1000:.1f} ms/evaluation")
print(f"  cost of isolation: {(iso - plain) / r * 1000:.1f} ms/evaluation ({iso / plain:.3f}x)")
if other:
    print(f"  {other}, isolated: {prev / r * 1000:.1f} ms/evaluation, cost {(prev - plain) / r * 1000:.1f} ms ({prev / plain:.3f}x)")
PY
