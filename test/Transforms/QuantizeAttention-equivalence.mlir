// Attention on int8 products against the f32 one, in the evaluator and
// compiled: the evaluator's int8 attention stays within int8's resolution
// of the f32 one (cosine > 0.9999), and the compiled kernel equals the
// evaluator's int8 attention (the same codes, exact integer sums, the same
// factors) except where a probability's code lies at a rounding tie (the
// kernel's 2^x against exp): there a row moves by at most 2 max|v| / 255.
// Keys past the 128 a zmm row holds (the softmax row by row) and a
// padding mask (its last 10 keys).
// REQUIRES: avx512vnni
// RUN: nunc-opt %s --nunc-quantize-attention -o %t.int8.mlir
// RUN: FileCheck %s --input-file %t.int8.mlir
// RUN: nunc run --reference %s --random-inputs --seed 7 -o %t.f32.npz
// RUN: nunc run --reference %t.int8.mlir --random-inputs --seed 7 -o %t.ref.npz
// RUN: nunc run %t.int8.mlir --random-inputs --seed 7 -o %t.jit.npz
// RUN: nunc run %s --random-inputs --seed 7 -o %t.jitf32.npz
// RUN: %python -c "import sys, numpy as np; f, r, j, jf = (np.load(p)['y'].astype(np.float64).ravel() for p in sys.argv[1:]); cos = f @ r / np.linalg.norm(f) / np.linalg.norm(r); assert 0.9999 < cos < 1, cos; d = np.abs(j - r); assert d.max() <= 2 / 255, d.max(); assert (d <= 1e-6).mean() >= 0.98, (d <= 1e-6).mean(); assert np.abs(jf - f).max() < 1e-5, 'f32 kernel'" %t.f32.npz %t.ref.npz %t.jit.npz %t.jitf32.npz

// CHECK: nunc.attention {{.*}}int8_products
func.func @main(%q: tensor<1x9x64xf32> {nunc.name = "q"}, %k: tensor<1x150x64xf32> {nunc.name = "k"}, %v: tensor<1x150x64xf32> {nunc.name = "v"}) -> (tensor<1x9x64xf32> {nunc.name = "y"}) {
  %m = nunc.constant dense<[[[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0, -10000.0]]]]> : tensor<1x1x1x150xf32>
  %y = nunc.attention %q, %k, %v mask %m : tensor<1x1x1x150xf32> {num_heads = 2 : i64, scale = 0.5 : f32} : tensor<1x9x64xf32>, tensor<1x150x64xf32>, tensor<1x150x64xf32> -> tensor<1x9x64xf32>
  return %y : tensor<1x9x64xf32>
}
