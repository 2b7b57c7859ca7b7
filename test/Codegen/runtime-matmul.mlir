// f32 MatMuls of two run-time operands run on the GEMM kernel: B packed into
// its panels at run time (a generic pack step), then a GEMM per batch item
// (A and B both batched), one GEMM of all of A's rows (B shared: [2, 5] rows
// as 10), or A shared by every item; a constant B (one matrix per item,
// A shared) is packed at compile time. Widths 33 (a panel tail), 16, 7 and
// 1, K 19 and 1. The results match the evaluator's within rounding (the kernel
// chains fused multiply-adds; the evaluator rounds each product).
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 3 --explain -o %t.jit.npz 2>&1 | FileCheck %s
// RUN: %python -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-6) for k in a.files]; assert len(a.files) == 7" %t.ref.npz %t.jit.npz
// CHECK: kernel nunc.matmul matmul.{{avx512|avx2}}[2 x 5x33x19], B packed at run time
// CHECK: kernel nunc.matmul matmul.{{avx512|avx2}}[1 x 3x16x19], B packed at run time
// CHECK: kernel nunc.matmul matmul.{{avx512|avx2}}[1 x 10x7x19], B packed at run time
// CHECK: kernel nunc.matmul matmul.{{avx512|avx2}}[1 x 10x1x19], B packed at run time
// CHECK: kernel nunc.matmul matmul.{{avx512|avx2}}[3 x 4x7x19], B packed at run time
// CHECK: kernel nunc.matmul matmul.{{avx512|avx2}}[1 x 5x6x1], B packed at run time
// CHECK: kernel nunc.matmul matmul.{{avx512|avx2}}[2 x 4x2x3], B packed at compile time
// CHECK: 7 steps, 0 on the generic path

func.func @main(%a: tensor<2x5x19xf32> {nunc.name = "a"}, %b: tensor<2x19x33xf32> {nunc.name = "b"},
                %c: tensor<19x16xf32> {nunc.name = "c"}, %d: tensor<1x3x19xf32> {nunc.name = "d"},
                %e: tensor<19x7xf32> {nunc.name = "e"}, %f: tensor<19x1xf32> {nunc.name = "f"},
                %s: tensor<4x19xf32> {nunc.name = "s"}, %t: tensor<3x19x7xf32> {nunc.name = "t"},
                %u: tensor<5x1xf32> {nunc.name = "u"}, %v: tensor<1x6xf32> {nunc.name = "v"},
                %sa: tensor<4x3xf32> {nunc.name = "sa"})
    -> (tensor<2x5x33xf32> {nunc.name = "ab"}, tensor<1x3x16xf32> {nunc.name = "dc"},
        tensor<2x5x7xf32> {nunc.name = "ae"}, tensor<2x5x1xf32> {nunc.name = "af"},
        tensor<3x4x7xf32> {nunc.name = "st"}, tensor<5x6xf32> {nunc.name = "uv"},
        tensor<2x4x2xf32> {nunc.name = "sw"}) {
  %ab = nunc.matmul %a, %b : (tensor<2x5x19xf32>, tensor<2x19x33xf32>) -> tensor<2x5x33xf32>
  %dc = nunc.matmul %d, %c : (tensor<1x3x19xf32>, tensor<19x16xf32>) -> tensor<1x3x16xf32>
  %ae = nunc.matmul %a, %e : (tensor<2x5x19xf32>, tensor<19x7xf32>) -> tensor<2x5x7xf32>
  %af = nunc.matmul %a, %f : (tensor<2x5x19xf32>, tensor<19x1xf32>) -> tensor<2x5x1xf32>
  %st = nunc.matmul %s, %t : (tensor<4x19xf32>, tensor<3x19x7xf32>) -> tensor<3x4x7xf32>
  %uv = nunc.matmul %u, %v : (tensor<5x1xf32>, tensor<1x6xf32>) -> tensor<5x6xf32>
  %w = nunc.constant dense<[[[1.0, -2.0], [0.5, 3.0], [-1.5, 0.25]], [[2.0, 1.0], [-0.75, 4.0], [3.5, -2.5]]]> : tensor<2x3x2xf32>
  %sw = nunc.matmul %sa, %w : (tensor<4x3xf32>, tensor<2x3x2xf32>) -> tensor<2x4x2xf32>
  return %ab, %dc, %ae, %af, %st, %uv, %sw : tensor<2x5x33xf32>, tensor<1x3x16xf32>, tensor<2x5x7xf32>, tensor<2x5x1xf32>, tensor<3x4x7xf32>, tensor<5x6xf32>, tensor<2x4x2xf32>
}
