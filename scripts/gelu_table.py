#!/usr/bin/env python3
"""Prints the piecewise-cubic table of g(a) = erf(a / sqrt 2) / 2 that the
AVX-512 GELU uses (kGeluCubic in codegen/x86/VectorMath.cpp): 32 intervals of a = |x| in
[0, 4 sqrt 2), each a cubic in the position f in [0, 1) within its interval,
fitted in double precision on Chebyshev nodes, rounded to float32, and the
constant term refitted after the others' rounding; the last interval is the
constant 1/2. Checks the GELU
evaluated in float32 as the kernel does, x (1/2 + sign(x) g(|x|)), against
double precision."""
import math
import numpy as np

f32 = np.float32
C = f32(4 * math.sqrt(2))           # erf(C / sqrt 2) = 1 to float precision
s = f32(32) / C                      # t = fl(min(|x|, C) * s) must stay below 32
while f32(C * s) >= f32(32):
    s = np.nextafter(s, f32(0))
g = lambda a: 0.5 * np.vectorize(math.erf)(a / math.sqrt(2))

nodes = 0.5 - 0.5 * np.cos(np.pi * (np.arange(64) + 0.5) / 64)
coeffs = []
for i in range(32):
    x = (i + nodes) / np.float64(s)
    c = np.polynomial.polynomial.polyfit(nodes, g(x), 3).astype(f32)
    # Refit c0 against the rounded higher terms.
    rest = ((c[3] * nodes + c[2]) * nodes + c[1]) * nodes
    c[0] = f32(np.mean(g(x) - rest) if i else 0.0)
    if i == 31:
        # Exactly 1/2 on the last interval (erf(a / sqrt 2) / 2 > 1/2 - 2.1e-8
        # there): past the clamp, x (1/2 - g) is then 0 for every x < 0.
        c = np.array([0.5, 0, 0, 0], dtype=f32)
    coeffs.append(c)
coeffs = np.array(coeffs)

# Float32 evaluation exactly as the kernel does it.
worst = 0.0
for a in np.concatenate([np.linspace(0, 8, 200001), [1e4, 1e30]]).astype(f32):
    t = f32(min(a, C) * s)
    idx = int(t)
    f = f32(t - f32(idx))
    c = coeffs[idx]
    v = f32(f32(c[3] * f + c[2]) * f + c[1])
    v = f32(f32(v * f) + c[0])
    for sign in (1, -1):  # x (1/2 + sign(x) g(|x|))
        got = f32(f32(sign * a) * f32(f32(0.5) + f32(sign * v)))
        want = sign * a * (0.5 + sign * float(g(np.float64(a))))
        worst = max(worst, abs(float(got) - want) / max(1.0, abs(want)))
assert worst < 3e-7, worst


def literal(v):
    text = f"{float(v):.9g}"
    return text + ("f" if any(ch in text for ch in ".e") else ".f")


print(f"// worst |error| / max(1, |GELU|): {worst:.2g}")
print(f"constexpr float kGeluClamp = {literal(C)}, kGeluScale = {literal(s)};")
print("const float kGeluCubic[4][32] = {")
for k in range(4):
    print(f"    {{// c{k}")
    for r in range(0, 32, 4):
        print("     " + ", ".join(literal(v) for v in coeffs[r:r + 4, k]) + ",")
    print("    },")
print("};")
