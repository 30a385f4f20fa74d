#!/usr/bin/env bash
# scripts/check-real-ops.sh [AOPT] [BENCH_DIR] [CANN_OPS_SRC] [-jN]: evaluates the base of every
# operator of the real-operator bench (docs/BENCHMARKS.md, "Real operators") with its spec and
# reference baseline and prints a table: operator, category, status, latency, first diagnostic line.
# Exit status 1 when any base is not `ok` (such an operator does not belong in the bench).
set -u
AOPT=${1:-build/ci/apps/aopt/aopt}
BENCH=${2:-examples/real-ops}
SRC=${3:-/work/cann-ops/src}
JOBS=${4:-1}
python3 - "$AOPT" "$BENCH" "$SRC" "$JOBS" <<'PY'
import json, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
aopt, bench, src, jobs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4].lstrip('-j') or 1)
ops = json.load(open(f'{bench}/sources.json'))['operators']
def run(item):
    op, rel = item
    p = subprocess.run([aopt, 'eval', f'{src}/{rel}', '--spec', f'{bench}/{op}/aopt.json', '--tree', src, '--json'],
                       capture_output=True, text=True)
    try:
        d = json.loads(p.stdout)
        return op, rel, d.get('status', '?'), d.get('latency_us'), (d.get('diagnostic') or '').split('\n')[0][:80]
    except ValueError:
        return op, rel, 'error', None, (p.stderr.strip().split('\n') or [''])[-1][:80]
rows = list(ThreadPoolExecutor(jobs).map(run, sorted(ops.items())))
print('| operator | category | status | latency us | diagnostic |\n|---|---|---|---|---|')
for op, rel, st, lat, diag in rows:
    print(f'| {op} | {rel.split("/")[0]} | {st} | {lat if lat is not None else "-"} | {diag} |')
bad = [r for r in rows if r[2] != 'ok']
print(f'\n{len(rows) - len(bad)} / {len(rows)} ok')
sys.exit(1 if bad else 0)
PY
