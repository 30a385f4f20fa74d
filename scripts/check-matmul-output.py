#!/usr/bin/env python3
"""Independent check of a matmul operator's sim run (no numpy): reads a kept work directory's
run/<case>/in_<a>.bin, in_<b>.bin (float16, row-major [M, K] and [K, N]) and out_<y>.bin
(float16 [M, N]), computes a x b in double, rounds to float16 and reports the largest error.

usage: check-matmul-output.py CASE_DIR M K N [a_name b_name y_name] [--rows R]
(--rows R checks only R rows spread over M, for speed.)"""
import struct
import sys


def halves(path):
    with open(path, "rb") as f:
        data = f.read()
    return list(struct.unpack("<%de" % (len(data) // 2), data))


def to_half(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rows_opt = [a for a in sys.argv[1:] if a.startswith("--rows=")]
    case, m, k, n = args[0], int(args[1]), int(args[2]), int(args[3])
    an, bn, yn = (args[4:7] if len(args) >= 7 else ["x1", "x2", "y"])
    a = halves(f"{case}/in_{an}.bin")
    b = halves(f"{case}/in_{bn}.bin")
    y = halves(f"{case}/out_{yn}.bin")
    assert len(a) >= m * k and len(b) >= k * n and len(y) >= m * n, (len(a), len(b), len(y))
    rows = range(m)
    if rows_opt:
        r = int(rows_opt[0].split("=")[1])
        rows = sorted(set([0, m - 1] + [i * m // r for i in range(r)]))
    worst, worst_at, bad, checked, nonzero = 0.0, None, 0, 0, 0
    for i in rows:
        for j in range(n):
            s = 0.0
            for q in range(k):
                s += a[i * k + q] * b[q * n + j]
            want = to_half(s)
            got = y[i * n + j]
            err = abs(got - want)
            tol = 1e-3 + 1e-3 * abs(want)
            checked += 1
            nonzero += got != 0.0
            if err > tol:
                bad += 1
            if err > worst:
                worst, worst_at = err, (i, j, got, want)
    print(f"{case}: checked {checked} of {m * n} elements ({len(list(rows))} rows), "
          f"beyond tolerance {bad}, max abs err {worst:g} at {worst_at}, nonzero {nonzero}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
