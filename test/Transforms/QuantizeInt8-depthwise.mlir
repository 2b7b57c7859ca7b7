// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-conv-macs=1 activations=static profile=%S/Inputs/depthwise-profile.json" | FileCheck %s
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-conv-macs=1 activations=static profile=%S/Inputs/depthwise-profile.json keep-f32=conv#1" | FileCheck %s --check-prefix=KEEP
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-conv-macs=1" | FileCheck %s --check-prefix=DYNAMIC
// conv#1's grid: mean square 4 over the noise 0.05^2 / 12 is 42.8 dB, handed
// over at the default 40 dB and at 42.7, not at 43.
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-conv-macs=1 activations=static profile=%S/Inputs/depthwise-profile.json min-handover-snr=42.7" | FileCheck %s --check-prefix=SNR42
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-conv-macs=1 activations=static profile=%S/Inputs/depthwise-profile.json min-handover-snr=43" | FileCheck %s --check-prefix=SNR43
// An all-zero input (mean square 0: -inf dB) is handed over only when the
// threshold is 0.
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-conv-macs=1 activations=static profile=%S/Inputs/depthwise-profile-silent.json" | FileCheck %s --check-prefix=SNR43
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-conv-macs=1 activations=static profile=%S/Inputs/depthwise-profile-silent.json min-handover-snr=0" | FileCheck %s --check-prefix=SNR42
// Without the handover (targets whose depthwise kernel reads only f32), as
// below the threshold.
// RUN: nunc-opt %s -split-input-file --nunc-quantize-int8="min-conv-macs=1 activations=static profile=%S/Inputs/depthwise-profile.json depthwise-handover=false" | FileCheck %s --check-prefix=SNR43

