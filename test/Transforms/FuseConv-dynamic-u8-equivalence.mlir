// quantize_dynamic's convolution with u8 weights (weight_type QUInt8: zero
// points, per output channel here, and per-channel scales [M, 1, 1]), which
// the int8 convolution cannot take, becomes a Conv of the dequantized
// activations and weights: the same products, summed in f32 where
// ConvInteger sums exactly, so the reference evaluator's outputs for both
// forms agree to float rounding. With int8=false (targets without int8
// convolutions) s8 weights take the same path.
// RUN: nunc-opt %s --nunc-fuse-conv -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc-opt %s --nunc-fuse-conv=int8=false | FileCheck %s --check-prefix=NOINT8
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 3 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-5 * np.abs(a[k]).max(), err_msg=k) for k in ('y', 'z')]" %t.ref.npz %t.fused.npz

// CHECK-LABEL: func.func @main(
// CHECK-DAG: %[[X:.*]] = nunc.dynamic_fake_quantize %arg0 : tensor<1x3x5x6xf32> -> tensor<1x3x5x6xf32>
// CHECK-DAG: %[[WS:.*]] = nunc.constant dense<[6.250000e-02, 1.562500e-02]> : tensor<2xf32>
// CHECK-DAG: %[[W:.*]] = nunc.dequantize_linear %{{.*}}, %[[WS]], %{{.*}} : tensor<2xui8> {axis = 0 : i64} : tensor<2x3x3x3xui8>, tensor<2xf32> -> tensor<2x3x3x3xf32>
// CHECK: %[[Y:.*]] = nunc.conv %[[X]], %[[W]]
// CHECK-SAME: strides = array<i64: 1, 1>
// CHECK: nunc.quantized_conv
// CHECK-NOT: nunc.conv_integer
// CHECK: return %[[Y]]

// NOINT8-LABEL: func.func @main(
// NOINT8-COUNT-2: nunc.conv %{{.*}}, %{{.*}} {{.*}}
// NOINT8-NOT: nunc.conv_integer
// NOINT8-NOT: nunc.quantized_conv
func.func @main(%x: tensor<1x3x5x6xf32> {nunc.name = "x"}) -> (tensor<1x2x5x6xf32> {nunc.name = "y"}, tensor<1x2x3x3xf32> {nunc.name = "z"}) {
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<1x3x5x6xf32> -> tensor<1x3x5x6xui8>, tensor<f32>, tensor<ui8>
  %w = nunc.constant dense<[[[[1, 200, 3], [4, 255, 6], [0, 8, 9]], [[10, 11, 12], [13, 140, 15], [16, 17, 180]], [[19, 20, 21], [22, 230, 24], [25, 26, 27]]],
                            [[[127, 128, 3], [0, 5, 6], [7, 8, 9]], [[1, 1, 1], [1, 1, 1], [1, 1, 1]], [[2, 4, 8], [16, 32, 64], [64, 32, 16]]]]> : tensor<2x3x3x3xui8>
  %wzp = nunc.constant dense<[120, 131]> : tensor<2xui8>
  %wsc = nunc.constant dense<[[[0.0625]], [[0.015625]]]> : tensor<2x1x1xf32>
  %scale = nunc.mul %wsc, %s : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %acc = nunc.conv_integer %q, %w input_zero_point %zp : tensor<ui8> weight_zero_point %wzp : tensor<2xui8> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x5x6xui8>, tensor<2x3x3x3xui8> -> tensor<1x2x5x6xi32>
  %accf = nunc.cast %acc {to = f32} : tensor<1x2x5x6xi32> -> tensor<1x2x5x6xf32>
  %y = nunc.mul %accf, %scale : (tensor<1x2x5x6xf32>, tensor<2x1x1xf32>) -> tensor<1x2x5x6xf32>
  %w8 = nunc.constant dense<3> : tensor<2x3x3x3xi8>
  %ws8 = nunc.constant dense<0.03125> : tensor<f32>
  %scale8 = nunc.mul %s, %ws8 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %acc8 = nunc.conv_integer %q, %w8 input_zero_point %zp : tensor<ui8> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x3x5x6xui8>, tensor<2x3x3x3xi8> -> tensor<1x2x3x3xi32>
  %acc8f = nunc.cast %acc8 {to = f32} : tensor<1x2x3x3xi32> -> tensor<1x2x3x3xf32>
  %z = nunc.mul %acc8f, %scale8 : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  return %y, %z : tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>
}
