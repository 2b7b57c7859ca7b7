"""Checks average-pool-on-grid.mlir's outputs: the compiled kernels equal the
reference evaluator, and both equal onnxruntime's QLinearAveragePool
arithmetic as written here (f32 sums in window order, taps outside the input
skipped, fl(sum / count), round_half_even(fl(y / s + z)) clamped to the
grid, times s). Where a mean is an exact tie, rounding with the zero point
added after (QuantizeLinear's order) gives another code: enough of those
must occur, and %b must reach its grid's top end."""
import sys

import numpy as np

ref, jit = (np.load(p) for p in sys.argv[1:3])
for k in ref.files:
    np.testing.assert_array_equal(ref[k], jit[k], err_msg=k)

f32 = np.float32


def pool(x, kernel, strides, pads, count_pad, scale, zp, rounding_zp):
    n, c, h, w = x.shape
    oh = (h + pads[0] + pads[2] - kernel[0]) // strides[0] + 1
    ow = (w + pads[1] + pads[3] - kernel[1]) // strides[1] + 1
    y = np.zeros((n, c, oh, ow), f32)
    ties = 0
    for i in range(oh):
        for j in range(ow):
            acc, count = np.zeros((n, c), f32), 0
            for a in range(kernel[0]):
                for b in range(kernel[1]):
                    r, q = i * strides[0] - pads[0] + a, j * strides[1] - pads[1] + b
                    inside = 0 <= r < h and 0 <= q < w
                    count += inside or count_pad
                    if inside:
                        acc = (acc + x[:, :, r, q]).astype(f32)
            mean = (acc / f32(count)).astype(f32)
            t = (mean / f32(scale)).astype(f32)
            code = np.rint((t + f32(rounding_zp)).astype(f32)) - f32(rounding_zp)
            ties += int(np.sum(code != np.rint(t)))
            code = np.clip(code, -zp, 255 - zp)
            y[:, :, i, j] = (code * f32(scale) + f32(0)).astype(f32)
    return y, ties


checks = [("a", "xq", (3, 2), (3, 2), (0, 0, 0, 0), False, 0.015625, 5, 5),
          ("b", "yq", (3, 3), (2, 2), (1, 1, 1, 1), False, 0.0078125, 201, 201),
          ("c", "xq", (2, 3), (1, 3), (0, 0, 0, 0), False, 0.03125, 131, 3)]
for out, src, kernel, strides, pads, count_pad, scale, zp, rounding_zp in checks:
    want, ties = pool(ref[src], kernel, strides, pads, count_pad, scale, zp, rounding_zp)
    np.testing.assert_array_equal(ref[out], want, err_msg=out)
    assert ties >= 10, (out, "ties that the zero point's place decides", ties)
    codes = np.rint(ref[out] / f32(scale)) + zp
    assert out != "b" or codes.max() == 255, (out, codes.min(), codes.max())
