"""Checks average-pool-mlas-order.mlir's outputs: the generic kernel equals
the reference evaluator, and both equal MLAS's f32 AveragePool as written
here: with a stride of at most 2 along W (and windows of at most 32), each
window column summed over its rows first, then the columns left to right;
otherwise window order; taps outside the input skipped; then a division by
the count (taps inside, or with count_include_pad the window's size).
The other order must give other values somewhere, or the test would not
tell them apart."""
import sys

import numpy as np

ref, jit = (np.load(p) for p in sys.argv[1:3])
for k in ref.files:
    np.testing.assert_array_equal(ref[k], jit[k], err_msg=k)

f32 = np.float32


def pool(x, kernel, strides, pads, columns_first):
    n, c, h, w = x.shape
    oh = (h + pads[0] + pads[2] - kernel[0]) // strides[0] + 1
    ow = (w + pads[1] + pads[3] - kernel[1]) // strides[1] + 1
    y = np.zeros((n, c, oh, ow), f32)
    for i in range(oh):
        for j in range(ow):
            rows = [r for r in range(i * strides[0] - pads[0], i * strides[0] - pads[0] + kernel[0])
                    if 0 <= r < h]
            cols = [q for q in range(j * strides[1] - pads[1], j * strides[1] - pads[1] + kernel[1])
                    if 0 <= q < w]
            acc = np.zeros((n, c), f32)
            if columns_first:
                for q in cols:
                    col = np.zeros((n, c), f32)
                    for r in rows:
                        col = (col + x[:, :, r, q]).astype(f32)
                    acc = (acc + col).astype(f32)
            else:
                for r in rows:
                    for q in cols:
                        acc = (acc + x[:, :, r, q]).astype(f32)
            y[:, :, i, j] = (acc / f32(len(rows) * len(cols))).astype(f32)
    return y


for out, kernel, strides, pads, columns_first in [
        ("a", (3, 2), (3, 2), (0, 0, 0, 0), True), ("b", (3, 3), (2, 1), (1, 1, 1, 1), True),
        ("c", (2, 3), (1, 3), (0, 0, 0, 0), False)]:
    want = pool(ref["v"], kernel, strides, pads, columns_first)
    np.testing.assert_array_equal(ref[out], want, err_msg=out)
    other = pool(ref["v"], kernel, strides, pads, not columns_first)
    assert np.sum(other != want) >= 5, (out, "values the order decides", np.sum(other != want))
