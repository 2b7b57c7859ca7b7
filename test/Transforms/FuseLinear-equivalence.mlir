// The fused graph computes what the exported one does: both run on the same
// random inputs in the reference evaluator, and the outputs must agree.
// RUN: nunc-opt %s --nunc-fuse-linear -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 1 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 1 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); assert sorted(a.files) == sorted(b.files) == ['y', 'z'], (a.files, b.files); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-6, err_msg=k) for k in a.files]" %t.ref.npz %t.fused.npz

// y: Gemm(x, W^T, C) with transB = 1, alpha = 2, beta = 0.5, then a residual
// Add and Clip(-1, 6).
// z: MatMul(x3, Transpose(W^T)) on a 3-D input, a bias Add with the bias
// first, and the tanh GELU.

// CHECK-LABEL: func.func @main(
// CHECK: nunc.linear {{.*}} bias {{.*}} residual {{.*}} {activation = "clip", activation_max = 6.000000e+00 : f32, activation_min = -1.000000e+00 : f32}
// CHECK: nunc.linear {{.*}} bias {{.*}} {activation = "gelu_tanh"}
// CHECK-NOT: nunc.gemm
// CHECK-NOT: nunc.matmul
// CHECK-NOT: nunc.add
func.func @main(%x: tensor<3x3xf32> {nunc.name = "x"}, %r: tensor<3x4xf32> {nunc.name = "r"}, %x3: tensor<2x5x3xf32> {nunc.name = "x3"}) -> (tensor<3x4xf32> {nunc.name = "y"}, tensor<2x5x4xf32> {nunc.name = "z"}) {
  %wt = nunc.constant dense<[[1.0, -2.0, 0.5], [0.25, 3.0, -1.0], [-0.5, 0.75, 2.0], [1.5, -1.25, 0.125]]> : tensor<4x3xf32>
  %c = nunc.constant dense<[1.0, -2.0, 3.0, -0.5]> : tensor<4xf32>
  %lo = nunc.constant dense<-1.0> : tensor<f32>
  %hi = nunc.constant dense<6.0> : tensor<f32>
  %0 = nunc.gemm %x, %wt, %c : tensor<4xf32> {alpha = 2.0 : f32, beta = 0.5 : f32, transB = 1 : i64} : tensor<3x3xf32>, tensor<4x3xf32> -> tensor<3x4xf32>
  %1 = nunc.add %0, %r : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %y = nunc.clip %1 min %lo : tensor<f32> max %hi : tensor<f32> : tensor<3x4xf32> -> tensor<3x4xf32>
  %w = nunc.transpose %wt {perm = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
  %b = nunc.constant dense<[0.5, -0.5, 1.5, -1.5]> : tensor<4xf32>
  %2 = nunc.matmul %x3, %w : (tensor<2x5x3xf32>, tensor<3x4xf32>) -> tensor<2x5x4xf32>
  %3 = nunc.add %b, %2 : (tensor<4xf32>, tensor<2x5x4xf32>) -> tensor<2x5x4xf32>
  %z = nunc.gelu %3 {approximate = "tanh"} : tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  return %y, %z : tensor<3x4xf32>, tensor<2x5x4xf32>
}
