#!/bin/bash
# The first thing to run on an Ascend NPU server (docs/cann.md, "First day on a real NPU"):
# doctor, one `aopt eval` of add_custom on the cann backend with its msprof profile, a short
# search (the partial builds), and (with --calib-config) one short calibration run. It stops at the first step that fails, says what
# looked wrong, and packs everything worth sending back into one archive.
#
#   scripts/cann-smoke.sh --cann-config site.toml [--calib-config calib.toml] [--aopt PATH] [--out DIR]
#
# --aopt: the aopt binary (default: build/ci/apps/aopt/aopt of this checkout, else `aopt` on PATH).
# Exit 0 when every step passed, 1 when one failed (see the archive), 2 on bad usage.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
config="" calib="" aopt="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cann-config) config=${2:-}; shift 2 ;;
    --calib-config) calib=${2:-}; shift 2 ;;
    --aopt) aopt=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "cann-smoke: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
if [ -z "$config" ] || [ ! -f "$config" ]; then
  echo "cann-smoke: --cann-config FILE is required and must exist (copy config/cann.example.toml; docs/cann.md, step 6)" >&2
  exit 2
fi
if [ -z "$aopt" ]; then
  if [ -x "$here/build/ci/apps/aopt/aopt" ]; then aopt="$here/build/ci/apps/aopt/aopt"; else aopt=$(command -v aopt || true); fi
fi
if [ -z "$aopt" ] || [ ! -x "$aopt" ]; then
  echo "cann-smoke: no aopt binary (build it: cmake --preset ci && cmake --build build/ci; or give --aopt PATH)" >&2
  exit 2
