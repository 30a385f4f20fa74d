#!/usr/bin/env python3
"""The daemon's own costs (docs/BENCHMARKS.md, "aoptd"), measured on a real aoptd on a temporary
socket, state directory and evaluation cache:

  submit latency   POST /v1/jobs of the add_custom example (a 10 KB tar), until 201 (the job is
                   persisted before the answer); N submissions, each cancelled at once;
  events/s         GET /v1/jobs/{id}/events?follow=0 of a finished job, read whole, R times;
  orchestration    one job alone on one evaluator slot, fresh cache: the time the search waited
                   for its evaluations minus the evaluators' own time (report.json "time"),
                   per evaluation and as a share of an evaluation's own time: what routing an
                   evaluation through the actors, the pool, the journal and the job store costs.
                   Also the rest of the job's wall time (running -> finished): the engine's
                   proposals, retrieval, the optimizer's bookkeeping, package and result files.

Usage: scripts/bench-daemon.py [BUILD_DIR] [N] [BUDGET] [R]   (default build/ci, 50, 12, 20)
Standard library only."""
import http.client
import io
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=600):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def call(sock, method, target, body=None):
    c = UnixConnection(sock)
    headers = {"Content-Type": "application/x-tar"} if body is not None else {}
    c.request(method, target, body=body, headers=headers)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def package_tar(op_dir):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for root, _, files in os.walk(op_dir):
            for f in sorted(files):
                full = os.path.join(root, f)
                t.add(full, arcname=os.path.relpath(full, op_dir))
    return buf.getvalue()


def metric_sum(text, name, label):
    m = re.search(r"^%s\{[^}]*%s[^}]*\} ([0-9.e+-]+)$" % (re.escape(name), re.escape(label)), text, re.M)
    return float(m.group(1)) if m else 0.0


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "build", "ci")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    budget = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    aoptd = os.path.join(build, "apps", "aoptd", "aoptd")
    if not os.access(aoptd, os.X_OK):
        sys.exit("bench-daemon: %s is missing; build first (cmake --build --preset ci)" % aoptd)
    work = tempfile.mkdtemp(prefix="aopt-bd-", dir="/tmp")
    sock = os.path.join(work, "run", "aoptd.sock")
    with open(os.path.join(work, "aoptd.toml"), "w") as f:
        f.write('[daemon]\nsocket = "%s"\nstate_dir = "%s"\nmetrics_address = "127.0.0.1:0"\n'
                '[jobs]\nmax_running = 1\nevaluator_slots = 1\ncache_dir = "%s"\nbank_dir = "%s"\nlearn = false\n'
                % (sock, os.path.join(work, "state"), os.path.join(work, "cache"), os.path.join(work, "bank")))
    log = open(os.path.join(work, "aoptd.log"), "w+")
    d = subprocess.Popen([aoptd, "--config", os.path.join(work, "aoptd.toml")], stderr=log)
    try:
        for _ in range(200):
            try:
                if call(sock, "GET", "/v1/health")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.05)
        log.seek(0)
        metrics_url = re.search(r"metrics on (http://\S+/metrics)", log.read()).group(1)
        print("machine: %d cores, load average %s" % (os.cpu_count(), " ".join(open("/proc/loadavg").read().split()[:3])))
        tar = package_tar(os.path.join(SRC, "examples", "ops", "add_custom"))

        # Orchestration first, alone on the daemon.
        status, body = call(sock, "POST", "/v1/jobs?budget=%d&seed=1" % budget, tar)
        assert status == 201, body
        job = json.loads(body)["id"]
        while True:
            rec = json.loads(call(sock, "GET", "/v1/jobs/" + job)[1])
            if rec["state"] in ("finished", "failed", "cancelled"):
                break
            time.sleep(0.2)
        assert rec["state"] == "finished", rec
        text = urllib.request.urlopen(metrics_url).read().decode()
        evals = metric_sum(text, "aopt_evaluation_phase_seconds_count", 'phase="run"')
        own = metric_sum(text, "aopt_evaluation_phase_seconds_sum", 'phase="build"') + \
            metric_sum(text, "aopt_evaluation_phase_seconds_sum", 'phase="run"')
        t = json.loads(call(sock, "GET", "/v1/jobs/%s/report.json" % job)[1])["result"]["time"]
        wall = (rec["finished_ms"] - rec["running_ms"]) / 1000.0
        n_eval = max(t["evaluated"], 1)
        routing = t["evaluate_s"] - t["evaluator_s"]
        print("job: budget %d, %d evaluations (%d uncached, %.2f s by the exporter's phase sums), wall %.2f s: "
              "search %.2f s = evaluations %.2f s (their evaluators' own time %.2f s) + engine %.2f s + retrieval "
              "%.3f s + the optimizer's own %.3f s; before and after the search (package, result, report) %.3f s"
              % (budget, t["evaluated"], evals, own, wall, t["total_s"], t["evaluate_s"], t["evaluator_s"],
                 t["engine_s"], t["retrieve_s"], t["total_s"] - t["evaluate_s"] - t["engine_s"] - t["retrieve_s"],
                 wall - t["total_s"]))
        print("orchestration per evaluation (routing through actors, pool, journal and job store): %.1f ms = %.2f%% "
              "of an evaluation's own time (%.0f ms)"
              % (1000 * routing / n_eval, 100 * routing / t["evaluator_s"], 1000 * t["evaluator_s"] / n_eval))

        # Events streamed per second, from the finished job.
        times, count = [], 0
        for _ in range(rounds):
            t0 = time.perf_counter()
            _, ev = call(sock, "GET", "/v1/jobs/%s/events?follow=0&from=0" % job)
            times.append(time.perf_counter() - t0)
            count = ev.count(b"\n")
        print("events: %d per read, %d reads, median %.2f ms per read = %.0f events/s"
              % (count, rounds, 1000 * statistics.median(times), count / statistics.median(times)))

        # Submit latency (each job cancelled at once so the queue stays short).
        lat = []
        for _ in range(n):
            t0 = time.perf_counter()
            status, body = call(sock, "POST", "/v1/jobs?budget=1", tar)
            lat.append(time.perf_counter() - t0)
            assert status == 201, body
            call(sock, "POST", "/v1/jobs/%s/cancel" % json.loads(body)["id"])
        lat.sort()
        print("submit: %d submissions of a %d-byte tar, median %.1f ms, p90 %.1f ms, max %.1f ms"
              % (n, len(tar), 1000 * statistics.median(lat), 1000 * lat[int(0.9 * (n - 1))], 1000 * lat[-1]))
    finally:
        d.terminate()
        try:
            d.wait(20)
        except subprocess.TimeoutExpired:
            d.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
