// RUN: nunc-opt %s -split-input-file --nunc-fuse-quantize-dequantize | FileCheck %s

// A QuantizeLinear/DequantizeLinear pair with one scale and zero point (what
// onnxruntime's quantize_static puts on activations) becomes one
// fake_quantize on the grid of the pair; the integer tensor disappears.

// CHECK-LABEL: func.func @u8_pair(
// CHECK-SAME: %[[X:.*]]: tensor<2x5xf32>)
// CHECK-NEXT: %[[Y:.*]] = nunc.fake_quantize %[[X]] {quantization = !quant.uniform<u8:f32, 3.125000e-02:120>} : tensor<2x5xf32> -> tensor<2x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @u8_pair(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %s = nunc.constant dense<0.03125> : tensor<f32>
  %zp = nunc.constant dense<120> : tensor<ui8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xui8>
  %y = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<2x5xui8>, tensor<f32> -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// s8 with no zero point operand (0), separate but equal constants on the two
// sides, 16-bit storage; a QuantizeLinear with another use stays for it.

// CHECK-LABEL: func.func @s8_and_i16(
// CHECK-SAME: %[[X:.*]]: tensor<3xf32>)
// CHECK-DAG: %[[A:.*]] = nunc.fake_quantize %[[X]] {quantization = !quant.uniform<i8:f32, 5.000000e-01>} : tensor<3xf32> -> tensor<3xf32>
// CHECK-DAG: %[[Q16:.*]] = nunc.quantize_linear %[[X]], %{{.*}} {output_element_type = i16}
// CHECK-DAG: %[[B:.*]] = nunc.fake_quantize %[[X]] {quantization = !quant.uniform<i16:f32, 5.000000e-01>} : tensor<3xf32> -> tensor<3xf32>
// CHECK: return %[[A]], %[[B]], %[[Q16]]
func.func @s8_and_i16(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi16>) {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %s2 = nunc.constant dense<0.5> : tensor<1xf32>
  %q = nunc.quantize_linear %x, %s {output_element_type = i8} : tensor<3xf32>, tensor<f32> -> tensor<3xi8>
  %a = nunc.dequantize_linear %q, %s2 : tensor<3xi8>, tensor<1xf32> -> tensor<3xf32>
  %q16 = nunc.quantize_linear %x, %s {output_element_type = i16} : tensor<3xf32>, tensor<f32> -> tensor<3xi16>
  %b = nunc.dequantize_linear %q16, %s : tensor<3xi16>, tensor<f32> -> tensor<3xf32>
  return %a, %b, %q16 : tensor<3xf32>, tensor<3xf32>, tensor<3xi16>
}

// -----

// Not a round trip: the scales differ, the zero points differ, or the scale
// is per axis. Each pair stays as it is.

// CHECK-LABEL: func.func @not_pairs(
// CHECK-NOT: nunc.fake_quantize
// CHECK-COUNT-3: nunc.dequantize_linear
// CHECK-NOT: nunc.fake_quantize
func.func @not_pairs(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %s2 = nunc.constant dense<0.25> : tensor<f32>
  %zp = nunc.constant dense<3> : tensor<ui8>
  %zp2 = nunc.constant dense<4> : tensor<ui8>
  %sc = nunc.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xui8>
  %a = nunc.dequantize_linear %q, %s2, %zp : tensor<ui8> : tensor<2x3xui8>, tensor<f32> -> tensor<2x3xf32>
  %b = nunc.dequantize_linear %q, %s, %zp2 : tensor<ui8> : tensor<2x3xui8>, tensor<f32> -> tensor<2x3xf32>
  %qc = nunc.quantize_linear %x, %sc {axis = 1 : i64, output_element_type = i8} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi8>
  %c = nunc.dequantize_linear %qc, %sc {axis = 1 : i64} : tensor<2x3xi8>, tensor<3xf32> -> tensor<2x3xf32>
  return %a, %b, %c : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A Gather of a dequantized table (a QDQ embedding) gathers the integer rows
// and dequantizes only them.

// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: %[[IDS:.*]]: tensor<1x4xi64>)
// CHECK: %[[T:.*]] = nunc.constant dense<{{.*}}> : tensor<5x2xi8>
// CHECK: %[[ROWS:.*]] = nunc.gather %[[T]], %[[IDS]] : (tensor<5x2xi8>, tensor<1x4xi64>) -> tensor<1x4x2xi8>
// CHECK: %[[Y:.*]] = nunc.dequantize_linear %[[ROWS]], %{{.*}}, %{{.*}} : tensor<i8> : tensor<1x4x2xi8>, tensor<f32> -> tensor<1x4x2xf32>
// CHECK: return %[[Y]]
func.func @embedding(%ids: tensor<1x4xi64>) -> tensor<1x4x2xf32> {
  %t = nunc.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]> : tensor<5x2xi8>
  %s = nunc.constant dense<0.5> : tensor<f32>
  %zp = nunc.constant dense<1> : tensor<i8>
  %d = nunc.dequantize_linear %t, %s, %zp : tensor<i8> : tensor<5x2xi8>, tensor<f32> -> tensor<5x2xf32>
  %y = nunc.gather %d, %ids : (tensor<5x2xf32>, tensor<1x4xi64>) -> tensor<1x4x2xf32>
  return %y : tensor<1x4x2xf32>
}

