#!/usr/bin/env python3
"""Independent check of a 3-D convolution operator's sim run (no numpy), stride 1, no padding,
dilation 1, one group, NCDHW: reads a kept work directory's run/<case>/run.json (its inputs' files
and shapes) and the output file it names, computes the result in double and reports how many
elements are off (|err| > atol + rtol |ref|) and the largest relative error.

usage: check-conv-output.py MODE CASE_DIR [--atol A] [--rtol R]
  MODE fwd  y[n, co, s]  = sum_ci x[n, ci, s] w[co, ci]          (a pointwise conv3dv2: filter 1x1x1)
  MODE dw   y[co, ci, k] = sum_{n, o} dy[n, co, o] x[n, ci, o + k] (conv3d_backprop_filter_v2;
                                                                   x, out_backprop; y float32)
  MODE dx   y[n, ci, i]  = sum_{co, k} dy[n, co, i - k] w[co, ci, k] (conv3d_transpose_v2 /
                                                                   conv3d_backprop_input_v2: the
                                                                   gradient input named x or
                                                                   out_backprop, filter; y the
                                                                   input_size [N, CI, O + K - 1, ...])
(docs/corpus-cube.md, "Session 33".)"""
import json
import os
import struct
import sys


def read(path, dtype):
    fmt, size = {"float16": ("e", 2), "float32": ("f", 4)}[dtype]
    with open(path, "rb") as f:
        data = f.read()
    return list(struct.unpack("<%d%s" % (len(data) // size, fmt), data))


def flat(shape):
    """Row-major index of a 5-D position."""
    _, c, d, h, w = shape
    return lambda n, ci, z, y, x: (((n * c + ci) * d + z) * h + y) * w + x


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
    mode, case = args[0], args[1]
    atol, rtol = float(opts.get("atol", 1e-2)), float(opts.get("rtol", 5e-3))
    run = json.load(open(os.path.join(case, "run.json")))
    ins = {i["name"]: i for i in run["inputs"]}
    out = run["outputs"][0]
    y = read(os.path.join(case, out["file"]), out["dtype"])

    def tensor(name):
        return read(ins[name]["file"], ins[name]["dtype"]), ins[name]["shape"]

    refs = []
    if mode == "fwd":
        x, xs = tensor("x")
        w, ws = tensor("filter")
        n_, c_, d_, h_, w_ = xs
        co_, s_ = ws[0], d_ * h_ * w_
        for n in range(n_):
            for co in range(co_):
                for s in range(s_):
                    ref = sum(x[(n * c_ + ci) * s_ + s] * w[co * c_ + ci] for ci in range(c_))
                    refs.append(((n * co_ + co) * s_ + s, ref))
    elif mode == "dw":
        x, xs = tensor("x")
        dy, ds = tensor("out_backprop")
        n_, c_, d_ = xs[0], xs[1], xs[2]
        co_, o_ = ds[1], ds[2]
        k_ = d_ - o_ + 1
        ix, idy = flat(xs), flat(ds)
        for co in range(co_):
            for ci in range(c_):
                for kd in range(k_):
                    for kh in range(k_):
                        for kw in range(k_):
                            ref = 0.0
                            for n in range(n_):
                                for a in range(o_):
                                    for b in range(o_):
                                        for c in range(o_):
                                            ref += dy[idy(n, co, a, b, c)] * x[ix(n, ci, a + kd, b + kh, c + kw)]
                            refs.append(((((co * c_ + ci) * k_ + kd) * k_ + kh) * k_ + kw, ref))
    elif mode == "dx":
        gname = "x" if "input_size" in ins and "x" in ins else "out_backprop"
        dy, ds = tensor(gname)
        w, ws = tensor("filter")
        n_, co_, o_ = ds[0], ds[1], ds[2]
        ci_, k_ = ws[1], ws[2]
        i_ = o_ + k_ - 1
        idy, iw = flat(ds), flat(ws)
        for n in range(n_):
            for ci in range(ci_):
                for z in range(i_):
                    for yy in range(i_):
                        for xx in range(i_):
                            ref = 0.0
                            for kd in range(k_):
                                if not 0 <= z - kd < o_:
                                    continue
                                for kh in range(k_):
                                    if not 0 <= yy - kh < o_:
                                        continue
                                    for kw in range(k_):
                                        if not 0 <= xx - kw < o_:
                                            continue
                                        for co in range(co_):
                                            ref += dy[idy(n, co, z - kd, yy - kh, xx - kw)] * w[iw(co, ci, kd, kh, kw)]
                            refs.append(((((n * ci_ + ci) * i_ + z) * i_ + yy) * i_ + xx, ref))
    else:
        sys.exit("MODE is fwd, dw or dx")
    off, worst = 0, 0.0
    for idx, ref in refs:
        err = abs(y[idx] - ref)
        worst = max(worst, err / (abs(ref) + 1e-2))
        off += err > atol + rtol * abs(ref)
    print(f"{mode}: {off} of {len(refs)} elements off (atol {atol}, rtol {rtol}); largest relative error {worst:.3g}")
    sys.exit(1 if off else 0)


if __name__ == "__main__":
    main()
