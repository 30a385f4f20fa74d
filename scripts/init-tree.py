#!/usr/bin/env python3
# scripts/init-tree.py AOPT TREE OUT [-j N] [--elements N] [--sample K] [--only DIR ...]: `aopt init` on every operator
# directory of a cann-ops-style TREE (a directory whose op_host/ holds a .cpp or .cc), the drafts
# written under OUT/specs/<rel>.json (never into TREE), then `aopt eval --spec` on each draft,
# unedited, with the evaluation cache OUT/cache; both with `--tree TREE` (shared directories such as
# src/common are read). OUT/results.json holds one record per operator
# (init exit and first error line, eval status and first error), OUT/summary.md the figures and
# the commonest failure reasons. Resumes: operators already in results.json are skipped.
# --specs DIR: an operator whose draft is not ok is also evaluated with a spec written by hand in
# DIR (examples/real-ops), counted apart.
# docs/CORPUS.md, "aopt init over the whole tree".
import argparse, collections, concurrent.futures, json, os, re, subprocess, sys, threading, time

ap = argparse.ArgumentParser()
ap.add_argument('aopt')
ap.add_argument('tree')
ap.add_argument('out')
ap.add_argument('-j', type=int, default=2)
ap.add_argument('--elements', default='2097152')
ap.add_argument('--sample', type=int, default=0, help='every K-th operator only (0: all)')
ap.add_argument('--timeout', default='120')
ap.add_argument('--only', action='append', default=[], metavar='DIR',
                help='only the operators under this directory of TREE (e.g. foreach; repeatable)')
ap.add_argument('--specs', metavar='DIR',
                help='specs written by hand (a real-operator bench directory: DIR/sources.json names each '
                     "operator's directory in TREE, DIR/OP/aopt.json its spec): an operator whose draft is not ok "
                     'is evaluated with its spec there too (column "hand")')
a = ap.parse_args()

ops = []
for root, dirs, files in os.walk(a.tree, followlinks=True):
    host = os.path.join(root, 'op_host')
    if os.path.isdir(host) and any(f.endswith(('.cpp', '.cc')) for f in os.listdir(host)):
        ops.append(os.path.relpath(root, a.tree))
        dirs[:] = []
ops.sort()
if a.only:
    only = [d.strip('/') for d in a.only]
    ops = [op for op in ops if any(op == d or op.startswith(d + '/') for d in only)]
if a.sample > 1:
    ops = ops[::a.sample]
os.makedirs(os.path.join(a.out, 'specs'), exist_ok=True)
res_file = os.path.join(a.out, 'results.json')
results = json.load(open(res_file)) if os.path.exists(res_file) else {}
lock = threading.Lock()
CUBE = re.compile(r'\bMatmul(Impl|Type)?\s*<|\bMmad\s*\(|TPosition::(A1|B1|A2|B2|CO1|CO2)\b|\bLoadData\s*\(|\bConv3[dD]?\s*<')


def first_line(text):
    for key in ('error:', 'no spec', 'refused', 'error'):
        for l in text.splitlines():
            if key in l:
                return l.strip()[:240]
    for l in text.splitlines():
        if l.strip():
            return l.strip()[:240]
    return ''


def unit(op_dir):
    kdir = os.path.join(op_dir, 'op_kernel')
    if not os.path.isdir(kdir):
        return 'aicpu'
    text = ''
    for r, _, fs in os.walk(kdir):
        for f in fs:
            if f.endswith(('.cpp', '.h', '.hpp', '.cc')):
                text += open(os.path.join(r, f), errors='replace').read()
    return 'cube' if CUBE.search(text) else 'vector'


def one(op):
    d = os.path.join(a.tree, op)
    spec = os.path.join(a.out, 'specs', op.replace('/', '__') + '.json')
    rec = {'op': op, 'unit': unit(d)}
    t0 = time.time()
    p = subprocess.run([a.aopt, 'init', d, '--out', spec, '--force', '--json', '--elements', a.elements, '--tree', a.tree],
                       capture_output=True, text=True, errors='replace')
    rec['init_exit'] = p.returncode
    try:
        j = json.loads(p.stdout)
        rec['init'] = j.get('status')
        rec['init_stage'] = j.get('stage', '')
        rec['init_error'] = first_line(j.get('diagnostic') or j.get('failure', '')) if j.get('status') != 'ok' else ''
        rec['probes'] = len(j.get('attempts', []))
        if j.get('status') != 'ok' and j.get('attempts'):
            last = j['attempts'][0]
            rec['init_error'] += ' | first probe: ' + last.get('status', '') + ': ' + last.get('diagnostic', '')[:160]
    except ValueError:
        rec['init'] = 'error'
        rec['init_stage'] = 'load'
        rec['init_error'] = first_line(p.stderr)
    rec['init_seconds'] = round(time.time() - t0, 1)
    if rec['init'] == 'ok':
        t1 = time.time()
        e = subprocess.run([a.aopt, 'eval', d, '--spec', spec, '--tree', a.tree, '--json', '--cache-dir', os.path.join(a.out, 'cache'),
                            '--timeout', a.timeout], capture_output=True, text=True, errors='replace')
        try:
            r = json.loads(e.stdout)
            rec['eval'] = r.get('status')
            diag = r.get('diagnostic', '') or ''
            if not diag:
                for c in r.get('cases', []):
                    if c.get('status') != 'ok' and c.get('diagnostic'):
                        diag = c['name'] + ': ' + c['diagnostic']
                        break
            if rec['eval'] == 'error':
                diag = r.get('error', {}).get('message', '')
            rec['eval_error'] = first_line(diag) if rec['eval'] != 'ok' else ''
        except ValueError:
            rec['eval'] = 'error'
            rec['eval_error'] = first_line(e.stderr)
        rec['eval_seconds'] = round(time.time() - t1, 1)
    with lock:
        results[op] = rec
        json.dump(results, open(res_file + '.tmp', 'w'), indent=1)
        os.replace(res_file + '.tmp', res_file)
        print(f"[{len(results)}/{len(ops)}] {op}: init {rec['init']} eval {rec.get('eval', '-')} "
              f"{rec.get('init_error') or rec.get('eval_error', '')}"[:300], file=sys.stderr, flush=True)


