// The generic path's MatMul (what attention heads of QDQ models and other
// unfused MatMuls of two activations take) adds each output's products in k
// order, as the reference evaluator does, whether it runs a row 16 columns at
// a time (f32 vectors) or column by column (the tail, f64): the compiled
// results equal the evaluator's bit for bit. Widths 33 (two vectors and a
// tail), 16, 7 and 1; batch broadcast on the left.
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 3 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); [np.testing.assert_array_equal(b[k], a[k]) for k in a.files]; assert len(a.files) == 5" %t.ref.npz %t.jit.npz

func.func @main(%a: tensor<2x5x19xf32> {nunc.name = "a"}, %b: tensor<2x19x33xf32> {nunc.name = "b"},
                %c: tensor<19x16xf32> {nunc.name = "c"}, %d: tensor<1x3x19xf32> {nunc.name = "d"},
                %e: tensor<19x7xf32> {nunc.name = "e"}, %f: tensor<19x1xf32> {nunc.name = "f"},
                %g: tensor<4x19xf64> {nunc.name = "g"}, %h: tensor<19x21xf64> {nunc.name = "h"})
    -> (tensor<2x5x33xf32> {nunc.name = "ab"}, tensor<1x3x16xf32> {nunc.name = "dc"},
        tensor<2x5x7xf32> {nunc.name = "ae"}, tensor<2x5x1xf32> {nunc.name = "af"},
        tensor<4x21xf64> {nunc.name = "gh"}) {
  %ab = nunc.matmul %a, %b : (tensor<2x5x19xf32>, tensor<2x19x33xf32>) -> tensor<2x5x33xf32>
  %dc = nunc.matmul %d, %c : (tensor<1x3x19xf32>, tensor<19x16xf32>) -> tensor<1x3x16xf32>
  %ae = nunc.matmul %a, %e : (tensor<2x5x19xf32>, tensor<19x7xf32>) -> tensor<2x5x7xf32>
  %af = nunc.matmul %a, %f : (tensor<2x5x19xf32>, tensor<19x1xf32>) -> tensor<2x5x1xf32>
  %gh = nunc.matmul %g, %h : (tensor<4x19xf64>, tensor<19x21xf64>) -> tensor<4x21xf64>
  return %ab, %dc, %ae, %af, %gh : tensor<2x5x33xf32>, tensor<1x3x16xf32>, tensor<2x5x7xf32>, tensor<2x5x1xf32>, tensor<4x21xf64>
}
