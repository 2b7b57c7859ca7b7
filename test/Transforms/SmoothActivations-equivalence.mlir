// Smoothing leaves the f32 model's outputs unchanged up to rounding: the
// reference evaluator gives the same outputs before and after the pass.
// RUN: nunc-opt %s --nunc-smooth-activations="profile=%S/Inputs/smoothing-profile.json" -o %t.smoothed.mlir
// RUN: FileCheck %s --input-file %t.smoothed.mlir
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run --reference %t.smoothed.mlir --random-inputs --seed 3 -o %t.smoothed.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-5, err_msg=k) for k in ('q', 'k', 'res')]; assert not np.array_equal(a['q'], 0 * a['q'])" %t.ref.npz %t.smoothed.npz

// CHECK-COUNT-2: nunc.layer_norm
func.func @main(%x: tensor<5x4xf32> {nunc.name = "x"}) -> (tensor<5x2xf32> {nunc.name = "q"}, tensor<5x1xf32> {nunc.name = "k"}, tensor<5x4xf32> {nunc.name = "res"}) {
  %g = nunc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = nunc.constant dense<[0.5, -1.0, 0.25, 8.0]> : tensor<4xf32>
  %w1 = nunc.constant dense<[[1.0, 2.0], [1.0, -2.0], [3.0, 0.0], [-1.0, 0.5]]> : tensor<4x2xf32>
  %w2 = nunc.constant dense<[[1.0], [0.5], [-1.0], [0.25]]> : tensor<4x1xf32>
  %bias = nunc.constant dense<[0.125, -3.0]> : tensor<2xf32>
  %y, %m, %r = nunc.layer_norm %x, %g, %b : tensor<4xf32> {axis = 1 : i64, epsilon = 1.0e-12 : f32} : tensor<5x4xf32>, tensor<4xf32> -> tensor<5x4xf32>, tensor<5x1xf32>, tensor<5x1xf32>
  %q = nunc.linear %y, %w1 bias %bias : tensor<2xf32> {activation = "gelu"} : tensor<5x4xf32>, tensor<4x2xf32> -> tensor<5x2xf32>
  %k = nunc.linear %y, %w2 : tensor<5x4xf32>, tensor<4x1xf32> -> tensor<5x1xf32>
  %res = nunc.add %y, %x : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
  return %q, %k, %res : tensor<5x2xf32>, tensor<5x1xf32>, tensor<5x4xf32>
}
