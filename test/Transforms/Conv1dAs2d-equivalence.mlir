// The lifted graph computes what the 1-D one does: both run on the same
// random inputs in the reference evaluator, and the outputs must agree.
// RUN: nunc-opt %s --nunc-conv1d-as-2d -o %t.lifted.mlir
// RUN: FileCheck %s --input-file %t.lifted.mlir
// RUN: nunc run --reference %s --random-inputs --seed 5 -o %t.ref.npz
// RUN: nunc run --reference %t.lifted.mlir --random-inputs --seed 5 -o %t.lifted.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); assert sorted(a.files) == sorted(b.files) == ['y', 'z'], (a.files, b.files); [np.testing.assert_allclose(b[k], a[k], rtol=1e-6, atol=1e-6, err_msg=k) for k in a.files]" %t.ref.npz %t.lifted.npz

// y: a grouped, strided conv with asymmetric pads and a bias, a
// BatchNormalization, a Sub of a [C, 1] operand, a Clip, a ceil-mode
// AveragePool that counts its pads.
// z: a depthwise conv with dilation, a Sigmoid, a Div by the input.

// CHECK-LABEL: func.func @main(
// CHECK-NOT: -> tensor<2x6x6xf32>
// CHECK: nunc.conv {{.*}} -> tensor<2x6x1x6xf32>
// CHECK-NOT: -> tensor<2x6x6xf32>
// CHECK: nunc.average_pool {{.*}} -> tensor<2x6x1x3xf32>
// CHECK: nunc.conv {{.*}} -> tensor<2x6x1x11xf32>
func.func @main(%x: tensor<2x6x11xf32> {nunc.name = "x"}, %c: tensor<6x1xf32> {nunc.name = "c"}) -> (tensor<2x6x3xf32> {nunc.name = "y"}, tensor<2x6x11xf32> {nunc.name = "z"}) {
  %w = nunc.constant dense<[[[0.5, -1.0, 0.25], [1.5, 0.75, -0.5], [0.125, -0.25, 1.0]], [[-1.0, 0.5, 0.5], [0.25, 0.25, -2.0], [1.0, 1.0, 0.5]], [[0.5, 0.5, 0.5], [-0.5, -0.5, 0.25], [2.0, -1.0, 0.0]], [[1.0, -1.0, 1.0], [0.5, 0.0, -0.5], [0.25, 0.75, 1.25]], [[-0.25, 0.5, -0.75], [1.0, -1.5, 0.5], [0.0, 0.5, 1.0]], [[0.75, 0.25, -0.25], [-1.0, 2.0, 0.5], [0.5, -0.5, 0.5]]]> : tensor<6x3x3xf32>
  %b = nunc.constant dense<[0.1, -0.2, 0.3, -0.4, 0.5, -0.6]> : tensor<6xf32>
  %s = nunc.constant dense<[1.0, 2.0, 0.5, 1.5, 0.25, 3.0]> : tensor<6xf32>
  %v = nunc.constant dense<[1.0, 0.5, 2.0, 1.5, 0.25, 3.0]> : tensor<6xf32>
  %conv = nunc.conv %x, %w, %b : tensor<6xf32> {dilations = array<i64: 1>, group = 2 : i64, kernel_shape = array<i64: 3>, pads = array<i64: 2, 1>, strides = array<i64: 2>} : tensor<2x6x11xf32>, tensor<6x3x3xf32> -> tensor<2x6x6xf32>
  %n = nunc.batch_norm %conv, %s, %b, %b, %v : (tensor<2x6x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x6xf32>
  %d = nunc.sub %n, %c : (tensor<2x6x6xf32>, tensor<6x1xf32>) -> tensor<2x6x6xf32>
  %lo = nunc.constant dense<-1.0> : tensor<f32>
  %hi = nunc.constant dense<2.0> : tensor<f32>
  %k = nunc.clip %d min %lo : tensor<f32> max %hi : tensor<f32> : tensor<2x6x6xf32> -> tensor<2x6x6xf32>
  %y = nunc.average_pool %k {ceil_mode = 1 : i64, count_include_pad = 1 : i64, dilations = array<i64: 1>, kernel_shape = array<i64: 3>, pads = array<i64: 1, 0>, strides = array<i64: 2>} : tensor<2x6x6xf32> -> tensor<2x6x3xf32>
  %dw = nunc.constant dense<[[[0.5, 1.0, -0.5]], [[1.0, 0.0, 1.0]], [[-1.0, 2.0, 0.5]], [[0.25, 0.5, 0.25]], [[1.5, -0.5, 0.0]], [[0.0, 1.0, 0.0]]]> : tensor<6x1x3xf32>
  %dc = nunc.conv %x, %dw {dilations = array<i64: 2>, group = 6 : i64, kernel_shape = array<i64: 3>, pads = array<i64: 2, 2>, strides = array<i64: 1>} : tensor<2x6x11xf32>, tensor<6x1x3xf32> -> tensor<2x6x11xf32>
  %sg = nunc.sigmoid %dc : tensor<2x6x11xf32> -> tensor<2x6x11xf32>
  %z = nunc.div %sg, %x : (tensor<2x6x11xf32>, tensor<2x6x11xf32>) -> tensor<2x6x11xf32>
  return %y, %z : tensor<2x6x3xf32>, tensor<2x6x11xf32>
}
