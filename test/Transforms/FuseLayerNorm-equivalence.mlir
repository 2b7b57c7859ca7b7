// The fused graph computes what the exported one does: both run on the same
// random inputs in the reference evaluator, and the outputs must agree.
// RUN: nunc-opt %s --nunc-fuse-layer-norm -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 1 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 1 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); assert sorted(a.files) == sorted(b.files) == ['r', 'y', 'z'], (a.files, b.files); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-6, err_msg=k) for k in a.files]" %t.ref.npz %t.fused.npz

// y: torch's LayerNorm(8) with gamma and beta, eps 1e-3 (large enough to
// matter for inputs in [-1, 1)). z: no affine, over the last two axes.
// r: Llama's RMSNorm (x * rsqrt(mean(x^2) + eps) * gamma), eps 1e-2.

// CHECK-LABEL: func.func @main(
// CHECK: nunc.layer_norm {{.*}} {axis = 2 : i64, epsilon = 1.000000e-03 : f32}
// CHECK: nunc.layer_norm {{.*}} {axis = 1 : i64}
// CHECK: nunc.layer_norm {{.*}} {axis = 2 : i64, epsilon = 0.00999999977 : f32, rms}
// CHECK-NOT: nunc.reduce_mean
// CHECK-NOT: nunc.sqrt
func.func @main(%x: tensor<2x4x8xf32> {nunc.name = "x"}) -> (tensor<2x4x8xf32> {nunc.name = "y"}, tensor<2x4x8xf32> {nunc.name = "z"}, tensor<2x4x8xf32> {nunc.name = "r"}) {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %axes2 = nunc.constant dense<[1, 2]> : tensor<2xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-03> : tensor<f32>
  %eps5 = nunc.constant dense<1.0e-05> : tensor<f32>
  %gamma = nunc.constant dense<[1.0, 2.0, 3.0, 4.0, 0.5, -1.0, 0.25, 8.0]> : tensor<8xf32>
  %beta = nunc.constant dense<[0.5, 0.25, 0.0, -0.5, 1.0, 2.0, -1.0, 3.0]> : tensor<8xf32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x4x1xf32> -> tensor<2x4x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %7 = nunc.mul %6, %gamma : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %8 = nunc.add %7, %beta : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %10 = nunc.reduce_mean %x axes %axes2 : tensor<2xi64> : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %11 = nunc.sub %x, %10 : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %12 = nunc.mul %11, %11 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %13 = nunc.reduce_mean %12 axes %axes2 : tensor<2xi64> : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %14 = nunc.add %13, %eps5 : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %15 = nunc.sqrt %14 : tensor<2x1x1xf32> -> tensor<2x1x1xf32>
  %16 = nunc.div %11, %15 : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %epsr = nunc.constant dense<1.0e-02> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %20 = nunc.pow %x, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %21 = nunc.reduce_mean %20 axes %axes : tensor<1xi64> : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %22 = nunc.add %21, %epsr : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %23 = nunc.sqrt %22 : tensor<2x4x1xf32> -> tensor<2x4x1xf32>
  %24 = nunc.div %one, %23 : (tensor<f32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %25 = nunc.mul %x, %24 : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %26 = nunc.mul %gamma, %25 : (tensor<8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %8, %16, %26 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}
