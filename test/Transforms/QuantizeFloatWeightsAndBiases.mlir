// RUN: nunc-opt %s -split-input-file --nunc-quantize-float-weights-and-biases | FileCheck %s

// A Conv between a per-tensor pair and a QuantizeLinear with an f32 weight
// and bias, as onnxruntime's WeightBiasQuantization quantizes them. The
// weight's range [-0.5, 1.0] over 255 steps: scale 1.5 / 255, zero point
// round(-128 + 0.5 / scale) = round(-128 + 85) = -43; codes round(w /
// scale) - 43: -0.5 -> -85 - 43 = -128, 0.3 -> 51 - 43 = 8, 1.0 -> 170 - 43
// = 127, 0 -> -43. The bias on the grid 0.5 x 1.5 / 255 = 1.5 / 510:
// 1.0 -> 340, -0.25 -> -85, zero point 0.

// CHECK-LABEL: func.func @conv_f32_weight_and_bias(
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[\[\[\[}}-128]], {{\[\[}}8]]], {{\[\[\[}}127]], {{\[\[}}-43]]]]> : tensor<2x2x1x1xi8>
// CHECK-DAG: %[[SW:.*]] = nunc.constant dense<0.00588235306> : tensor<f32>
// CHECK-DAG: %[[ZW:.*]] = nunc.constant dense<-43> : tensor<i8>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[340, -85]> : tensor<2xi32>
// CHECK-DAG: %[[SB:.*]] = nunc.constant dense<0.00294117653> : tensor<f32>
// CHECK-DAG: %[[WF:.*]] = nunc.dequantize_linear %[[W]], %[[SW]], %[[ZW]] : tensor<i8> : tensor<2x2x1x1xi8>, tensor<f32> -> tensor<2x2x1x1xf32>
// CHECK-DAG: %[[BF:.*]] = nunc.dequantize_linear %[[B]], %[[SB]] : tensor<2xi32>, tensor<f32> -> tensor<2xf32>
// CHECK: nunc.conv %{{.*}}, %[[WF]], %[[BF]]
func.func @conv_f32_weight_and_bias(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xui8> {
  %sx = nunc.constant dense<0.5> : tensor<f32>
  %zx = nunc.constant dense<128> : tensor<ui8>
  %sy = nunc.constant dense<2.0> : tensor<f32>
  %zy = nunc.constant dense<3> : tensor<ui8>
  %w = nunc.constant dense<[[[[-0.5]], [[0.3]]], [[[1.0]], [[0.0]]]]> : tensor<2x2x1x1xf32>
  %b = nunc.constant dense<[1.0, -0.25]> : tensor<2xf32>
  %q = nunc.quantize_linear %x, %sx, %zx : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  %d = nunc.dequantize_linear %q, %sx, %zx : tensor<ui8> : tensor<1x2x3x3xui8>, tensor<f32> -> tensor<1x2x3x3xf32>
  %c = nunc.conv %d, %w, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %y = nunc.quantize_linear %c, %sy, %zy : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  return %y : tensor<1x2x3x3xui8>
}

// -----

// A weight already dequantized per output channel (axis 0) with an f32 bias
// through a Relu: only the bias, per channel on 0.5 x [0.25, 0.125]:
// 1.0 / 0.125 -> 8, -1.0 / 0.0625 -> -16 (DequantizeLinear axis 0).

// CHECK-LABEL: func.func @conv_f32_bias_per_channel(
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[8, -16]> : tensor<2xi32>
// CHECK-DAG: %[[SB:.*]] = nunc.constant dense<[1.250000e-01, 6.250000e-02]> : tensor<2xf32>
// CHECK-DAG: %[[BF:.*]] = nunc.dequantize_linear %[[B]], %[[SB]] {axis = 0 : i64} : tensor<2xi32>, tensor<2xf32> -> tensor<2xf32>
// CHECK-DAG: %[[WF:.*]] = nunc.dequantize_linear %{{.*}} {axis = 0 : i64} : tensor<2x2x1x1xi8>, tensor<2xf32> -> tensor<2x2x1x1xf32>
// CHECK: nunc.conv %{{.*}}, %[[WF]], %[[BF]]
// CHECK-NEXT: nunc.relu
func.func @conv_f32_bias_per_channel(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xui8> {
  %sx = nunc.constant dense<0.5> : tensor<f32>
  %zx = nunc.constant dense<128> : tensor<ui8>
  %wq = nunc.constant dense<[[[[1]], [[2]]], [[[3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %sw = nunc.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %zw = nunc.constant dense<0> : tensor<2xi8>
  %b = nunc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %q = nunc.quantize_linear %x, %sx, %zx : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  %d = nunc.dequantize_linear %q, %sx, %zx : tensor<ui8> : tensor<1x2x3x3xui8>, tensor<f32> -> tensor<1x2x3x3xf32>
  %w = nunc.dequantize_linear %wq, %sw, %zw : tensor<2xi8> {axis = 0 : i64} : tensor<2x2x1x1xi8>, tensor<2xf32> -> tensor<2x2x1x1xf32>
  %c = nunc.conv %d, %w, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %r = nunc.relu %c : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %y = nunc.quantize_linear %r, %sx, %zx : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  return %y : tensor<1x2x3x3xui8>
}

// -----

// Gemm (transB) and ConvTranspose with f32 weights and no bias: one grid
// each over the weight's values (Gemm: [-2, 0.5] -> scale 2.5 / 255, zero
// point round(-128 + 2 / scale) = round(-128 + 204) = 76; ConvTranspose:
// [0, 1.275] (0 joins the range) -> scale 0.005, zero point -128).

// CHECK-LABEL: func.func @gemm_and_conv_transpose(
// CHECK-DAG: %[[GW:.*]] = nunc.constant dense<{{\[\[}}-128, 127], [76, 127]]> : tensor<2x2xi8>
// CHECK-DAG: %[[GZ:.*]] = nunc.constant dense<76> : tensor<i8>
// CHECK-DAG: %[[GWF:.*]] = nunc.dequantize_linear %[[GW]], %{{.*}}, %[[GZ]]
// CHECK: nunc.gemm %{{.*}}, %[[GWF]]
// CHECK-DAG: %[[TW:.*]] = nunc.constant dense<{{\[\[\[\[}}-128, 127]]]]> : tensor<1x1x1x2xi8>
// CHECK-DAG: %[[TZ:.*]] = nunc.constant dense<-128> : tensor<i8>
// CHECK-DAG: %[[TWF:.*]] = nunc.dequantize_linear %[[TW]], %{{.*}}, %[[TZ]]
// CHECK: nunc.conv_transpose %{{.*}}, %[[TWF]]
func.func @gemm_and_conv_transpose(%x: tensor<3x2xf32>, %t: tensor<1x1x2x2xf32>) -> (tensor<3x2xui8>, tensor<1x1x2x4xui8>) {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %z = nunc.constant dense<128> : tensor<ui8>
  %w = nunc.constant dense<[[-2.0, 0.5], [0.0, 0.5]]> : tensor<2x2xf32>
  %q = nunc.quantize_linear %x, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xui8>
  %d = nunc.dequantize_linear %q, %s, %z : tensor<ui8> : tensor<3x2xui8>, tensor<f32> -> tensor<3x2xf32>
  %g = nunc.gemm %d, %w {transB = 1 : i64} : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %y = nunc.quantize_linear %g, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xui8>
  %tw = nunc.constant dense<[[[[0.0, 1.275]]]]> : tensor<1x1x1x2xf32>
  %tq = nunc.quantize_linear %t, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<1x1x2x2xf32>, tensor<f32> -> tensor<1x1x2x2xui8>
  %td = nunc.dequantize_linear %tq, %s, %z : tensor<ui8> : tensor<1x1x2x2xui8>, tensor<f32> -> tensor<1x1x2x2xf32>
  %ct = nunc.conv_transpose %td, %tw {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 2>, output_padding = array<i64: 0, 0>, output_shape = array<i64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 2>} : tensor<1x1x2x2xf32>, tensor<1x1x1x2xf32> -> tensor<1x1x2x4xf32>
  %ty = nunc.quantize_linear %ct, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<1x1x2x4xf32>, tensor<f32> -> tensor<1x1x2x4xui8>
  return %y, %ty : tensor<3x2xui8>, tensor<1x1x2x4xui8>
}

// -----

// Left as written, as onnxruntime leaves them: a result read by another op
// too (a Relu: no single path to a QuantizeLinear), a result that reaches
// no grid,
// an input that is not dequantized, a bias that is not an f32 constant (the
// weight stays f32 as well), and a dequantized weight without a bias.

// CHECK-LABEL: func.func @left_as_written(
// CHECK-NOT: tensor<i8> : tensor<2x2x1x1xi8>
// CHECK-NOT: tensor<2xi32>
// CHECK: return
func.func @left_as_written(%x: tensor<1x2x3x3xf32>, %bias: tensor<2xf32>) -> (tensor<1x2x3x3xui8>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xui8>, tensor<1x2x3x3xui8>, tensor<1x2x3x3xui8>) {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %z = nunc.constant dense<128> : tensor<ui8>
  %w = nunc.constant dense<[[[[-0.5]], [[0.3]]], [[[1.0]], [[0.0]]]]> : tensor<2x2x1x1xf32>
  %q = nunc.quantize_linear %x, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  %d = nunc.dequantize_linear %q, %s, %z : tensor<ui8> : tensor<1x2x3x3xui8>, tensor<f32> -> tensor<1x2x3x3xf32>
  %c1 = nunc.conv %d, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %y1 = nunc.quantize_linear %c1, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  %r1 = nunc.relu %c1 : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %c2 = nunc.conv %d, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %c3 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %y3 = nunc.quantize_linear %c3, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  %c4 = nunc.conv %d, %w, %bias : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %y4 = nunc.quantize_linear %c4, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  %wq = nunc.constant dense<[[[[1]], [[2]]], [[[3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %wd = nunc.dequantize_linear %wq, %s : tensor<2x2x1x1xi8>, tensor<f32> -> tensor<2x2x1x1xf32>
  %c5 = nunc.conv %d, %wd {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %y5 = nunc.quantize_linear %c5, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  return %y1, %r1, %c2, %y3, %y4, %y5 : tensor<1x2x3x3xui8>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xui8>, tensor<1x2x3x3xui8>, tensor<1x2x3x3xui8>
}

// -----

// A graph output is no reader (as in onnxruntime): a result returned and
// quantized still takes the quantized weight (the grid of the first case).

// CHECK-LABEL: func.func @returned_and_quantized(
// CHECK: %[[W:.*]] = nunc.constant dense<{{.*}}> : tensor<2x2x1x1xi8>
// CHECK: %[[WF:.*]] = nunc.dequantize_linear %[[W]]
// CHECK: %[[C:.*]] = nunc.conv %{{.*}}, %[[WF]]
// CHECK: return %{{.*}}, %[[C]]
func.func @returned_and_quantized(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xui8>, tensor<1x2x3x3xf32>) {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %z = nunc.constant dense<128> : tensor<ui8>
  %w = nunc.constant dense<[[[[-0.5]], [[0.3]]], [[[1.0]], [[0.0]]]]> : tensor<2x2x1x1xf32>
  %q = nunc.quantize_linear %x, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  %d = nunc.dequantize_linear %q, %s, %z : tensor<ui8> : tensor<1x2x3x3xui8>, tensor<f32> -> tensor<1x2x3x3xf32>
  %c = nunc.conv %d, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %y = nunc.quantize_linear %c, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
  return %y, %c : tensor<1x2x3x3xui8>, tensor<1x2x3x3xf32>
}