fi
out=${out:-$PWD/cann-smoke-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
log="$out/summary.txt"
: > "$log"
say() { echo "$*" | tee -a "$log"; }

finish() {
  local status=$1
  {
    echo "--- environment"
    uname -a
    "$aopt" --version 2>&1 | head -1
    git -C "$here" rev-parse HEAD 2>/dev/null
    for v in version.cfg version.info; do
      for d in "${ASCEND_TOOLKIT_HOME:-}" /usr/local/Ascend/cann /usr/local/Ascend/ascend-toolkit/latest; do
        [ -n "$d" ] && [ -f "$d/$v" ] && { echo "$d/$v:"; cat "$d/$v"; }
      done
    done
  } >> "$out/environment.txt" 2>&1
  cp "$config" "$out/" 2>/dev/null
  [ -n "$calib" ] && cp "$calib" "$out/" 2>/dev/null
  tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")" 2>/dev/null
  if [ "$status" -eq 0 ]; then
    say "ALL STEPS PASSED. Archive (for the record): $out.tar.gz"
  else
    say ""
    say "A STEP FAILED. Send back $out.tar.gz (summary.txt says which step and why; it holds the"
    say "step's full output, npu-smi info, doctor's report, the eval's JSON and msprof CSVs, the"
    say "command profile and the toolkit's version files)."
  fi
  exit "$status"
}

say "== cann smoke test: $(date -u), config $config, aopt $aopt, output $out"

# 0. The card, as the driver sees it (informative: doctor checks it too).
if command -v npu-smi >/dev/null 2>&1; then npu-smi info > "$out/npu-smi.txt" 2>&1; fi

# 1. doctor: the toolkit, msprof, the runner and its runtime, devices, the project.
say "-- 1/4 aopt doctor --cann-config $config"
"$aopt" doctor --cann-config "$config" > "$out/doctor.txt" 2>&1
rc=$?
cat "$out/doctor.txt" >> "$log"
if [ $rc -ne 0 ]; then
  grep -A1 '^MISSING' "$out/doctor.txt"
  say "FAILED: doctor reports missing pieces (the MISSING lines, each with its fix; all of it in doctor.txt)."
  finish 1
fi
grep -q "CANN runtime loaded" "$out/doctor.txt" || say "note: doctor did not check aopt-acl-run (is [commands] run the runner?)"
grep -q "no aclSetAclOpExecutorRepeatable" "$out/doctor.txt" && say "note: the runtime has no repeatable executors: latencies will include the host's launch"

# 2. One evaluation of add_custom on the device, profiled.
say "-- 2/4 aopt eval examples/ops/add_custom --backend cann --case perf_fp32"
# Its work directory (the runner's requests and result.json, msprof's OPPROF_* CSVs) is kept
# under $out/work (TMPDIR) for the archive.
mkdir -p "$out/work"
TMPDIR="$out/work" "$aopt" eval "$here/examples/ops/add_custom" --backend cann --cann-config "$config" --case perf_fp32 --json \
  --no-cache --keep-workdir > "$out/eval.json" 2> "$out/eval.stderr"
# Tensors and binaries are large and say nothing the JSON does not: out of the archive.
find "$out/work" -type f \( -name '*.bin' -o -name '*.so' -o -name '*.o' -o -name '*.run' \) -delete 2>/dev/null
check=$(python3 - "$out/eval.json" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("FAILED: aopt printed no JSON (%s); see eval.stderr" % e); sys.exit(1)
bad = []
if r.get("status") != "ok":
    bad.append("status %s: %s" % (r.get("status"), r.get("diagnostic") or (r.get("cases") or [{}])[0].get("diagnostic", "")))
m = r.get("measurement") or {}
c = (r.get("cases") or [{}])[0]
p = c.get("profile") or {}
warn = " ".join(r.get("warnings") or [])
if r.get("status") == "ok":
    if c.get("mismatch_ratio", 1) != 0: bad.append("outputs differ from the reference (mismatch_ratio %s)" % c.get("mismatch_ratio"))
    if m.get("method") != "events_busy_stream": bad.append("timing method %s: latencies include the host's launch" % m.get("method"))
    if m.get("spread", 1) > 0.05: bad.append("spread %.1f%%: something else runs on the device, or raise [measure] repeat" % (100 * m.get("spread", 1)))
    if "profile_missing" in warn or "msprof Task Duration(us)" not in p: bad.append("no msprof profile: " + warn)
    else:
        task, med = p["msprof Task Duration(us)"], m.get("median_us", 0)
        if med and abs(med / task - 1) > 0.1: bad.append("median %.2f us vs msprof Task Duration %.2f us: more than 10%% apart" % (med, task))
        if p.get("msprof_cores") != c.get("block_dim"): bad.append("msprof rows %s != block_dim %s" % (p.get("msprof_cores"), c.get("block_dim")))
    if m.get("submit_us", 0) >= m.get("median_us", 1): bad.append("submit_us %.2f >= median %.2f: the host is the bottleneck, trust msprof's Task Duration" % (m.get("submit_us", 0), m.get("median_us", 0)))
print("median %.2f us, CI [%.2f, %.2f], spread %.1f%%, method %s, submit %.2f us, msprof Task Duration %s us"
      % (m.get("median_us", 0), m.get("ci_low_us", 0), m.get("ci_high_us", 0), 100 * m.get("spread", 0), m.get("method"),
         m.get("submit_us", 0), p.get("msprof Task Duration(us)")))
for b in bad: print("FAILED: " + b)
sys.exit(1 if bad else 0)
EOF
)
rc=$?
say "$check"
[ $rc -ne 0 ] && finish 1

# 3. A short search: Stage I's variants of one search form run on one build (no command), the
# first one and any host or kernel change through the partial builds (docs/cann.md, "Partial
# builds"). A compile_error naming build_tiling or build_kernel means the msOpGen defaults do
# not fit this CANN version: adapt them, or set them to "" to build such candidates in full.
say "-- 3/4 aopt optimize examples/ops/add_custom --backend cann --budget 6 -j 1 (partial builds)"
start=$(date +%s)
"$aopt" optimize "$here/examples/ops/add_custom" --backend cann --cann-config "$config" --budget 6 -j 1 \
  --out "$out/optimize" > "$out/optimize.txt" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
check=$(python3 - "$out/optimize/report.json" "$out/optimize.txt" "$secs" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("FAILED: no report.json (%s); see optimize.txt" % e); sys.exit(1)
text = open(sys.argv[2], errors="replace").read()
points = r.get("trajectory") or []
statuses = {}
for p in points: statuses[p.get("status")] = statuses.get(p.get("status"), 0) + 1
secs = max(1, int(sys.argv[3]))
print("%d evaluations in %d s (%.1f per minute); statuses %s" % (len(points), secs, 60.0 * len(points) / secs, statuses))
bad = [w for w in ("build_tiling", "build_kernel") if "the %s command" % w in text]
for w in bad: print("FAILED: the %s command failed (optimize.txt); adapt [commands] %s to this CANN version or set it to \"\"" % (w, w))
if not points: print("FAILED: no evaluation ran")
sys.exit(1 if bad or not points else 0)
EOF
)
rc2=$?
say "$check"
[ $rc -ne 0 ] && say "aopt optimize exited $rc (optimize.txt)"
[ $rc2 -ne 0 ] && finish 1

# 4. Calibration (optional: needs the aopt_calib project, docs/cann.md "Calibrating sim").
if [ -n "$calib" ]; then
  say "-- 4/4 aopt calibrate --base a2 --cann-config $calib --launches 3"
  if ! "$aopt" calibrate --base a2 --cann-config "$calib" --launches 3 --name smoke -o "$out/calibrated.json" > "$out/calibrate.txt" 2>&1; then
    tail -20 "$out/calibrate.txt" | tee -a "$log"
    say "FAILED: aopt calibrate (its output: calibrate.txt; the msprof CSVs: calibrated-msprof/)"
    finish 1
  fi
  tail -25 "$out/calibrate.txt" >> "$log"
  say "calibration written: $out/calibrated.json (check the per-case errors in calibrate.txt)"
else
  say "-- 4/4 skipped (no --calib-config)"
fi
finish 0
