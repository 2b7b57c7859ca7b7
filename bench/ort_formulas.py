#!/usr/bin/env python3
"""Which step of a QDQ model onnxruntime computes unlike nunc's formulas.

A compiled library's intermediate codes cannot be read without changing
its fusions, but onnxruntime's can: this runs a QDQ model in onnxruntime
(its default optimizations: QLinearConv, QLinearAdd, ...) with the codes
of every QuantizeLinear exposed as outputs, and puts onnxruntime's own
input codes of each step through the formula nunc computes for it:

- Conv (DequantizeLinear inputs, a QuantizeLinear after it or after its
  Relu / Clip): one-step requantization, round(float(sum + bq) x
  fl(fl(sx sw) / sy)) + zy within the activation's bounds
  (nunc-one-step-requantization); one group or depthwise;
- Add between pairs: onnxruntime's QLinearAdd, round(fma(qa, rA, fma(qb,
  rB, F))) (nunc.add's lhs_quantization);
- BatchNormalization between pairs: a = 1 / sqrt(var + eps) x gamma,
  b = beta - mean x a in f32 steps, x a + b without FMA.

One line per step with the number of codes the formula misses. A step
whose codes all match while nunc's output still differs points at nunc's
kernel or fusion of that step (e.g. an integer depthwise conv whose
epilogue works in code units).

Usage:
  python3 bench/ort_formulas.py model_qdq.onnx --model mobilenet [--seeds 5,6,7]
      [--only-mismatches]
"""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "examples", "models")]
from make_models import random_inputs  # noqa: E402

F32 = np.float32


def fma(x, y, z):
    """f32 fused multiply-add of f32 arrays (the product is exact in f64)."""
    return (x.astype(np.float64) * y + z).astype(np.float32)


class Graph:
    def __init__(self, path):
        import onnx
        from onnx import numpy_helper
        self.onnx, self.nh = onnx, numpy_helper
        self.model = onnx.load(path)
        self.init = {i.name: numpy_helper.to_array(i) for i in self.model.graph.initializer}
        self.producer = {o: n for n in self.model.graph.node for o in n.output}
        self.users = {}
        for n in self.model.graph.node:
            for i in n.input:
                self.users.setdefault(i, []).append(n)

    def const(self, name):
        if name in self.init:
            return self.init[name]
        node = self.producer.get(name)
        if node is not None and node.op_type == "Constant":
            return self.nh.to_array(node.attribute[0].t)
        return None

    def dq(self, name):
        node = self.producer.get(name)
        return node if node is not None and node.op_type == "DequantizeLinear" else None

    def q_after(self, name):
        for n in self.users.get(name, []):
            if n.op_type == "QuantizeLinear":
                return n
        return None

    def grid(self, node):
        """(scale, zero point, lo, hi) of a Q/DQ node."""
        scale = self.const(node.input[1]).astype(np.float32)
        zp = self.const(node.input[2]) if len(node.input) > 2 and node.input[2] else np.uint8(0)
        lo, hi = (-128, 127) if zp.dtype == np.int8 else (0, 255)
        return scale, zp.astype(np.int64), lo, hi


def conv_steps(g):
    for n in g.model.graph.node:
        if n.op_type != "Conv" or not g.dq(n.input[0]) or not g.dq(n.input[1]):
            continue
        act, q = None, g.q_after(n.output[0])
        if q is None:
            acts = [u for u in g.users.get(n.output[0], []) if u.op_type in ("Relu", "Clip")]
            if acts:
                act, q = acts[0], g.q_after(acts[0].output[0])
        if q is not None:
            yield n, act, q


