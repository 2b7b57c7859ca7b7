// The fused graph computes what the exported one does: both run on the same
// random inputs in the reference evaluator, and the outputs must agree.
// RUN: nunc-opt %s --nunc-fuse-gelu -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 1 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 1 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); assert sorted(a.files) == sorted(b.files) == ['y_erf', 'y_tanh'], (a.files, b.files); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-7, err_msg=k) for k in a.files]" %t.ref.npz %t.fused.npz

// The erf form (x / sqrt 2) and the tanh form (Pow(x, 3)) on an input
// scaled by 3 so that the values reach past [-1, 1).

// CHECK-LABEL: func.func @main(
// CHECK: nunc.gelu %{{.*}} : tensor<4x8xf32>
// CHECK: nunc.gelu %{{.*}} {approximate = "tanh"} : tensor<4x8xf32>
// CHECK-NOT: nunc.erf
// CHECK-NOT: nunc.tanh
func.func @main(%x: tensor<4x8xf32> {nunc.name = "x"}) -> (tensor<4x8xf32> {nunc.name = "y_erf"}, tensor<4x8xf32> {nunc.name = "y_tanh"}) {
  %three = nunc.constant dense<3.0> : tensor<f32>
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %kappa = nunc.constant dense<0.044715> : tensor<f32>
  %beta = nunc.constant dense<0.797884583> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %v = nunc.mul %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %0 = nunc.div %v, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = nunc.erf %0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = nunc.add %1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = nunc.mul %v, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = nunc.mul %3, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %10 = nunc.pow %v, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %11 = nunc.mul %10, %kappa : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %12 = nunc.add %v, %11 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %13 = nunc.mul %12, %beta : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %14 = nunc.tanh %13 : tensor<4x8xf32> -> tensor<4x8xf32>
  %15 = nunc.add %14, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %16 = nunc.mul %v, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %17 = nunc.mul %16, %15 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %4, %17 : tensor<4x8xf32>, tensor<4x8xf32>
}
