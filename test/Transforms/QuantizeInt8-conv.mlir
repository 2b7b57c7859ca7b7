// RUN: nunc-opt %s --nunc-quantize-int8=min-conv-macs=1 | FileCheck %s
// RUN: nunc-opt %s --nunc-quantize-int8="min-conv-macs=1 convs=false" | FileCheck %s --check-prefix=NOCONV
// RUN: nunc-opt %s --nunc-quantize-int8 | FileCheck %s --check-prefix=SMALL

// Output channel m gets the symmetric scale max|W[m]| / 127 (63.5 / 127 =
// 0.5 and 1.0 / 127 -> 127 for the largest, ties to even: 0.25 / 0.5 = 0.5
// -> 0, -0.75 / 0.5 = -1.5 -> -2); bias, residual, activation and the window
// attributes carry over; activations are quantized per tensor at run time.
// CHECK-LABEL: func.func @fused(
// CHECK-NOT:     tensor<2x1x2x2xf32>
// CHECK:         %[[Q:.*]] = nunc.constant dense<{{\[}}{{\[}}{{\[}}[127, 0], [-2, 2]]], {{\[}}{{\[}}[127, -127], [0, 64]]]]> : tensor<2x1x2x2xi8>
// CHECK:         %[[W:.*]] = quant.scast %[[Q]] : tensor<2x1x2x2xi8> to tensor<2x1x2x2x!quant.uniform<i8<-127:127>:f32:0, {5.000000e-01,0.0078740157186985015}>>
// CHECK:         nunc.quantized_conv %arg0, %[[W]] bias %{{.*}} : tensor<2xf32> residual %arg1 : tensor<1x2x3x3xf32> {activation = "relu", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NOT:     nunc.fused_conv
// NOCONV-LABEL: func.func @fused(
// NOCONV:         nunc.fused_conv
// NOCONV-NOT:     quantized_conv
// SMALL-LABEL: func.func @fused(
// SMALL:         nunc.fused_conv
func.func @fused(%x: tensor<1x1x3x3xf32>, %r: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = nunc.constant dense<[[[[63.5, 0.25], [-0.75, 1.0]]], [[[1.0, -1.0], [0.0, 0.5]]]]> : tensor<2x1x2x2xf32>
  %b = nunc.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %y = nunc.fused_conv %x, %w bias %b : tensor<2xf32> residual %r : tensor<1x2x3x3xf32> {activation = "relu", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32> -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// A plain conv (no fusion happened) is taken too.
// CHECK-LABEL: func.func @plain(
// CHECK:         nunc.quantized_conv %arg0, %{{.*}} : tensor<1x2x4x4xf32>, tensor<3x2x3x3x!quant.uniform<i8<-127:127>:f32:0
func.func @plain(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %w = nunc.constant dense<0.5> : tensor<3x2x3x3xf32>
  %y = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// Depthwise (grouped) convolutions and run-time weights stay f32.
// CHECK-LABEL: func.func @stays_f32(
// CHECK:         nunc.conv {{.*}}group = 2
// CHECK:         nunc.conv %{{.*}}, %arg1
// CHECK-NOT:     quantized_conv
func.func @stays_f32(%x: tensor<1x2x4x4xf32>, %rw: tensor<2x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = nunc.constant dense<0.5> : tensor<2x1x3x3xf32>
  %y = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  %z = nunc.conv %x, %rw {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  return %y, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
