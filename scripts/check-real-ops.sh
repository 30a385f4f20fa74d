#!/usr/bin/env bash
# scripts/check-real-ops.sh [AOPT] [BENCH_DIR] [CANN_OPS_SRC] [-jN] [OP ...]: evaluates the base of
# every operator of the real-operator bench (docs/BENCHMARKS.md, "Real operators"; only the OPs
# named, when any) with its spec and reference baseline and prints a table: operator, category,
# level (sources.json's "levels", docs/real-ops.md), status, latency, first diagnostic line.
# AOPT_CACHE_DIR=DIR: the evaluation cache to use (default: the user's).
# Exit status 1 when any base is not `ok` (such an operator does not belong in the bench).
set -u
AOPT=${1:-build/ci/apps/aopt/aopt}
BENCH=${2:-examples/real-ops}
SRC=${3:-/work/cann-ops/src}
JOBS=${4:-1}
shift $(( $# < 4 ? $# : 4 ))
python3 - "$AOPT" "$BENCH" "$SRC" "$JOBS" "$@" <<'PY'
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
aopt, bench, src, jobs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4].lstrip('-j') or 1)
suite = json.load(open(f'{bench}/sources.json'))
ops, levels = suite['operators'], suite.get('levels', {})
only = sys.argv[5:]
unknown = [o for o in only if o not in ops]
if unknown: sys.exit(f'{bench}/sources.json has no operator {unknown[0]}')
if only: ops = {o: ops[o] for o in only}
cache = ['--cache-dir', os.environ['AOPT_CACHE_DIR']] if os.environ.get('AOPT_CACHE_DIR') else []
def run(item):
    op, rel = item
    p = subprocess.run([aopt, 'eval', f'{src}/{rel}', '--spec', f'{bench}/{op}/aopt.json', '--tree', src, '--json'] + cache,
                       capture_output=True, text=True)
    try:
        d = json.loads(p.stdout)
        print(f"{op}: {d.get('status', '?')}", file=sys.stderr, flush=True)
        return op, rel, d.get('status', '?'), d.get('latency_us'), (d.get('diagnostic') or '').split('\n')[0][:80]
    except ValueError:
        print(f'{op}: error', file=sys.stderr, flush=True)
        return op, rel, 'error', None, (p.stderr.strip().split('\n') or [''])[-1][:80]
rows = list(ThreadPoolExecutor(jobs).map(run, sorted(ops.items())))
print('| operator | category | level | status | latency us | diagnostic |\n|---|---|---|---|---|---|')
for op, rel, st, lat, diag in rows:
    print(f'| {op} | {rel.split("/")[0]} | {levels.get(op, "-")} | {st} | {lat if lat is not None else "-"} | {diag} |')
bad = [r for r in rows if r[2] != 'ok']
by_level = {l: sum(1 for r in rows if levels.get(r[0]) == l and r[2] == 'ok') for l in (1, 2, 3)}
print(f'\n{len(rows) - len(bad)} / {len(rows)} ok (level 1: {by_level[1]}, level 2: {by_level[2]}, level 3: {by_level[3]})')
sys.exit(1 if bad else 0)
PY