// -----

// A table dequantized per axis stays as it is.

// CHECK-LABEL: func.func @embedding_per_axis(
// CHECK: nunc.dequantize_linear
// CHECK-NEXT: nunc.gather
func.func @embedding_per_axis(%ids: tensor<4xi64>) -> tensor<4x2xf32> {
  %t = nunc.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %s = nunc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %d = nunc.dequantize_linear %t, %s : tensor<3x2xi8>, tensor<2xf32> -> tensor<3x2xf32>
  %y = nunc.gather %d, %ids : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// A pair right after a quantized_linear (its only use) becomes the GEMM's
// output_quantization: the epilogue rounds the result. A quantized_linear
// whose result has another use keeps a separate fake_quantize.

// CHECK-LABEL: func.func @into_linear(
// CHECK: %[[A:.*]] = nunc.quantized_linear %{{.*}}, %{{.*}} {activation = "relu", activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 2.500000e-01:128>, output_quantization = !quant.uniform<u8:f32, 1.250000e-01:3>}
// CHECK: %[[B:.*]] = nunc.quantized_linear
// CHECK-NOT: output_quantization
// CHECK: %[[C:.*]] = nunc.fake_quantize %[[B]]
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @into_linear(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %y = nunc.quantized_linear %x, %w {activation = "relu", activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.25:128>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  %s = nunc.constant dense<0.125> : tensor<f32>
  %zp = nunc.constant dense<3> : tensor<ui8>
  %q = nunc.quantize_linear %y, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xui8>
  %a = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<2x2xui8>, tensor<f32> -> tensor<2x2xf32>
  %b = nunc.quantized_linear %x, %w : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  %q2 = nunc.quantize_linear %b, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xui8>
  %c = nunc.dequantize_linear %q2, %s, %zp : tensor<ui8> : tensor<2x2xui8>, tensor<f32> -> tensor<2x2xf32>
  return %a, %b, %c : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// fake_quantize -> batch_norm -> fake_quantize: the BN rounds its input and
// its result itself. A fake_quantize with another use stays for it (and the
// BN then reads it as it is); a BN with another use keeps the fake_quantize
// after it.

// CHECK-LABEL: func.func @batch_norm_grids(
// CHECK-SAME: %[[X:.*]]: tensor<1x2x3xf32>)
// CHECK: %[[A:.*]] = nunc.batch_norm %[[X]], {{.*}} {input_quantization = !quant.uniform<u8:f32, 2.500000e-01:8>, output_quantization = !quant.uniform<i8:f32, 1.250000e-01>}
// CHECK: %[[F:.*]] = nunc.fake_quantize %[[X]] {quantization = !quant.uniform<u8:f32, 5.000000e-01>}
// CHECK: %[[B:.*]] = nunc.batch_norm %[[F]], {{.*}} :
// CHECK: %[[G:.*]] = nunc.fake_quantize %[[B]]
// CHECK: return %[[A]], %[[F]], %[[B]], %[[G]]
func.func @batch_norm_grids(%x: tensor<1x2x3xf32>) -> (tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>) {
  %g = nunc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = nunc.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %m = nunc.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %v = nunc.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %s = nunc.constant dense<0.25> : tensor<f32>
  %zp = nunc.constant dense<8> : tensor<ui8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3xf32>, tensor<f32> -> tensor<1x2x3xui8>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<1x2x3xui8>, tensor<f32> -> tensor<1x2x3xf32>
  %bn = nunc.batch_norm %dq, %g, %b, %m, %v : (tensor<1x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  %s2 = nunc.constant dense<0.125> : tensor<f32>
  %q2 = nunc.quantize_linear %bn, %s2 {output_element_type = i8} : tensor<1x2x3xf32>, tensor<f32> -> tensor<1x2x3xi8>
  %a = nunc.dequantize_linear %q2, %s2 : tensor<1x2x3xi8>, tensor<f32> -> tensor<1x2x3xf32>
  %s3 = nunc.constant dense<0.5> : tensor<f32>
  %zp3 = nunc.constant dense<0> : tensor<ui8>
  %q3 = nunc.quantize_linear %x, %s3, %zp3 : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3xf32>, tensor<f32> -> tensor<1x2x3xui8>
  %f = nunc.dequantize_linear %q3, %s3, %zp3 : tensor<ui8> : tensor<1x2x3xui8>, tensor<f32> -> tensor<1x2x3xf32>
  %bn2 = nunc.batch_norm %f, %g, %b, %m, %v : (tensor<1x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  %q4 = nunc.quantize_linear %bn2, %s2 {output_element_type = i8} : tensor<1x2x3xf32>, tensor<f32> -> tensor<1x2x3xi8>
  %g4 = nunc.dequantize_linear %q4, %s2 : tensor<1x2x3xi8>, tensor<f32> -> tensor<1x2x3xf32>
  return %a, %f, %bn2, %g4 : tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>
}

// -----

// A fake_quantize after an int8 conv (its only use) rounds in the conv's
// epilogue; one after a conv with another use stays.

// CHECK-LABEL: func.func @conv_output_grid(
// CHECK: %[[A:.*]] = nunc.quantized_conv {{.*}}output_quantization = !quant.uniform<u8:f32, 2.500000e-01:3>
// CHECK: %[[B:.*]] = nunc.quantized_conv
// CHECK-NOT: output_quantization
// CHECK: %[[F:.*]] = nunc.fake_quantize %[[B]]
// CHECK: return %[[A]], %[[B]], %[[F]]
func.func @conv_output_grid(%x: tensor<1x1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = nunc.constant dense<[[[[1]]], [[[-2]]]]> : tensor<2x1x1x1xi8>
  %qw = quant.scast %w : tensor<2x1x1x1xi8> to tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %c = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.125:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<1x2x2x2xf32>
  %s = nunc.constant dense<0.25> : tensor<f32>
  %zp = nunc.constant dense<3> : tensor<ui8>
  %q = nunc.quantize_linear %c, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<1x2x2x2xf32>, tensor<f32> -> tensor<1x2x2x2xui8>
  %a = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<1x2x2x2xui8>, tensor<f32> -> tensor<1x2x2x2xf32>
  %c2 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.125:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<1x2x2x2xf32>
  %q2 = nunc.quantize_linear %c2, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<1x2x2x2xf32>, tensor<f32> -> tensor<1x2x2x2xui8>
  %f = nunc.dequantize_linear %q2, %s, %zp : tensor<ui8> : tensor<1x2x2x2xui8>, tensor<f32> -> tensor<1x2x2x2xf32>
  return %a, %c2, %f : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A batch_norm after an int8 conv with one grid between them (the conv's
// output grid here) normalizes in the conv's epilogue: a = 2 / sqrt(3 + 1)
// = 1, b = 0.5 - 1 * 1 = -0.5; a = 4 / sqrt(15 + 1) = 1, b = -1 - 1 * 2 =
// -3; its output grid follows as norm_quantization. Without a grid between
// them (the BN then folds into the weights, nunc-fuse-conv), or with two,
// the BN stays.

// CHECK-LABEL: func.func @batch_norm_into_conv_epilogue(
// CHECK-DAG: %[[A:.*]] = nunc.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[-5.000000e-01, -3.000000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = nunc.quantized_conv %arg0, %{{.*}} norm %[[A]], %[[B]] : tensor<2xf32>, tensor<2xf32> {{{.*}}norm_quantization = !quant.uniform<u8:f32, 1.250000e-01:4>, output_quantization = !quant.uniform<u8:f32, 2.500000e-01:3>
// CHECK: %[[P:.*]] = nunc.quantized_conv %arg0
// CHECK: %[[N:.*]] = nunc.batch_norm %[[P]]
// CHECK: return %[[C]], %[[N]]
func.func @batch_norm_into_conv_epilogue(%x: tensor<1x1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = nunc.constant dense<[[[[1]]], [[[-2]]]]> : tensor<2x1x1x1xi8>
  %qw = quant.scast %w : tensor<2x1x1x1xi8> to tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %c = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.125:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.25:3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<1x2x2x2xf32>
  %g = nunc.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = nunc.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %m = nunc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %v = nunc.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %n = nunc.batch_norm %c, %g, %b, %m, %v {epsilon = 1.0 : f32, output_quantization = !quant.uniform<u8:f32, 0.125:4>} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %c2 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.125:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.25:3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<1x2x2x2xf32>
  %n2 = nunc.batch_norm %c2, %g, %b, %m, %v {epsilon = 1.0 : f32, input_quantization = !quant.uniform<u8:f32, 0.5:3>} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %n, %n2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A BN straight after a conv (no grid between them) keeps the pair after it
// as a fake_quantize: the BN folds into the conv later (nunc-fold-batch-norm)
// and the pair then rounds the conv's result.

// CHECK-LABEL: func.func @batch_norm_after_conv_keeps_folding(
// CHECK: %[[C:.*]] = nunc.conv
// CHECK: %[[N:.*]] = nunc.batch_norm %[[C]], {{.*}} : (
// CHECK: nunc.fake_quantize %[[N]]
func.func @batch_norm_after_conv_keeps_folding(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = nunc.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %g = nunc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = nunc.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %m = nunc.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %v = nunc.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %c = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %n = nunc.batch_norm %c, %g, %b, %m, %v : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %s = nunc.constant dense<0.25> : tensor<f32>
  %zp = nunc.constant dense<8> : tensor<ui8>
  %q = nunc.quantize_linear %n, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<1x2x2x2xf32>, tensor<f32> -> tensor<1x2x2x2xui8>
  %y = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<1x2x2x2xui8>, tensor<f32> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// The pairs QDQ models repeat after Reshape and Transpose (same scale and
// zero point as the pair before) round values already on their grid: they
// go, also after a quantized_linear's output grid. A pair on another grid,
// or after an op that changes values (Relu), stays.

// CHECK-LABEL: func.func @repeated_grids(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x6xf32>
// CHECK: %[[G:.*]] = nunc.fake_quantize %[[X]] {quantization = !quant.uniform<u8:f32, 1.250000e-01:3>}
// CHECK-NEXT: %[[R:.*]] = nunc.reshape %[[G]]
// CHECK-NEXT: %[[T:.*]] = nunc.transpose %[[R]]
// CHECK-NEXT: %[[O:.*]] = nunc.fake_quantize %[[T]] {quantization = !quant.uniform<u8:f32, 2.500000e-01:3>}
// CHECK-NEXT: %[[L:.*]] = nunc.quantized_linear {{.*}}output_quantization = !quant.uniform<u8:f32, 1.250000e-01:3>
// CHECK-NEXT: %[[LR:.*]] = nunc.reshape %[[L]]
// CHECK-NEXT: %[[RELU:.*]] = nunc.relu %[[G]]
// CHECK-NEXT: %[[RQ:.*]] = nunc.fake_quantize %[[RELU]]
// CHECK-NEXT: return %[[T]], %[[O]], %[[LR]], %[[RQ]]
func.func @repeated_grids(%x: tensor<2x6xf32>, %w: tensor<6x2x!quant.uniform<i8:f32, 0.5>>) -> (tensor<3x2x2xf32>, tensor<3x2x2xf32>, tensor<1x4xf32>, tensor<2x6xf32>) {
  %s = nunc.constant dense<0.125> : tensor<f32>
  %s2 = nunc.constant dense<0.25> : tensor<f32>
  %zp = nunc.constant dense<3> : tensor<ui8>
  %shape = nunc.constant dense<[2, 2, 3]> : tensor<3xi64>
  %flat = nunc.constant dense<[1, 4]> : tensor<2xi64>
  %q0 = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x6xf32>, tensor<f32> -> tensor<2x6xui8>
  %g = nunc.dequantize_linear %q0, %s, %zp : tensor<ui8> : tensor<2x6xui8>, tensor<f32> -> tensor<2x6xf32>
  %r = nunc.reshape %g, %shape : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<2x2x3xf32>
  %q1 = nunc.quantize_linear %r, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x2x3xf32>, tensor<f32> -> tensor<2x2x3xui8>
  %r1 = nunc.dequantize_linear %q1, %s, %zp : tensor<ui8> : tensor<2x2x3xui8>, tensor<f32> -> tensor<2x2x3xf32>
  %t = nunc.transpose %r1 {perm = array<i64: 2, 0, 1>} : tensor<2x2x3xf32> -> tensor<3x2x2xf32>
  %q2 = nunc.quantize_linear %t, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<3x2x2xf32>, tensor<f32> -> tensor<3x2x2xui8>
  %t1 = nunc.dequantize_linear %q2, %s, %zp : tensor<ui8> : tensor<3x2x2xui8>, tensor<f32> -> tensor<3x2x2xf32>
  %q3 = nunc.quantize_linear %t1, %s2, %zp : tensor<ui8> {output_element_type = ui8} : tensor<3x2x2xf32>, tensor<f32> -> tensor<3x2x2xui8>
  %o = nunc.dequantize_linear %q3, %s2, %zp : tensor<ui8> : tensor<3x2x2xui8>, tensor<f32> -> tensor<3x2x2xf32>
  %l = nunc.quantized_linear %x, %w {output_quantization = !quant.uniform<u8:f32, 0.125:3>} : tensor<2x6xf32>, tensor<6x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  %lr = nunc.reshape %l, %flat : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<1x4xf32>
  %q4 = nunc.quantize_linear %lr, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<1x4xf32>, tensor<f32> -> tensor<1x4xui8>
  %lq = nunc.dequantize_linear %q4, %s, %zp : tensor<ui8> : tensor<1x4xui8>, tensor<f32> -> tensor<1x4xf32>
  %relu = nunc.relu %g : tensor<2x6xf32> -> tensor<2x6xf32>
  %q5 = nunc.quantize_linear %relu, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x6xf32>, tensor<f32> -> tensor<2x6xui8>
  %rq = nunc.dequantize_linear %q5, %s, %zp : tensor<ui8> : tensor<2x6xui8>, tensor<f32> -> tensor<2x6xf32>
  return %t1, %o, %lq, %rq : tensor<3x2x2xf32>, tensor<3x2x2xf32>, tensor<1x4xf32>, tensor<2x6xf32>
}

// -----

// A model that quantizes only its MatMuls keeps the pairs of Q and K on the
// head splits, right before Q K^T (a MatMul of two computed operands): the
// rounding moves before the Reshape and Transpose, into the epilogue of the
// GEMM that made the value. A pair before a MatMul with a constant weight
// (that GEMM's static input quantization) stays where it is.

// CHECK-LABEL: func.func @pairs_before_attention_matmuls(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x6xf32>
// CHECK: %[[L:.*]] = nunc.quantized_linear %[[X]], {{.*}}output_quantization = !quant.uniform<u8:f32, 1.250000e-01:3>
// CHECK-NEXT: %[[R:.*]] = nunc.reshape %[[L]]
// CHECK-NEXT: %[[T:.*]] = nunc.transpose %[[R]]
// CHECK-NEXT: %[[K:.*]] = nunc.reshape %[[X]]
// CHECK-NEXT: nunc.matmul %[[T]], %[[K]]
// CHECK-NEXT: %[[R2:.*]] = nunc.reshape %[[X]]
// CHECK-NEXT: %[[G:.*]] = nunc.fake_quantize %[[R2]]
// CHECK-NEXT: nunc.matmul %[[G]], %{{.*}}
func.func @pairs_before_attention_matmuls(%x: tensor<2x6xf32>, %w: tensor<6x6x!quant.uniform<i8:f32, 0.5>>) -> (tensor<2x3x3xf32>, tensor<3x2xf32>) {
  %s = nunc.constant dense<0.125> : tensor<f32>
  %zp = nunc.constant dense<3> : tensor<ui8>
  %shape = nunc.constant dense<[2, 2, 3]> : tensor<3xi64>
  %l = nunc.quantized_linear %x, %w : tensor<2x6xf32>, tensor<6x6x!quant.uniform<i8:f32, 0.5>> -> tensor<2x6xf32>
  %r = nunc.reshape %l, %shape : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<2x2x3xf32>
  %t = nunc.transpose %r {perm = array<i64: 1, 2, 0>} : tensor<2x2x3xf32> -> tensor<2x3x2xf32>
  %q = nunc.quantize_linear %t, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x3x2xf32>, tensor<f32> -> tensor<2x3x2xui8>
  %g = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<2x3x2xui8>, tensor<f32> -> tensor<2x3x2xf32>
  %kt = nunc.reshape %x, %shape : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<2x2x3xf32>
  %scores = nunc.matmul %g, %kt : (tensor<2x3x2xf32>, tensor<2x2x3xf32>) -> tensor<2x3x3xf32>
  %flat = nunc.constant dense<[3, 4]> : tensor<2xi64>
  %r2 = nunc.reshape %x, %flat : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  %q2 = nunc.quantize_linear %r2, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<3x4xf32>, tensor<f32> -> tensor<3x4xui8>
  %g2 = nunc.dequantize_linear %q2, %s, %zp : tensor<ui8> : tensor<3x4xui8>, tensor<f32> -> tensor<3x4xf32>
  %cw = nunc.constant dense<1.0> : tensor<4x2xf32>
  %y = nunc.matmul %g2, %cw : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %scores, %y : tensor<2x3x3xf32>, tensor<3x2xf32>
}

// -----

// DequantizeLinear of a DynamicQuantizeLinear's codes with its own scale and
// zero point becomes one dynamic_fake_quantize of the input (the codes of a
// DynamicQuantizeLinear with other uses stay for them); with another scale
// the DequantizeLinear stays.

// CHECK-LABEL: func.func @dynamic_pair(
// CHECK-SAME: %[[X:.*]]: tensor<2x5xf32>)
// CHECK-DAG: %[[Y:.*]] = nunc.dynamic_fake_quantize %[[X]] : tensor<2x5xf32> -> tensor<2x5xf32>
// CHECK-DAG: %[[Q:.*]], %[[S:.*]], %[[Z:.*]] = nunc.dynamic_quantize_linear %[[X]]
// CHECK-DAG: %[[OTHER:.*]] = nunc.dequantize_linear %[[Q]], %{{.*}}, %[[Z]]
// CHECK: return %[[Y]], %[[OTHER]], %[[Q]]
func.func @dynamic_pair(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xui8>) {
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<2x5xf32> -> tensor<2x5xui8>, tensor<f32>, tensor<ui8>
  %y = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<2x5xui8>, tensor<f32> -> tensor<2x5xf32>
  %s2 = nunc.constant dense<0.5> : tensor<f32>
  %other = nunc.dequantize_linear %q, %s2, %zp : tensor<ui8> : tensor<2x5xui8>, tensor<f32> -> tensor<2x5xf32>
  return %y, %other, %q : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xui8>
}

// -----

// A Clip (or Relu) whose bounds round to the grid's end codes, read only by
// its pair: the grid's saturation clamps the same values, so the pair rounds
// the Clip's input (an export's Relu6 before its QuantizeLinear: 6 / 0.0235
// rounds to 255). Not where a bound lies inside the grid (12.75 / 0.05 is
// past 6), a Relu before a zero point above the lowest code, a Clip with
// another reader, or one of a pair's values (a table of their codes).
// CHECK-LABEL: func.func @clip_before_its_grid(
// CHECK-SAME: %[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[A:.*]] = nunc.fake_quantize %[[X]] {quantization = !quant.uniform<u8:f32, 0.0235{{[0-9]*}}>}
// CHECK: %[[B:.*]] = nunc.fake_quantize %[[X]] {quantization = !quant.uniform<u8:f32, 0.0235{{[0-9]*}}>}
// CHECK: %[[C:.*]] = nunc.clip %[[X]]
// CHECK: nunc.fake_quantize %[[C]] {quantization = !quant.uniform<u8:f32, 0.05{{[0-9]*}}>}
// CHECK: %[[R:.*]] = nunc.relu %[[X]]
// CHECK: nunc.fake_quantize %[[R]] {quantization = !quant.uniform<u8:f32, 0.0235{{[0-9]*}}:10>}
// CHECK: %[[K:.*]] = nunc.clip %[[X]]
// CHECK: nunc.fake_quantize %[[K]]
// CHECK: %[[P:.*]] = nunc.fake_quantize %[[X]]
// CHECK: %[[L:.*]] = nunc.clip %[[P]]
// CHECK: nunc.fake_quantize %[[L]]
// CHECK: return
func.func @clip_before_its_grid(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %lo = nunc.constant dense<0.0> : tensor<f32>
  %hi = nunc.constant dense<6.0> : tensor<f32>
  %s = nunc.constant dense<0.023529412> : tensor<f32>
  %s2 = nunc.constant dense<0.05> : tensor<f32>
  %z = nunc.constant dense<0> : tensor<ui8>
  %z10 = nunc.constant dense<10> : tensor<ui8>
  %c = nunc.clip %x min %lo : tensor<f32> max %hi : tensor<f32> : tensor<2x5xf32> -> tensor<2x5xf32>
  %q = nunc.quantize_linear %c, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xui8>
  %a = nunc.dequantize_linear %q, %s, %z : tensor<ui8> : tensor<2x5xui8>, tensor<f32> -> tensor<2x5xf32>
  %r = nunc.relu %x : tensor<2x5xf32> -> tensor<2x5xf32>
  %q2 = nunc.quantize_linear %r, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xui8>
  %b = nunc.dequantize_linear %q2, %s, %z : tensor<ui8> : tensor<2x5xui8>, tensor<f32> -> tensor<2x5xf32>
  %c3 = nunc.clip %x min %lo : tensor<f32> max %hi : tensor<f32> : tensor<2x5xf32> -> tensor<2x5xf32>
  %q3 = nunc.quantize_linear %c3, %s2, %z : tensor<ui8> {output_element_type = ui8} : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xui8>
  %d = nunc.dequantize_linear %q3, %s2, %z : tensor<ui8> : tensor<2x5xui8>, tensor<f32> -> tensor<2x5xf32>
  %r4 = nunc.relu %x : tensor<2x5xf32> -> tensor<2x5xf32>
  %q4 = nunc.quantize_linear %r4, %s, %z10 : tensor<ui8> {output_element_type = ui8} : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xui8>
  %e = nunc.dequantize_linear %q4, %s, %z10 : tensor<ui8> : tensor<2x5xui8>, tensor<f32> -> tensor<2x5xf32>
  %c5 = nunc.clip %x min %lo : tensor<f32> max %hi : tensor<f32> : tensor<2x5xf32> -> tensor<2x5xf32>
  %q5 = nunc.quantize_linear %c5, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xui8>
  %f = nunc.dequantize_linear %q5, %s, %z : tensor<ui8> : tensor<2x5xui8>, tensor<f32> -> tensor<2x5xf32>
  %q6 = nunc.quantize_linear %x, %s2, %z10 : tensor<ui8> {output_element_type = ui8} : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xui8>
  %p6 = nunc.dequantize_linear %q6, %s2, %z10 : tensor<ui8> : tensor<2x5xui8>, tensor<f32> -> tensor<2x5xf32>
  %c6 = nunc.clip %p6 min %lo : tensor<f32> max %hi : tensor<f32> : tensor<2x5xf32> -> tensor<2x5xf32>
  %q7 = nunc.quantize_linear %c6, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xui8>
  %g = nunc.dequantize_linear %q7, %s, %z : tensor<ui8> : tensor<2x5xui8>, tensor<f32> -> tensor<2x5xf32>
  return %a, %b, %d, %e, %f, %c5, %g : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}
