#!/usr/bin/env python3
"""Prints the polynomial p(f) ~ 2^f on [0, 1) that the AVX-512 exp2 uses
(kExp2Poly in codegen/x86/VectorMath.cpp): degree 5, p(0) = 1 exactly,
the other coefficients fitted for the smallest relative error by iteratively
reweighted least squares on Chebyshev nodes (close to minimax), then rounded
to float32. Checks p evaluated in float32 with FMAs, as the kernel does,
against double precision over a dense grid of f."""
import numpy as np

DEGREE = 5
x = (np.cos(np.pi * (np.arange(6000) + 0.5) / 6000) + 1) / 2
y = np.exp2(x)
powers = np.vander(x, DEGREE + 1, increasing=True)[:, 1:]
w = np.ones_like(x)
for _ in range(80):
    c = np.linalg.lstsq(powers * (w / y)[:, None], (y - 1) * w / y, rcond=None)[0]
    e = np.abs((1 + powers @ c) / y - 1)
    w = w * (1 + 20 * e / e.max())
    w /= w.mean()
coeffs = np.concatenate([[1.0], c]).astype(np.float32)

# Horner with FMAs in float32: the product of two floats is exact in double.
f = np.linspace(0, 1, 4000001, dtype=np.float32)[:-1]
p = np.full(f.shape, coeffs[-1], np.float32)
for k in range(DEGREE - 1, -1, -1):
    p = (p.astype(np.float64) * f + np.float64(coeffs[k])).astype(np.float32)
worst = np.max(np.abs(p / np.exp2(f.astype(np.float64)) - 1))

def literal(v):
    s = "%.9g" % v
    return s + (".f" if "." not in s and "e" not in s else "f")


print("const float kExp2Poly[%d] = {%s};" % (DEGREE + 1, ", ".join(literal(v) for v in coeffs)))
print("// worst relative error in float32: %.2g" % worst)
assert worst < 1.5e-7, worst
