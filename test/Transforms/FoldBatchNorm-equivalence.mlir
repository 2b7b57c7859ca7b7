// The folded graph computes what the exported one does: both run on the same
// random inputs in the reference evaluator, and the outputs must agree.
// RUN: nunc-opt %s --nunc-fold-batch-norm -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 1 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 1 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); assert sorted(a.files) == sorted(b.files) == ['y'], (a.files, b.files); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-6, err_msg=k) for k in a.files]" %t.ref.npz %t.fused.npz

// A 3x3 conv with bias and padding, 2 -> 3 channels, then BatchNorm with
// eps 1e-3 and statistics that are not round numbers.

// CHECK-LABEL: func.func @main(
// CHECK: nunc.conv
// CHECK-NOT: nunc.batch_norm
func.func @main(%x: tensor<1x2x4x4xf32> {nunc.name = "x"}) -> (tensor<1x3x4x4xf32> {nunc.name = "y"}) {
  %w = nunc.constant dense<[[[[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, -0.8, 0.9]], [[-1.0, 0.2, 0.3], [0.1, -0.5, 0.6], [0.2, 0.8, -0.1]]],
                            [[[0.3, 0.2, 0.1], [-0.4, 0.5, 0.6], [0.7, 0.8, 0.9]], [[0.5, -0.5, 0.5], [-0.5, 0.5, -0.5], [0.5, -0.5, 0.5]]],
                            [[[1.1, 0.0, -1.1], [0.0, 2.0, 0.0], [-1.1, 0.0, 1.1]], [[0.25, 0.25, 0.25], [0.25, -2.0, 0.25], [0.25, 0.25, 0.25]]]]> : tensor<3x2x3x3xf32>
  %b = nunc.constant dense<[0.1, -0.3, 0.7]> : tensor<3xf32>
  %gamma = nunc.constant dense<[1.3, -0.7, 0.45]> : tensor<3xf32>
  %beta = nunc.constant dense<[0.2, 0.9, -1.1]> : tensor<3xf32>
  %mean = nunc.constant dense<[0.35, -0.15, 1.2]> : tensor<3xf32>
  %var = nunc.constant dense<[0.8, 2.3, 0.05]> : tensor<3xf32>
  %0 = nunc.conv %x, %w, %b : tensor<3xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x4x4xf32>
  %1 = nunc.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 1.0e-03 : f32} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  return %1 : tensor<1x3x4x4xf32>
}
