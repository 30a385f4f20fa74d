#!/usr/bin/env bash
# Evaluations per minute of `aopt optimize` on real operators (issue 35): the offline engine at a
# budget, -j 2, every cache fresh (results, build artifacts, ccache), one operator after another;
# the figure is evaluations (report.json `evaluations`, budget spent) over the jobs' summed
# `time.total_s`, with the Stage I variants that ran on one build and those built. Run it twice
# (AOPT_THROUGHPUT_FLAGS=--no-search-form for the path that builds every variant) on an idle
# machine for docs/BENCHMARKS.md.
# Usage: scripts/bench-throughput.sh CANN_OPS_SRC [BUILD_DIR] [BUDGET] [OP...]
#   (default build/ci, budget 40, operators lerp addcmul fast_gelu from examples/real-ops)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
tree="${1:?usage: scripts/bench-throughput.sh CANN_OPS_SRC [BUILD_DIR] [BUDGET] [OP...]}"
build="${2:-$src/build/ci}"
budget="${3:-40}"
shift $(( $# < 3 ? $# : 3 ))
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(lerp addcmul fast_gelu)
aopt="$build/apps/aopt/aopt"
[ -x "$aopt" ] || { echo "bench-throughput: $aopt missing; build the aopt target first" >&2; exit 2; }
work="$(mktemp -d /tmp/aopt-throughput.XXXXXX)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
export AOPT_ARTIFACT_CACHE="$work/artifacts" CCACHE_DIR="$work/ccache"
"$aopt" bank --bank "$work/bank" import "$src/examples/bank/experts.jsonl" > /dev/null
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); budget $budget, -j 2, flags: ${AOPT_THROUGHPUT_FLAGS:-(none)}"
total_evals=0
total_s=0
for op in "${ops[@]}"; do
  rel=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['operators'][sys.argv[2]])" \
        "$src/examples/real-ops/sources.json" "$op")
  # shellcheck disable=SC2086
  "$aopt" optimize "$tree/$rel" --spec "$src/examples/real-ops/$op/aopt.json" --budget "$budget" -j 2 -q \
    --bank "$work/bank" --no-learn --cache-dir "$work/cache" --out "$work/out-$op" ${AOPT_THROUGHPUT_FLAGS:-} > /dev/null
  line=$(python3 - "$work/out-$op/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["result"] if "result" in json.load(open(sys.argv[1])) else json.load(open(sys.argv[1]))
tv = r.get("tiling_variants", {})
print(r["evaluations"], r["time"]["total_s"], tv.get("unbuilt", 0), tv.get("built", 0), r["speedup"])
PY
)
  read -r evals secs unbuilt built speedup <<< "$line"
  printf '%-12s %3d evaluations in %6.1f s = %5.1f per minute; Stage I variants on one build %d, built %d; speedup %.3fx (simulated)\n' \
    "$op" "$evals" "$secs" "$(python3 -c "print($evals * 60 / $secs)")" "$unbuilt" "$built" "$speedup"
  # Evaluations by candidate kind (trajectory: tiling, kernel, both = a kernel rewrite co-tuned
  # with its tiling) and why Stage I variants were built (report.json tiling_variants.built_why).
  python3 - "$work/out-$op/report.json" <<'PY'
import json, sys, collections
j = json.load(open(sys.argv[1]))
r = j.get("result", j)
kinds = collections.Counter()
for p in r["trajectory"]:
    if p["memo"] or p["stage"] not in ("tiling", "kernel"):
        continue
    kinds["both" if p["proposal"].startswith("co-tuning") else p["stage"]] += 1
why = r.get("tiling_variants", {}).get("built_why", {})
print("             by kind: " + ", ".join("%s %d" % (k, kinds[k]) for k in ("tiling", "kernel", "both")) +
      "; built variants by reason: " + (", ".join("%s %d" % kv for kv in sorted(why.items())) or "none"))
PY
  total_evals=$((total_evals + evals))
  total_s=$(python3 -c "print($total_s + $secs)")
done
printf 'all         %3d evaluations in %6.1f s = %5.1f per minute\n' "$total_evals" "$total_s" \
  "$(python3 -c "print($total_evals * 60 / $total_s)")"
# Evaluator seconds by what each evaluation compiled (the result cache's build record: host and
# kernel reused or built; a variant whose screen built its host shows as reused here). Screens
# are not in the result cache: their cost is in the jobs' time.evaluator_s, not in these rows.
python3 - "$work/cache" <<'PY'
import json, sys, glob, collections
agg = collections.defaultdict(lambda: [0, 0.0, 0.0])
for f in glob.glob(sys.argv[1] + "/results/*/*.json"):
    r = json.load(open(f))
    b = r.get("build", {})
    kind = {(True, True): "nothing built", (False, True): "host built", (True, False): "kernel built",
            (False, False): "host+kernel built"}[(bool(b.get("host_reused")), bool(b.get("kernel_reused")))]
    agg[kind][0] += 1
    agg[kind][1] += r.get("total_seconds", 0)
    agg[kind][2] += b.get("seconds", 0)
for k in ("nothing built", "host built", "kernel built", "host+kernel built"):
    n, t, bs = agg[k]
    if n:
        print("evaluations, %-17s %3d, evaluator %6.1f s (build %6.1f s) = %6.1f per slot-minute" % (k + ":", n, t, bs, n * 60 / t))
PY
