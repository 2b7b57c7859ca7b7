"""Checks softmax-qlinear-steps.mlir's outputs: the compiled kernels equal
the reference evaluator, and both equal onnxruntime's QLinearSoftmax
arithmetic as written here: an exp table of the input grid's steps
(fl(exp((i - 255 + shift) s_x)) in double, shift = max(0, logf(FLT_MAX /
D) - 5) / s_x), the row's entries at 255 - m + k_j summed in f32 in row
order, each times fl(floor(fl(1 / s_y)) / sum), rounded half to even, + zp
and at most 255. floor(1 / s_y) must matter somewhere (1 / s_y would give
other codes), and rows of %b and %c reach their top code."""
import math
import sys

import numpy as np

ref, jit = (np.load(p) for p in sys.argv[1:3])
for k in ref.files:
    np.testing.assert_array_equal(ref[k], jit[k], err_msg=k)

f32 = np.float32


def qlinear_softmax(x, axis, sx, sy, zy, exact_factor=False):
    x = np.moveaxis(x, axis, -1)
    d = x.shape[-1]
    ratio = f32(np.finfo(f32).max) / f32(d)
    shift = max(0.0, float(f32(math.log(ratio))) - 5.0) / float(sx)
    table = np.exp((np.arange(256) - 255 + shift) * float(sx)).astype(f32)
    k = np.rint(x.astype(np.float64) / float(sx)).astype(np.int64)
    e = table[255 - k.max(-1, keepdims=True) + k]
    total = np.zeros(e.shape[:-1], f32)
    for j in range(d):
        total = (total + e[..., j]).astype(f32)
    numerator = f32(1) / f32(sy) if exact_factor else f32(math.floor(f32(1) / f32(sy)))
    factor = (numerator / total).astype(f32)
    q = np.minimum(np.rint((e * factor[..., None]).astype(f32)) + zy, 255)
    return np.moveaxis(((q - zy) * f32(sy)).astype(f32), -1, axis)


checks = [("a", "aq", -1, 0.0625, 1 / 255, 0), ("b", "bq", -1, 0.5, 1 / 255, 0),
          ("c", "cq", 1, 0.25, 0.004, 10), ("d", "dq", -1, 0.03, 1 / 256, 0)]
moved = 0
for out, src, axis, sx, sy, zy in checks:
    sx, sy = f32(sx), f32(sy)
    want = qlinear_softmax(ref[src], axis, sx, sy, zy)
    np.testing.assert_array_equal(ref[out], want, err_msg=out)
    moved += int(np.sum(want != qlinear_softmax(ref[src], axis, sx, sy, zy, True)))
    # The top code a row can reach: floor(1 / s_y) steps over zp, at most 255.
    top = min(255, math.floor(f32(1) / sy) + zy)
    assert out in ("a", "d") or np.rint(ref[out] / sy).max() + zy == top, (out, top)
assert moved >= 5, ("codes that floor(1 / s_y) decides", moved)