// Static activations: the int8 conv whose only use is a depthwise conv
// takes the depthwise conv's calibrated input range (profile entry conv#1:
// scale 0.05, zero point 0) as its output grid, and the depthwise filter is
// rounded per channel to 127 steps of max |w| / 127 (channel 0: steps of
// 0.01, 0.005 -> 0 and -0.635 -> -0.64 by ties to even, 0.015 -> 0.02,
// 0.0149 -> 0.01). Bias correction with conv#1's channel means (2, 1):
// channel 0's rounding errors sum to -0.0099, so its bias 0.5 becomes
// 0.5 + 2 x 0.0099 = 0.5198; channel 1 (all +-127 steps) keeps -0.25.
// CHECK-LABEL: func.func @handover(
// CHECK:         %[[Y:.*]] = nunc.quantized_conv %arg0, %{{.*}} {activation = "relu", activation_quantization = "static",{{.*}} input_quantization = !quant.uniform<u8:f32, 1.562500e-02:64>,{{.*}} output_quantization = !quant.uniform<u8:f32, 5.000000e-02>,
// CHECK:         %[[W:.*]] = nunc.constant dense<{{\[}}{{\[}}{{\[}}[1.270000e+00, 0.000000e+00, 2.000000e-02], [0.00999999977, -6.400000e-01, 0.000000e+00], [2.000000e-02, 0.000000e+00, -1.270000e+00]]], {{\[}}{{\[}}[5.000000e-01, 5.000000e-01, 5.000000e-01], [5.000000e-01, 5.000000e-01, 5.000000e-01], [5.000000e-01, 5.000000e-01, -5.000000e-01]]]]> : tensor<2x1x3x3xf32>
// CHECK:         %[[B:.*]] = nunc.constant dense<[5.198000e-01, -2.500000e-01]> : tensor<2xf32>
// CHECK:         nunc.conv %[[Y]], %[[W]], %[[B]] : tensor<2xf32> {{.*}}group = 2
// KEEP-LABEL: func.func @handover(
// KEEP-NOT:      output_quantization
// KEEP:          nunc.constant dense<{{\[}}{{\[}}{{\[}}[1.270000e+00, 5.000000e-03, 1.500000e-02]
// KEEP:          nunc.conv
// DYNAMIC-LABEL: func.func @handover(
// DYNAMIC:       nunc.quantized_conv %arg0, %{{.*}} {activation = "relu", dilations
// DYNAMIC-NOT:   output_quantization
// DYNAMIC:       nunc.constant dense<{{\[}}{{\[}}{{\[}}[1.270000e+00, 5.000000e-03, 1.500000e-02]
// DYNAMIC:       nunc.conv
// SNR42-LABEL: func.func @handover(
// SNR42:         nunc.quantized_conv {{.*}} output_quantization = !quant.uniform<u8:f32, 5.000000e-02>,
// SNR42:         nunc.constant dense<{{\[}}{{\[}}{{\[}}[1.270000e+00, 0.000000e+00, 2.000000e-02]
// SNR43-LABEL: func.func @handover(
// SNR43-NOT:     output_quantization
// SNR43:         nunc.constant dense<{{\[}}{{\[}}{{\[}}[1.270000e+00, 5.000000e-03, 1.500000e-02]
// SNR43:         nunc.constant dense<[5.000000e-01, -2.500000e-01]>
// SNR43:         nunc.conv
func.func @handover(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = nunc.constant dense<[[[[1.0]], [[-0.5]]], [[[0.25]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %y = nunc.fused_conv %x, %w {activation = "relu", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %d = nunc.constant dense<[[[[1.27, 0.005, 0.015], [0.0149, -0.635, 0.0], [0.02, 0.0, -1.27]]], [[[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, -0.5]]]]> : tensor<2x1x3x3xf32>
  %b = nunc.constant dense<[0.5, -0.25]> : tensor<2xf32>
  %z = nunc.conv %y, %d, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  return %z : tensor<1x2x4x4xf32>
}

// -----

// An int8 conv read by more than the depthwise conv keeps its f32 output,
// and the depthwise filter its f32 values.
// CHECK-LABEL: func.func @shared(
// CHECK-NOT:     output_quantization
// CHECK:         nunc.constant dense<{{\[}}{{\[}}{{\[}}[1.270000e+00, 5.000000e-03, 1.500000e-02]
// CHECK:         nunc.conv
func.func @shared(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = nunc.constant dense<[[[[1.0]], [[-0.5]]], [[[0.25]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %y = nunc.fused_conv %x, %w {activation = "relu", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %d = nunc.constant dense<[[[[1.27, 0.005, 0.015], [0.0149, -0.635, 0.0], [0.02, 0.0, -1.27]]], [[[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, -0.5]]]]> : tensor<2x1x3x3xf32>
  %z = nunc.conv %y, %d {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  return %y, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A depthwise filter 5 taps wide (two dwords a row in the integer
// kernel): rounded as @handover's (0.005 -> 0, 0.015 -> 0.02, 0.0149 ->
// 0.01, -0.635 -> -0.64: errors -0.0099, bias 0.5 + 2 x 0.0099).
// CHECK-LABEL: func.func @five_wide(
// CHECK:         nunc.quantized_conv {{.*}} output_quantization = !quant.uniform<u8:f32, 5.000000e-02>,
// CHECK:         nunc.constant dense<{{\[}}{{\[}}{{\[}}[1.270000e+00, 0.000000e+00, 2.000000e-02, 0.00999999977, -6.400000e-01]]]
// CHECK:         nunc.constant dense<[5.198000e-01, -2.500000e-01]> : tensor<2xf32>
// CHECK:         nunc.conv
func.func @five_wide(%x: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %w = nunc.constant dense<[[[[1.0]], [[-0.5]]], [[[0.25]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %y = nunc.fused_conv %x, %w {activation = "relu", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x8xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x8xf32>
  %d = nunc.constant dense<[[[[1.27, 0.005, 0.015, 0.0149, -0.635]]], [[[0.5, 0.5, 0.5, 0.5, -0.5]]]]> : tensor<2x1x1x5xf32>
  %b = nunc.constant dense<[0.5, -0.25]> : tensor<2xf32>
  %z = nunc.conv %y, %d, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 5>, pads = array<i64: 0, 2, 0, 2>, strides = array<i64: 1, 1>} : tensor<1x2x4x8xf32>, tensor<2x1x1x5xf32> -> tensor<1x2x4x8xf32>
  return %z : tensor<1x2x4x8xf32>
}

// -----

// A depthwise filter 9 taps wide (wider than the integer kernel takes):
// the int8 conv still hands over the grid, the filter and bias stay f32.
// CHECK-LABEL: func.func @wide(
// CHECK:         nunc.quantized_conv {{.*}} output_quantization = !quant.uniform<u8:f32, 5.000000e-02>,
// CHECK:         nunc.constant dense<{{\[}}{{\[}}{{\[}}[1.270000e+00, 5.000000e-03, 1.500000e-02, 1.490000e-02, -6.350000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 2.000000e-02]]]
// CHECK:         nunc.constant dense<[5.000000e-01, -2.500000e-01]> : tensor<2xf32>
// CHECK:         nunc.conv
func.func @wide(%x: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %w = nunc.constant dense<[[[[1.0]], [[-0.5]]], [[[0.25]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %y = nunc.fused_conv %x, %w {activation = "relu", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x8xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x8xf32>
  %d = nunc.constant dense<[[[[1.27, 0.005, 0.015, 0.0149, -0.635, 0.0, 0.0, 0.0, 0.02]]], [[[0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0.5, 0.5, 0.5]]]]> : tensor<2x1x1x9xf32>
  %b = nunc.constant dense<[0.5, -0.25]> : tensor<2xf32>
  %z = nunc.conv %y, %d, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 9>, pads = array<i64: 0, 4, 0, 4>, strides = array<i64: 1, 1>} : tensor<1x2x4x8xf32>, tensor<2x1x1x9xf32> -> tensor<1x2x4x8xf32>
  return %z : tensor<1x2x4x8xf32>
}

// -----

// No bias: the correction makes one (channel 0: 0 + 2 x 0.0099, less the
// f32 weights' own rounding).
// CHECK-LABEL: func.func @no_bias(
// CHECK:         %[[B:.*]] = nunc.constant dense<[0.019799{{[0-9]*}}, 0.000000e+00]> : tensor<2xf32>
// CHECK:         nunc.conv %{{.*}}, %{{.*}}, %[[B]] : tensor<2xf32>
// KEEP-LABEL: func.func @no_bias(
// KEEP:          nunc.conv %{{[^,]*}}, %{{[^,]*}} {
func.func @no_bias(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = nunc.constant dense<[[[[1.0]], [[-0.5]]], [[[0.25]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %y = nunc.fused_conv %x, %w {activation = "relu", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %d = nunc.constant dense<[[[[1.27, 0.005, 0.015], [0.0149, -0.635, 0.0], [0.02, 0.0, -1.27]]], [[[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, -0.5]]]]> : tensor<2x1x3x3xf32>
  %z = nunc.conv %y, %d {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  return %z : tensor<1x2x4x4xf32>
}