todo = [op for op in ops if op not in results]
with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
    list(ex.map(one, todo))

# Specs written by hand (--specs): an operator whose unedited draft is not ok, evaluated with its
# reviewed spec (the real-operator bench's), recorded apart ("hand"), never as the draft's figure.
hand_specs = {}
if a.specs:
    for name, rel in json.load(open(os.path.join(a.specs, 'sources.json')))['operators'].items():
        if os.path.exists(os.path.join(a.specs, name, 'aopt.json')):
            hand_specs[rel] = os.path.join(a.specs, name, 'aopt.json')


def by_hand(op):
    rec = results[op]
    e = subprocess.run([a.aopt, 'eval', os.path.join(a.tree, op), '--spec', hand_specs[op], '--tree', a.tree, '--json',
                        '--cache-dir', os.path.join(a.out, 'cache'), '--timeout', a.timeout], capture_output=True, text=True,
                       errors='replace')
    try:
        r = json.loads(e.stdout)
        rec['hand'] = r.get('status')
        rec['hand_error'] = first_line(r.get('diagnostic', '') or '') if rec['hand'] != 'ok' else ''
    except ValueError:
        rec['hand'], rec['hand_error'] = 'error', first_line(e.stderr)
    rec['hand_spec'] = hand_specs[op]
    with lock:
        json.dump(results, open(res_file + '.tmp', 'w'), indent=1)
        os.replace(res_file + '.tmp', res_file)
        print(f"[hand] {op}: {rec['hand']} {rec['hand_error']}"[:300], file=sys.stderr, flush=True)


redo = [op for op in ops if op in results and op in hand_specs and 'hand' not in results[op]
        and not (results[op]['init'] == 'ok' and results[op].get('eval') == 'ok')]
with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
    list(ex.map(by_hand, redo))

rs = [results[op] for op in ops if op in results]
vec = [r for r in rs if r['unit'] == 'vector']


def figures(rows):
    spec = [r for r in rows if r['init'] == 'ok']
    ok = [r for r in spec if r.get('eval') == 'ok']
    return len(rows), len(spec), len(ok)


lines = ['# aopt init over the tree', '', f'operators: {len(rs)} (vector: {len(vec)}, cube: '
         f"{sum(r['unit'] == 'cube' for r in rs)}, aicpu: {sum(r['unit'] == 'aicpu' for r in rs)})", '']
for name, rows in (('all', rs), ('vector', vec)):
    n, s, o = figures(rows)
    lines.append(f'{name}: {n} operators, {s} drafts ({100.0 * s / max(n, 1):.0f}%), {o} of the drafts evaluate ok unedited '
                 f'({100.0 * o / max(s, 1):.0f}% of drafts, {100.0 * o / max(n, 1):.0f}% of operators)')
    h = sum(1 for r in rows if r.get('hand') == 'ok')
    if a.specs:
        lines.append(f'{name}: {h} more evaluate ok with a spec written by hand ({a.specs}): {o + h} of {n} '
                     f'({100.0 * (o + h) / max(n, 1):.1f}%)')
lines += ['', '## by category (vector operators)', '', '| category | operators | drafts | evaluate ok unedited |', '|---|---|---|---|']
for cat in sorted({r['op'].split('/')[0] for r in vec}):
    n, s, o = figures([r for r in vec if r['op'].split('/')[0] == cat])
    lines.append(f'| {cat} | {n} | {s} | {o} ({100.0 * o / max(n, 1):.0f}%) |')
lines += ['', '## init failures by stage', '']
for k, v in collections.Counter(r['init_stage'] for r in vec if r['init'] != 'ok').most_common():
    lines.append(f'- {k}: {v}')
lines += ['', '## eval failures of the drafts by status', '']
for k, v in collections.Counter(r.get('eval') for r in vec if r['init'] == 'ok' and r.get('eval') != 'ok').most_common():
    lines.append(f'- {k}: {v}')


def reason(t):
    t = re.sub(r'/[^ :]*/', '', t or '')
    t = re.sub(r'\d+', 'N', t)
    return t[:110]


lines += ['', '## commonest reasons (vector operators)', '']
for k, v in collections.Counter(reason(r.get('init_error') or r.get('eval_error')) for r in vec
                                if r['init'] != 'ok' or r.get('eval') != 'ok').most_common(15):
    lines.append(f'- {v} x `{k}`')
lines += ['', '| operator | unit | init | eval | first error |', '|---|---|---|---|---|']
for r in rs:
    err = (r.get('init_error') or r.get('eval_error') or '').replace('|', '\\|')[:160]
    hand = f" (by hand: {r['hand']})" if 'hand' in r else ''
    lines.append(f"| {r['op']} | {r['unit']} | {r['init']} | {r.get('eval', '-')}{hand} | {err} |")
open(os.path.join(a.out, 'summary.md'), 'w').write('\n'.join(lines) + '\n')
print('\n'.join(lines[:12]))