def check_conv(g, codes, n, act, q):
    dqx, dqw = g.dq(n.input[0]), g.dq(n.input[1])
    dqb = g.dq(n.input[2]) if len(n.input) > 2 and n.input[2] else None
    x = codes[dqx.input[0]].astype(np.int64)[0]
    sx, zx, _, _ = g.grid(dqx)
    w = g.const(dqw.input[0]).astype(np.int64)
    sw, zw, _, _ = g.grid(dqw)
    sy, zy, lo, hi = g.grid(q)
    m = w.shape[0]
    sw = np.broadcast_to(sw, (m,)).astype(np.float32)
    zw = np.broadcast_to(zw, (m,))
    attrs = {a.name: g.onnx.helper.get_attribute_value(a) for a in n.attribute}
    pads = attrs.get("pads", [0, 0, 0, 0])
    strides = attrs.get("strides", [1, 1])
    group = attrs.get("group", 1)
    if w.ndim != 4 or attrs.get("dilations", [1, 1]) != [1, 1]:
        return None
    xs = np.pad(x - int(zx), ((0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    wz = w - zw.reshape(-1, 1, 1, 1)
    win = np.lib.stride_tricks.sliding_window_view(xs, w.shape[2:], axis=(1, 2))
    win = win[:, ::strides[0], ::strides[1]]
    if group == 1:
        acc = np.einsum("chwij,mcij->mhw", win, wz)
    elif group == m == xs.shape[0]:
        acc = np.einsum("chwij,cij->chw", win, wz[:, 0])
    else:
        return None
    bq = g.const(dqb.input[0]).astype(np.int64) if dqb is not None else np.zeros(m, np.int64)
    r = ((F32(sx) * sw).astype(np.float32) / F32(sy)).astype(np.float32)
    v = ((acc + bq.reshape(-1, 1, 1)).astype(np.float32) * r.reshape(-1, 1, 1)).astype(np.float32)
    if act is not None and act.op_type == "Relu":
        lo = max(lo, int(zy))
    elif act is not None:
        for i, bound in ((1, "lo"), (2, "hi")):
            if len(act.input) > i and act.input[i]:
                c = int(zy) + int(np.rint(F32(g.const(act.input[i])) / F32(sy)))
                lo, hi = (max(lo, c), hi) if bound == "lo" else (lo, min(hi, c))
    want = np.clip(np.rint(v) + int(zy), lo, hi)
    return int((want != codes[q.output[0]].astype(np.int64)[0]).sum()), want.size


def add_steps(g):
    for n in g.model.graph.node:
        if n.op_type == "Add" and g.dq(n.input[0]) and g.dq(n.input[1]):
            q = g.q_after(n.output[0])
            if q is not None:
                yield n, q


def check_add(g, codes, n, q):
    dqa, dqb = g.dq(n.input[0]), g.dq(n.input[1])
    sa, za, _, _ = g.grid(dqa)
    sb, zb, _, _ = g.grid(dqb)
    sc, zc, lo, hi = g.grid(q)
    if np.ndim(sa) or np.ndim(sb):
        return None
    a = codes[dqa.input[0]].astype(np.float32) if dqa.input[0] in codes else \
        g.const(dqa.input[0]).astype(np.float32)
    b = codes[dqb.input[0]].astype(np.float32) if dqb.input[0] in codes else \
        g.const(dqb.input[0]).astype(np.float32)
    ra, rb = F32(F32(sa) / F32(sc)), F32(F32(sb) / F32(sc))
    fixed = F32(F32(zc) - F32(F32(ra * F32(za)) + F32(rb * F32(zb))))
    want = np.clip(np.rint(fma(a, ra, fma(b, rb, fixed))), lo, hi)
    got = codes[q.output[0]].astype(np.float32)
    return int((want != got).sum()), got.size


def bn_steps(g):
    for n in g.model.graph.node:
        if n.op_type == "BatchNormalization" and g.dq(n.input[0]):
            q = g.q_after(n.output[0])
            if q is not None:
                yield n, q


def check_bn(g, codes, n, q):
    dq = g.dq(n.input[0])
    sx, zx, _, _ = g.grid(dq)
    sy, zy, lo, hi = g.grid(q)

    def value(name):
        d = g.dq(name)
        if d is None:
            return g.const(name).astype(np.float32)
        s, z, _, _ = g.grid(d)
        return ((g.const(d.input[0]).astype(np.float32) - F32(z)) * s).astype(np.float32)
    gamma, beta, mean, var = (value(i) for i in n.input[1:5])
    eps = F32(next((a.f for a in n.attribute if a.name == "epsilon"), 1e-5))
    a = (F32(1) / np.sqrt((var + eps).astype(np.float32))).astype(np.float32)
    a = (a * gamma).astype(np.float32)
    b = (beta - (mean * a).astype(np.float32)).astype(np.float32)
    x = ((codes[dq.input[0]].astype(np.float32) - F32(zx)) * sx).astype(np.float32)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    y = ((x * a.reshape(shape)).astype(np.float32) + b.reshape(shape)).astype(np.float32)
    want = np.clip(np.rint((y / F32(sy)).astype(np.float32)) + int(zy), lo, hi)
    got = codes[q.output[0]].astype(np.float32)
    return int((want != got).sum()), got.size


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", help="a QDQ .onnx file")
    p.add_argument("--model-name", "--model", dest="name", required=True,
                   help="the example model whose random inputs to feed (resnet, mobilenet)")
    p.add_argument("--seeds", default="5")
    p.add_argument("--only-mismatches", action="store_true")
    args = p.parse_args()
    import onnxruntime as ort
    g = Graph(args.model)
    exposed = [n.output[0] for n in g.model.graph.node if n.op_type == "QuantizeLinear"]
    for t in exposed:
        g.model.graph.output.append(g.onnx.ValueInfoProto(name=t))
    options = ort.SessionOptions()
    options.log_severity_level = 3
    sess = ort.InferenceSession(g.model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    steps = ([("conv", n, (n, act, q), check_conv) for n, act, q in conv_steps(g)] +
             [("add", n, (n, q), check_add) for n, q in add_steps(g)] +
             [("batch_norm", n, (n, q), check_bn) for n, q in bn_steps(g)])
    for seed in (int(s) for s in args.seeds.split(",")):
        codes = dict(zip(names, sess.run(None, random_inputs(args.name, 1, None, seed))))
        for kind, node, params, check in steps:
            result = check(g, codes, *params)
            if result is None:
                print(f"seed {seed} {kind:10s} {node.name}: not checked (its form)")
                continue
            missed, total = result
            if missed or not args.only_mismatches:
                print(f"seed {seed} {kind:10s} {node.name}: {missed} of {total} codes missed")


if __name__ == "__main__":
    main()
