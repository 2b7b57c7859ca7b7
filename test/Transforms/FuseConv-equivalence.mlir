// The fused graph computes what the exported one does: both run on the same
// random inputs in the reference evaluator, and the outputs must agree.
// RUN: nunc-opt %s --nunc-fuse-conv -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 1 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 1 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); assert sorted(a.files) == sorted(b.files) == ['y', 'z'], (a.files, b.files); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-6, err_msg=k) for k in a.files]" %t.ref.npz %t.fused.npz

// y: Conv (bias, padding) + residual (the input itself) + Relu.
// z: strided Conv + Clip(-0.25, 0.5) (tight enough that both bounds bite).

// CHECK-LABEL: func.func @main(
// CHECK: nunc.fused_conv {{.*}} residual {{.*}} {activation = "relu"
// CHECK: nunc.fused_conv {{.*}} {activation = "clip", activation_max = 5.000000e-01 : f32, activation_min = -2.500000e-01 : f32
// CHECK-NOT: nunc.conv
// CHECK-NOT: nunc.add
func.func @main(%x: tensor<1x2x4x4xf32> {nunc.name = "x"}) -> (tensor<1x2x4x4xf32> {nunc.name = "y"}, tensor<1x2x2x2xf32> {nunc.name = "z"}) {
  %w = nunc.constant dense<[[[[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, -0.8, 0.9]], [[-1.0, 0.2, 0.3], [0.1, -0.5, 0.6], [0.2, 0.8, -0.1]]],
                            [[[0.3, 0.2, 0.1], [-0.4, 0.5, 0.6], [0.7, 0.8, 0.9]], [[0.5, -0.5, 0.5], [-0.5, 0.5, -0.5], [0.5, -0.5, 0.5]]]]> : tensor<2x2x3x3xf32>
  %b = nunc.constant dense<[0.1, -0.3]> : tensor<2xf32>
  %lo = nunc.constant dense<-0.25> : tensor<f32>
  %hi = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.conv %x, %w, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.add %x, %0 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = nunc.relu %1 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %2 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x2x2xf32>
  %z = nunc.clip %2 min %lo : tensor<f32> max %hi : tensor<f32> : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  return %y, %z : tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>
}
