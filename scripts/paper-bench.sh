#!/usr/bin/env bash
# The paper's benchmark on our real-operator bench (issue 39): AscendOptimizer against Best-of-N at
# 5 and 40 samples, the OpenEvolve-style baseline and random search, at budget 40, three seeds, then
# the budget sweep (10, 20, 40, 80) of AscendOptimizer. Night-sized: about 12 hours on 2 idle cores
# for the 115 operators of examples/real-ops. Every step resumes from OUT (aopt bench keeps each
# operator-method-seed result), so a stopped run continues where it was; the steps are ordered so
# the most useful table exists first (AscendOptimizer at seed 1, then the baselines at seed 1, then
# seeds 2 and 3, then the sweep).
# Usage: scripts/paper-bench.sh AOPT CANN_OPS_SRC OUT [-- extra aopt bench options, e.g. --ops abs exp]
# Output: OUT/table.md (the paper's table: levels, geomeans, fast_p, the seeds' spread),
#         OUT/speedup_cdf.svg, OUT/trajectory.svg, OUT/trajectories/, OUT/sweep/table.md with
#         budget_sweep.svg, and OUT/steps.log (each step's command, start and end).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 AOPT CANN_OPS_SRC OUT [-- extra options]" >&2; exit 2; }
AOPT=$(realpath "$1"); SRC=$(realpath "$2"); OUT=$(realpath -m "$3"); shift 3
[ "${1:-}" = "--" ] && shift
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
BANK="$OUT/bank"
if [ ! -e "$BANK" ]; then
  "$AOPT" bank --bank "$BANK" import examples/bank/experts.jsonl
fi
common=(examples/real-ops --sources "$SRC" --bank "$BANK" --budget 40 -j "${AOPT_BENCH_JOBS:-2}"
        --cache-dir "$OUT/cache" "$@")
step() {
  echo "$(date -u +%FT%TZ) start: aopt bench $*" >> "$OUT/steps.log"
  "$AOPT" bench "$@" >> "$OUT/bench.log" 2>&1
  echo "$(date -u +%FT%TZ) end ($?)" >> "$OUT/steps.log"
}
all=(aopt best_of_n@5 best_of_n openevolve random)
step "${common[@]}" --out "$OUT" --methods aopt --seeds 1
step "${common[@]}" --out "$OUT" --methods "${all[@]}" --seeds 1
step "${common[@]}" --out "$OUT" --methods "${all[@]}" --seeds 1 2 3
step "${common[@]}" --out "$OUT/sweep" --methods aopt --seeds 1 --budgets 10 20 80
echo "tables: $OUT/table.md $OUT/sweep/table.md"
