// The generic path's MatMul (f64, integers, and f32 batches that broadcast
// on both sides, which the GEMM kernel does not take) adds each output's
// products in k order, as the reference evaluator does, whether it runs a
// row 16 columns at a time (f32 vectors) or column by column (the tail,
// f64): the compiled results equal the evaluator's bit for bit. Widths 33
// (two vectors and a tail) and 21.
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 3 --explain -o %t.jit.npz 2>&1 | FileCheck %s
// RUN: %python -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); [np.testing.assert_array_equal(b[k], a[k]) for k in a.files]; assert len(a.files) == 2" %t.ref.npz %t.jit.npz
// CHECK: generic nunc.matmul generic
// CHECK: generic nunc.matmul generic
// CHECK: 2 steps, 2 on the generic path

func.func @main(%a: tensor<2x1x5x19xf32> {nunc.name = "a"}, %b: tensor<1x3x19x33xf32> {nunc.name = "b"},
                %g: tensor<4x19xf64> {nunc.name = "g"}, %h: tensor<19x21xf64> {nunc.name = "h"})
    -> (tensor<2x3x5x33xf32> {nunc.name = "ab"}, tensor<4x21xf64> {nunc.name = "gh"}) {
  %ab = nunc.matmul %a, %b : (tensor<2x1x5x19xf32>, tensor<1x3x19x33xf32>) -> tensor<2x3x5x33xf32>
  %gh = nunc.matmul %g, %h : (tensor<4x19xf64>, tensor<19x21xf64>) -> tensor<4x21xf64>
  return %ab, %gh : tensor<2x3x5x33xf32>, tensor<4x21xf64>
}
