// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-macs=1 min-conv-macs=1 activations=static profile=%S/Inputs/bias-correction-profile.json" | FileCheck %s
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-macs=1 min-conv-macs=1 activations=static profile=%S/Inputs/bias-correction-profile.json bias-correction=false" | FileCheck %s --check-prefix=OFF
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-macs=1 min-conv-macs=1" | FileCheck %s --check-prefix=OFF
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-macs=1 min-conv-macs=1 profile=%S/Inputs/bias-correction-profile.json" | FileCheck %s --check-prefix=DYN
// RUN: not nunc-opt %s -split-input-file --nunc-quantize-int8="min-macs=1 min-conv-macs=1 profile=%S/Inputs/bias-correction-profile-stale.json" 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: error: the calibration profile '{{.*}}bias-correction-profile-stale.json' has 3 channel means for the input of linear op 'linear#0', which has 4 channels (recalibrate for this model)

// Bias correction: the profile's mean m_c of each input channel times the
// rounding error of the int8 weights is the mean shift of each output; the
// bias takes it back. Column 0 (scale 7.9375 / 127 = 0.0625): 0.03125 ->
// 0.5 -> 0 (ties to even), error -0.03125 on channel 2 (mean 4): shift
// -0.125. Column 1 (scale 0.5): -1.25 -> -2.5 -> -2 and 0.75 -> 1.5 -> 2,
// errors +0.25 on channels 1 and 2 (means 2 and 4): shift 1.5. Without a
// bias the correction is a new one.
// CHECK-LABEL: func.func @linear_without_bias(
// CHECK:         %[[B:.*]] = nunc.constant dense<[1.250000e-01, -1.500000e+00]> : tensor<2xf32>
// CHECK:         nunc.quantized_linear %arg0, %{{.*}} bias %[[B]]
// OFF-LABEL: func.func @linear_without_bias(
// OFF-NOT:       bias
// OFF:           return
// With dynamic activations, a profile brings only the means: the same
// corrections, the input quantized per row at run time.
// DYN-LABEL: func.func @linear_without_bias(
// DYN:         %[[B:.*]] = nunc.constant dense<[1.250000e-01, -1.500000e+00]> : tensor<2xf32>
// DYN:         nunc.quantized_linear %arg0, %{{.*}} bias %[[B]]
// DYN-NOT:     static
// DYN-LABEL: func.func @linear_with_bias(
// DYN:         nunc.constant dense<[1.125000e+00, 5.000000e-01]>
// DYN-LABEL: func.func @conv(
// DYN:         %[[B:.*]] = nunc.constant dense<[3.125000e-01, 7.500000e-01]> : tensor<2xf32>
// DYN:         nunc.quantized_conv %arg0, %{{.*}} bias %[[B]]
// DYN-NOT:     static
func.func @linear_without_bias(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = nunc.constant dense<[[7.9375, 63.5], [-3.0, -1.25], [0.03125, 0.75], [1.0, 0.0]]> : tensor<4x2xf32>
  %y = nunc.linear %x, %w : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A bias is corrected in place of the old one, which goes.
// CHECK-LABEL: func.func @linear_with_bias(
// CHECK-NOT:     dense<[1.000000e+00, 2.000000e+00]>
// CHECK:         %[[B:.*]] = nunc.constant dense<[1.125000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK:         nunc.quantized_linear %arg0, %{{.*}} bias %[[B]]
// OFF-LABEL: func.func @linear_with_bias(
// OFF:           %[[B:.*]] = nunc.constant dense<[1.000000e+00, 2.000000e+00]>
// OFF:           nunc.quantized_linear %arg0, %{{.*}} bias %[[B]]
func.func @linear_with_bias(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = nunc.constant dense<[[7.9375, 63.5], [-3.0, -1.25], [0.03125, 0.75], [1.0, 0.0]]> : tensor<4x2xf32>
  %b = nunc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = nunc.linear %x, %w bias %b : tensor<2xf32> : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A conv sums the error over the taps of each input channel. Channel 0
// (scale 0.0625): 0.03125 -> 0 (error -0.03125, input channel 0, mean 2),
// 0.09375 -> 2 and -0.15625 -> -2 (errors +0.03125 each, input channel 1,
// mean 4): shift 0.1875. Channel 1 (scale 0.5): 0.75 -> 2 (+0.25, mean 2),
// 1.25 -> 2 (-0.25, mean 4): shift -0.5. Bias [0.5, 0.25] - shift.
// CHECK-LABEL: func.func @conv(
// CHECK:         %[[B:.*]] = nunc.constant dense<[3.125000e-01, 7.500000e-01]> : tensor<2xf32>
// CHECK:         nunc.quantized_conv %arg0, %{{.*}} bias %[[B]]
// OFF-LABEL: func.func @conv(
// OFF:           %[[B:.*]] = nunc.constant dense<[5.000000e-01, 2.500000e-01]>
// OFF:           nunc.{{(quantized_)?}}conv %arg0, %{{.*}} bias %[[B]]
func.func @conv(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x2xf32> {
  %w = nunc.constant dense<[[[[7.9375, 0.03125]], [[0.09375, -0.15625]]], [[[-63.5, 0.75]], [[0.0, 1.25]]]]> : tensor<2x2x1x2xf32>
  %b = nunc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %y = nunc.conv %x, %w, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x2xf32> -> tensor<1x2x3x2xf32>
  return %y : tensor<1x2x3x2xf32>
}
