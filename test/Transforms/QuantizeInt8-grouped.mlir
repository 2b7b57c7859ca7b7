// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-conv-macs=1 activations=static profile=%S/Inputs/grouped-conv-profile.json" | FileCheck %s
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-conv-macs=1" | FileCheck %s --check-prefix=DYN

// A grouped conv whose groups take whole blocks of four input channels
// becomes a quantized_conv with its group; the bias correction of output m
// reads the means of its own group's channels. Output 0 (group 0, scale
// 7.9375 / 127 = 0.0625): 0.03125 -> 0.5 -> 0 (ties to even), error
// -0.03125 on channel 1 (mean 2): shift -0.0625. Output 1 (group 1, scale
// 0.5): 0.75 -> 1.5 -> 2, error +0.25 on its channel 2, input channel 6
// (mean 7): shift 1.75.
// CHECK-LABEL: func.func @grouped(
// CHECK:         %[[B:.*]] = nunc.constant dense<[6.250000e-02, -1.750000e+00]> : tensor<2xf32>
// CHECK:         nunc.quantized_conv %arg0, %{{.*}} bias %[[B]] : tensor<2xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, group = 2 : i64, input_quantization = !quant.uniform<u8:f32, 5.000000e-02>
// DYN-LABEL: func.func @grouped(
// DYN:           nunc.quantized_conv %arg0, %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64,
// DYN-NOT:       bias
func.func @grouped(%x: tensor<1x8x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = nunc.constant dense<[[[[7.9375]], [[0.03125]], [[0.0]], [[0.0]]], [[[63.5]], [[0.0]], [[0.75]], [[0.0]]]]> : tensor<2x4x1x1xf32>
  %y = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x2x2xf32>, tensor<2x4x1x1xf32> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Groups of two input channels stay f32 (int8ConvGroups).
// DYN-LABEL: func.func @two_channels_a_group(
// DYN:           nunc.conv {{.*}}group = 4 : i64
// DYN-NOT:       quantized_conv
func.func @two_channels_a_group(%x: tensor<1x8x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %w = nunc.constant dense<0.5> : tensor<4x2x1x1xf32>
  %y = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x2x2xf32>, tensor<4x2x1x1xf32> -> tensor<1x4x2x2xf32>
  return %y : tensor<1x4x2x2xf32>
}
