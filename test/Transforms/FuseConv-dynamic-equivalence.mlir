// onnxruntime's quantize_dynamic convolution,
//   (q, s, zp) = DynamicQuantizeLinear(x); y = Cast(ConvInteger(q, W, zp)) * (s * sW),
// becomes a quantized_conv with per-tensor dynamic activations that computes
// exactly the same: the reference evaluator gives identical outputs for
// both forms on the same random inputs (y: per-tensor sW, padding; z:
// per-channel sW [M, 1, 1], stride 2, no zero-point operand for W).
// RUN: nunc-opt %s --nunc-fuse-conv -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 5 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 5 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); [np.testing.assert_array_equal(a[k], b[k], err_msg=k) for k in ('y', 'z')]" %t.ref.npz %t.fused.npz

// CHECK-LABEL: func.func @main(
// CHECK: nunc.quantized_conv %arg0, %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x5x6xf32>, tensor<2x3x3x3x!quant.uniform<i8:f32, 3.125000e-02>>
// CHECK: nunc.quantized_conv %arg0, %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x3x5x6xf32>, tensor<2x3x3x3x!quant.uniform<i8:f32:0, {6.250000e-02,1.562500e-02}>>
// CHECK-NOT: nunc.conv_integer
// CHECK-NOT: nunc.dynamic_quantize_linear
func.func @main(%x: tensor<1x3x5x6xf32> {nunc.name = "x"}) -> (tensor<1x2x5x6xf32> {nunc.name = "y"}, tensor<1x2x3x3xf32> {nunc.name = "z"}) {
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<1x3x5x6xf32> -> tensor<1x3x5x6xui8>, tensor<f32>, tensor<ui8>
  %w = nunc.constant dense<[[[[1, -2, 3], [4, -5, 6], [-7, 8, 9]], [[10, 11, -12], [13, -14, 15], [16, 17, -18]], [[-19, 20, 21], [22, -23, 24], [25, 26, -27]]],
                            [[[127, -128, 3], [0, 5, -6], [7, 8, -9]], [[-1, 1, -1], [1, -1, 1], [-1, 1, -1]], [[2, 4, 8], [16, 32, 64], [-64, -32, -16]]]]> : tensor<2x3x3x3xi8>
  %wzp = nunc.constant dense<0> : tensor<i8>
  %ws = nunc.constant dense<0.03125> : tensor<f32>
  %scale = nunc.mul %s, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %acc = nunc.conv_integer %q, %w input_zero_point %zp : tensor<ui8> weight_zero_point %wzp : tensor<i8> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x5x6xui8>, tensor<2x3x3x3xi8> -> tensor<1x2x5x6xi32>
  %accf = nunc.cast %acc {to = f32} : tensor<1x2x5x6xi32> -> tensor<1x2x5x6xf32>
  %y = nunc.mul %accf, %scale : (tensor<1x2x5x6xf32>, tensor<f32>) -> tensor<1x2x5x6xf32>
  %wsc = nunc.constant dense<[[[0.0625]], [[0.015625]]]> : tensor<2x1x1xf32>
  %scale2 = nunc.mul %wsc, %s : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %acc2 = nunc.conv_integer %q, %w input_zero_point %zp : tensor<ui8> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x3x5x6xui8>, tensor<2x3x3x3xi8> -> tensor<1x2x3x3xi32>
  %acc2f = nunc.cast %acc2 {to = f32} : tensor<1x2x3x3xi32> -> tensor<1x2x3x3xf32>
  %z = nunc.mul %scale2, %acc2f : (tensor<2x1x1xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %y, %z : tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>
}
