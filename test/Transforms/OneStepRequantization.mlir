// RUN: nunc-opt %s -split-input-file --nunc-one-step-requantization | FileCheck %s
// RUN: nunc-opt %s -split-input-file --nunc-one-step-requantization="only-elementwise=true" | FileCheck %s --check-prefix=ADDS

// An int8 conv writing u8 codes from a static input, with a Clip (or Relu,
// or none) before its grid: its codes come from one multiply.
// CHECK-LABEL: func.func @static_codes(
// A bias the importer keeps as a resource (large constants) is read too.
// CHECK: nunc.quantized_conv {{.*}}activation = "clip"{{.*}}one_step_requantization{{.*}}u8_output
// CHECK: nunc.quantized_conv {{.*}}bias {{.*}}one_step_requantization{{.*}}u8_output
// CHECK: nunc.quantized_conv {{.*}}activation = "relu"{{.*}}one_step_requantization{{.*}}u8_output
func.func @static_codes(%x: tensor<1x4x5x6xf32>) -> (tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:3>>, tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0234375>>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %w2 = nunc.constant dense<-2> : tensor<8x8x3x3xi8>
  %qw2 = quant.scast %w2 : tensor<8x8x3x3xi8> to tensor<8x8x3x3x!quant.uniform<i8:f32, 0.0625>>
  %b = nunc.constant dense<0.25> : tensor<8xf32>
  %e = nunc.quantized_conv %x, %qw bias %b : tensor<8xf32> {activation = "clip", activation_max = 6.0 : f32, activation_min = 0.0 : f32, activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0234375>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0234375>>
  // u8 codes in: as static as an input grid.
  %rb = nunc.constant dense_resource<bias8> : tensor<8xf32>
  %g = nunc.quantized_conv %x, %qw bias %rb : tensor<8xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0234375>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0234375>>
  %f = nunc.quantized_conv %e, %qw2 {activation = "relu", activation_quantization = "static", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0078125:3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, u8_output} : tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0234375>>, tensor<8x8x3x3x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:3>>
  return %f, %g : tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:3>>, tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0234375>>
}

{-#
  dialect_resources: {
    builtin: {
      bias8: "0x040000000000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E"
    }
  }
#-}

// -----

// The output grid's codes in one multiply whatever follows them: their f32
// values (a QDQ conv before a residual Add), or a normalization with its
// own grid (the BatchNormalization a QDQ export keeps between two pairs),
// written as f32 or as u8 codes.
// CHECK-LABEL: func.func @codes_then_more(
// CHECK: nunc.quantized_conv {{.*}}one_step_requantization, output_quantization
// CHECK-SAME: -> tensor<1x8x5x6xf32>
// CHECK: nunc.quantized_conv {{.*}}norm {{.*}}one_step_requantization, output_quantization
// CHECK-SAME: -> tensor<1x8x5x6xf32>
// CHECK: nunc.quantized_conv {{.*}}norm {{.*}}one_step_requantization, output_quantization
// CHECK-SAME: u8_output
func.func @codes_then_more(%x: tensor<1x4x5x6xf32>) -> (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6x!quant.uniform<u8:f32, 0.01171875:100>>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %a = nunc.constant dense<0.75> : tensor<8xf32>
  %s = nunc.constant dense<0.125> : tensor<8xf32>
  %f32 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %normf = nunc.quantized_conv %x, %qw norm %a, %s : tensor<8xf32>, tensor<8xf32> {activation = "relu", activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, norm_quantization = !quant.uniform<u8:f32, 0.01171875:100>, output_quantization = !quant.uniform<u8:f32, 0.015625:120>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %norm = nunc.quantized_conv %x, %qw norm %a, %s : tensor<8xf32>, tensor<8xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, norm_quantization = !quant.uniform<u8:f32, 0.01171875:100>, output_quantization = !quant.uniform<u8:f32, 0.015625:120>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.01171875:100>>
  return %f32, %normf, %norm : tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6x!quant.uniform<u8:f32, 0.01171875:100>>
}

// -----

// What one multiply cannot express keeps the two-step form: no output grid
// (nothing to round), a residual, a hard_swish before the grid, an s8
// output grid, a bias 2^24 steps of its sums' grid or more (0.0234375 x
// 0.03125 x 2^24 = 12288).
// CHECK-LABEL: func.func @two_steps(
// CHECK-NOT: one_step_requantization
// CHECK: return
func.func @two_steps(%x: tensor<1x4x5x6xf32>, %r: tensor<1x8x5x6xf32>) -> (tensor<1x8x5x6xf32>, tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125>>, tensor<1x8x5x6xf32>, tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:64>>, tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:64>>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %f32 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %res = nunc.quantized_conv %x, %qw residual %r : tensor<1x8x5x6xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125>>
  %s8 = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<i8:f32, 0.0078125:-3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %hs = nunc.quantized_conv %x, %qw {activation = "hard_swish", activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:64>>
  %big = nunc.constant dense<[0.5, 0.5, 0.5, 12288.0, 0.5, 0.5, 0.5, 0.5]> : tensor<8xf32>
  %far = nunc.quantized_conv %x, %qw bias %big : tensor<8xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:64>>
  return %f32, %res, %s8, %hs, %far : tensor<1x8x5x6xf32>, tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125>>, tensor<1x8x5x6xf32>, tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:64>>, tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:64>>
}

// -----

// A QDQ model's Add between pairs: its operands on u8 grids (a conv's
// output grid; a fake_quantize the Add alone reads, folded: the Add rounds
// that operand itself) and its sum rounded (by the Add, or by every reader:
// the Add then rounds to that grid itself) adds codes, as onnxruntime's
// QLinearAdd. A sum some reader takes as f32 stays a plain Add.
// CHECK-LABEL: func.func @adds(
// CHECK-NOT: nunc.fake_quantize
// CHECK: %[[C:.*]] = nunc.quantized_conv
// CHECK: nunc.add %arg1, %[[C]] {lhs_quantization = !quant.uniform<u8:f32, 3.125{{0*}}e-02:100>, output_quantization = !quant.uniform<u8:f32, 6.25{{0*}}e-02:90>, rhs_quantization = !quant.uniform<u8:f32, 7.8125{{0*}}e-03:3>}
// CHECK: %[[S:.*]] = nunc.add %[[C]], %[[C]] {lhs_quantization = {{.*}}, output_quantization = !quant.uniform<u8:f32, 4.6875{{0*}}e-02:128>, rhs_quantization
// CHECK: nunc.quantized_conv %[[S]]
// CHECK: %[[F:.*]] = nunc.add %arg1, %arg1 :
// CHECK: return {{.*}}%[[F]]
// Only the Adds (before the code generator forms elementwise chains):
// the conv keeps its two-step form.
// ADDS-LABEL: func.func @adds(
// ADDS: %[[C:.*]] = nunc.quantized_conv {{.*}}kernel_shape = array<i64: 1, 1>, output_quantization
// ADDS: nunc.add %arg1, %[[C]] {lhs_quantization
func.func @adds(%x: tensor<1x4x5x6xf32>, %y: tensor<1x8x5x6xf32>) -> (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %c = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %r = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.03125:100>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %a = nunc.add %r, %c {output_quantization = !quant.uniform<u8:f32, 0.0625:90>} : (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  %s = nunc.add %c, %c : (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  %w2 = nunc.constant dense<2> : tensor<8x8x1x1xi8>
  %qw2 = quant.scast %w2 : tensor<8x8x1x1xi8> to tensor<8x8x1x1x!quant.uniform<i8:f32, 0.0625>>
  %n = nunc.quantized_conv %s, %qw2 {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.046875:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x8x5x6xf32>
  %f = nunc.add %y, %y : (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  return %a, %n, %f : tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>
}

// -----

// A model whose activations were s8 codes (nunc-unsign-quantize-dequantize
// says so on the function) written as QLinear operators adds the s8 codes
// of the same grids (onnxruntime's s8 QLinearAdd); a QDQ one the u8 codes
// (onnxruntime converts its single-reader pairs to u8 first).
// CHECK-LABEL: func.func @signed(
// CHECK: nunc.add {{.*}}signed_codes
// Its readers rounding the sum to one grid, as a u8 quantize (the next
// GEMM's input) and an s8 fake_quantize of the same values (the residual's
// pair): that grid is the Add's output grid (a LayerNorm's beta Add).
// CHECK-LABEL: func.func @signed_readers_in_two_storages(
// CHECK: nunc.add {{.*}}lhs_quantization{{.*}}output_quantization = !quant.uniform<u8:f32, 6.250000e-02:116>{{.*}}signed_codes
// CHECK-LABEL: func.func @signed_qdq(
// CHECK: nunc.add {{.*}}lhs_quantization
// CHECK-NOT: signed_codes
// CHECK: return
// CHECK-LABEL: func.func @signed_qdq_shared_operand(
// CHECK-NOT: lhs_quantization
// CHECK: return
// CHECK-LABEL: func.func @signed_qdq_pair_of_two_dequantize_linears(
// CHECK-NOT: lhs_quantization
// CHECK: return
func.func @signed(%x: tensor<1x8x5x6xf32>, %y: tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32> attributes {nunc.qlinear_operators, nunc.signed_activation_codes} {
  %a = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03125:100>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %b = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.0625:128>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %s = nunc.add %a, %b {output_quantization = !quant.uniform<u8:f32, 0.0625:90>} : (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  return %s : tensor<1x8x5x6xf32>
}
func.func @signed_readers_in_two_storages(%x: tensor<1x8x5x6xf32>, %y: tensor<1x8x5x6xf32>) -> (tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0625:116>>, tensor<1x8x5x6xf32>) attributes {nunc.qlinear_operators, nunc.signed_activation_codes} {
  %a = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03125:100>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %b = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.0625:128>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %s = nunc.add %a, %b : (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  %q = nunc.quantize %s {quantization = !quant.uniform<u8:f32, 0.0625:116>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0625:116>>
  %r = nunc.fake_quantize %s {quantization = !quant.uniform<i8:f32, 0.0625:-12>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  return %q, %r : tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0625:116>>, tensor<1x8x5x6xf32>
}
func.func @signed_qdq(%x: tensor<1x8x5x6xf32>, %y: tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32> attributes {nunc.signed_activation_codes} {
  %a = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03125:100>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %b = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.0625:128>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %s = nunc.add %a, %b {output_quantization = !quant.uniform<u8:f32, 0.0625:90>} : (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  return %s : tensor<1x8x5x6xf32>
}
// (An operand whose pair has another reader stays s8 in onnxruntime, and
// its Add an f32 one: a residual block's input.)
func.func @signed_qdq_shared_operand(%x: tensor<1x8x5x6xf32>, %y: tensor<1x8x5x6xf32>) -> (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) attributes {nunc.signed_activation_codes} {
  %a = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03125:100>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %b = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.0625:128>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %s = nunc.add %a, %b {output_quantization = !quant.uniform<u8:f32, 0.0625:90>} : (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  return %s, %a : tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>
}
// (Likewise where each reader has its own fake_quantize of the value: the
// model's DequantizeLinears of one pair, one per reader.)
func.func @signed_qdq_pair_of_two_dequantize_linears(%x: tensor<1x8x5x6xf32>, %y: tensor<1x8x5x6xf32>) -> (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) attributes {nunc.signed_activation_codes} {
  %a = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03125:100>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %a2 = nunc.fake_quantize %x {quantization = !quant.uniform<i8:f32, 0.03125:-28>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %b = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.0625:128>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %s = nunc.add %a, %b {output_quantization = !quant.uniform<u8:f32, 0.0625:90>} : (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  %r = nunc.relu %a2 : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  return %s, %r : tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>
}

// -----

// A depthwise conv on u8 codes writing those of its grid, its filter on the
// model's grid (weight_quantization: every value the f32 product of a step
// and its channel's scale, steps within s8): one step too; also writing
// their f32 values, of its own grid or of the one its reader rounds them
// to (a BatchNormalization's input pair). Not with a filter off that grid
// (a value no step gives), without the grid, or with a LeakyRelu; and not
// with only-elementwise.
// CHECK-LABEL: func.func @depthwise_codes(
// CHECK: %[[A:.*]] = nunc.fused_conv {{.*}}one_step_requantization, output_quantization
// CHECK: %[[B:.*]] = nunc.fused_conv {{.*}}one_step_requantization, output_quantization
// CHECK-NOT: one_step_requantization
// CHECK: nunc.fused_conv {{.*}}one_step_requantization, output_quantization = !quant.uniform<u8:f32, 3.125{{0*}}e-02:10>{{.*}} -> tensor<1x2x4x4xf32>
// CHECK-NOT: one_step_requantization
// CHECK: nunc.fused_conv {{.*}}one_step_requantization, output_quantization = !quant.uniform<u8:f32, 6.25{{0*}}e-02:7>{{.*}} -> tensor<1x2x4x4xf32>
// CHECK: return
// ADDS-LABEL: func.func @depthwise_codes(
// ADDS-NOT: one_step_requantization
func.func @depthwise_codes(%x: tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>) -> (tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>, tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>, tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>, tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>, tensor<1x2x4x4xf32>, tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>, tensor<1x2x4x4xf32>) {
  %w = nunc.constant dense<[[[[1.5, -0.5, 1.0]]], [[[-32.0, 31.75, 0.25]]]]> : tensor<2x1x1x3xf32>
  %off = nunc.constant dense<[[[[1.5, -0.5, 1.0]]], [[[-32.0, 31.7, 0.25]]]]> : tensor<2x1x1x3xf32>
  %b = nunc.constant dense<[0.125, -0.25]> : tensor<2xf32>
  %a = nunc.fused_conv %x, %w bias %b : tensor<2xf32> {activation = "clip", activation_max = 6.0 : f32, activation_min = 0.0 : f32, dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 3>, output_quantization = !quant.uniform<u8:f32, 0.03125:10>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, u8_output, weight_quantization = !quant.uniform<i8:f32:0, {0.5, 0.25}>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>, tensor<2x1x1x3xf32> -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>
  %p = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 3>, output_quantization = !quant.uniform<u8:f32, 0.03125:10>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, u8_output, weight_quantization = !quant.uniform<u8:f32, 0.25:128>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>, tensor<2x1x1x3xf32> -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>
  %c = nunc.fused_conv %x, %off bias %b : tensor<2xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 3>, output_quantization = !quant.uniform<u8:f32, 0.03125:10>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, u8_output, weight_quantization = !quant.uniform<i8:f32:0, {0.5, 0.25}>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>, tensor<2x1x1x3xf32> -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>
  %d = nunc.fused_conv %x, %w bias %b : tensor<2xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 3>, output_quantization = !quant.uniform<u8:f32, 0.03125:10>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, u8_output} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>, tensor<2x1x1x3xf32> -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>
  %e = nunc.fused_conv %x, %w bias %b : tensor<2xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 3>, output_quantization = !quant.uniform<u8:f32, 0.03125:10>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, weight_quantization = !quant.uniform<i8:f32:0, {0.5, 0.25}>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>, tensor<2x1x1x3xf32> -> tensor<1x2x4x4xf32>
  %l = nunc.fused_conv %x, %w bias %b : tensor<2xf32> {activation = "leaky_relu", dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 3>, output_quantization = !quant.uniform<u8:f32, 0.03125:10>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, u8_output, weight_quantization = !quant.uniform<i8:f32:0, {0.5, 0.25}>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>, tensor<2x1x1x3xf32> -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>
  %bn = nunc.constant dense<[1.5, 0.75]> : tensor<2xf32>
  %g = nunc.fused_conv %x, %w bias %b : tensor<2xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 3>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, weight_quantization = !quant.uniform<i8:f32:0, {0.5, 0.25}>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>, tensor<2x1x1x3xf32> -> tensor<1x2x4x4xf32>
  %n = nunc.batch_norm %g, %bn, %b, %b, %bn {input_quantization = !quant.uniform<u8:f32, 0.0625:7>, output_quantization = !quant.uniform<u8:f32, 0.03125:10>} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %a, %p, %c, %d, %e, %l, %n : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>, tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>, tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>, tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>, tensor<1x2x4x4xf32>, tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>, tensor<1x2x4x4xf32>
}

// -----

// A bias that would round on its sums' grid by more than 1/16 of an output
// step keeps the two-step form: 0.01 on a grid of 1.0 x 0.03125 (and of
// 2.0 x 0.5 for the depthwise conv) would vanish, 1.3 output steps (a QDQ
// bias whose own scale is not the input's times the weight's).
// CHECK-LABEL: func.func @bias_off_its_sums_grid(
// CHECK-NOT: one_step_requantization
// CHECK: nunc.quantized_conv
// CHECK-NOT: one_step_requantization
// CHECK: nunc.fused_conv
// CHECK-NOT: one_step_requantization
// CHECK: return
func.func @bias_off_its_sums_grid(%x: tensor<1x4x5x6xf32>, %y: tensor<1x2x4x4x!quant.uniform<u8:f32, 2.0:121>>) -> (tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:64>>, tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:10>>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %b = nunc.constant dense<0.01> : tensor<8xf32>
  %c = nunc.quantized_conv %x, %qw bias %b : tensor<8xf32> {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 1.0:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.0078125:64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:64>>
  %dw = nunc.constant dense<[[[[1.5, -0.5, 1.0]]], [[[-32.0, 31.5, 0.5]]]]> : tensor<2x1x1x3xf32>
  %db = nunc.constant dense<[0.01, -0.01]> : tensor<2xf32>
  %d = nunc.fused_conv %y, %dw bias %db : tensor<2xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 3>, output_quantization = !quant.uniform<u8:f32, 0.0078125:10>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, u8_output, weight_quantization = !quant.uniform<i8:f32:0, {0.5, 0.5}>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 2.0:121>>, tensor<2x1x1x3xf32> -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:10>>
  return %c, %d : tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125:64>>, tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:10>>
}

// -----

// A QDQ conv whose pair its readers took (the next conv's static input
// grid, an Add of codes's operand grid) writes the values of that grid in
// one step: it gets the grid as its output grid. Not where a reader takes
// the f32 result (a Relu) or the readers' grids differ.
// CHECK-LABEL: func.func @readers_grid(
// CHECK: %[[C:.*]] = nunc.quantized_conv {{.*}}one_step_requantization, output_quantization = !quant.uniform<u8:f32, 3.125{{0*}}e-02:100>
// CHECK: nunc.quantized_conv %[[C]]
// CHECK: nunc.add %[[C]]
// CHECK: %[[R:.*]] = nunc.quantized_conv
// CHECK-NOT: one_step_requantization
// CHECK-SAME: -> tensor<1x8x5x6xf32>
// CHECK: nunc.relu %[[R]]
// CHECK: %[[D:.*]] = nunc.quantized_conv
// CHECK-NOT: one_step_requantization
// CHECK-SAME: -> tensor<1x8x5x6xf32>
// ADDS-LABEL: func.func @readers_grid(
// ADDS-NOT: one_step_requantization
func.func @readers_grid(%x: tensor<1x4x5x6xf32>, %y: tensor<1x8x5x6xf32>) -> (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %w2 = nunc.constant dense<2> : tensor<8x8x1x1xi8>
  %qw2 = quant.scast %w2 : tensor<8x8x1x1xi8> to tensor<8x8x1x1x!quant.uniform<i8:f32, 0.0625>>
  %c = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %n = nunc.quantized_conv %c, %qw2 {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03125:100>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x8x5x6xf32>
  %a = nunc.add %c, %y {lhs_quantization = !quant.uniform<u8:f32, 0.03125:100>, output_quantization = !quant.uniform<u8:f32, 0.0625:90>, rhs_quantization = !quant.uniform<u8:f32, 0.0625:90>} : (tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>) -> tensor<1x8x5x6xf32>
  %r = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %rn = nunc.quantized_conv %r, %qw2 {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03125:100>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x8x5x6xf32>
  %relu = nunc.relu %r : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  %d = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %dn = nunc.quantized_conv %d, %qw2 {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.03125:100>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<8x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x8x5x6xf32>
  %df = nunc.fake_quantize %d {quantization = !quant.uniform<u8:f32, 0.0625:100>} : tensor<1x8x5x6xf32> -> tensor<1x8x5x6xf32>
  return %n, %a, %rn, %relu, %df : tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>, tensor<1x8x5x6xf32>
}

// -----

// A GlobalAveragePool between pairs (its input a conv's grid values, its
// mean rounded by a fake_quantize that only it feeds, or by every reader)
// averages the codes as onnxruntime's QLinearGlobalAveragePool: both grids
// on the pool, the fake_quantize folded. Not on an input off any grid.
// CHECK-LABEL: func.func @pool_codes(
// CHECK-NOT: nunc.fake_quantize
// CHECK: nunc.global_average_pool %{{.*}} {input_quantization = !quant.uniform<u8:f32, 3.125{{0*}}e-02:100>, output_quantization = !quant.uniform<u8:f32, 1.5625{{0*}}e-02:7>}
// CHECK: %[[E:.*]] = nunc.global_average_pool %{{.*}} {input_quantization = !quant.uniform<u8:f32, 3.125{{0*}}e-02:100>, output_quantization = !quant.uniform<u8:f32, 2.34375{{0*}}e-02:128>}
// CHECK: nunc.quantized_conv %[[E]]
// CHECK: nunc.global_average_pool %arg0 :
// CHECK: nunc.fake_quantize
// ADDS-LABEL: func.func @pool_codes(
// ADDS: nunc.fake_quantize
func.func @pool_codes(%x: tensor<1x4x5x6xf32>) -> (tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x4x1x1xf32>) {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  %c = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.03125:100>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  %p = nunc.global_average_pool %c : tensor<1x8x5x6xf32> -> tensor<1x8x1x1xf32>
  %q = nunc.fake_quantize %p {quantization = !quant.uniform<u8:f32, 0.015625:7>} : tensor<1x8x1x1xf32> -> tensor<1x8x1x1xf32>
  %e = nunc.global_average_pool %c : tensor<1x8x5x6xf32> -> tensor<1x8x1x1xf32>
  %w2 = nunc.constant dense<2> : tensor<8x8x1x1xi8>
  %qw2 = quant.scast %w2 : tensor<8x8x1x1xi8> to tensor<8x8x1x1x!quant.uniform<i8:f32, 0.0625>>
  %n = nunc.quantized_conv %e, %qw2 {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x1x1xf32>, tensor<8x8x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x8x1x1xf32>
  %g = nunc.global_average_pool %x : tensor<1x4x5x6xf32> -> tensor<1x4x1x1xf32>
  %gq = nunc.fake_quantize %g {quantization = !quant.uniform<u8:f32, 0.015625:7>} : tensor<1x4x1x1xf32> -> tensor<1x4x1x1xf32>
  return %q, %n, %gq : tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x4x1x1xf32>
}

// -----

// An AveragePool between pairs (its input on a grid, its mean rounded by a
// fake_quantize that only it feeds, or by every reader) rounds as
// onnxruntime's QLinearAveragePool: the output grid on the pool, the
// fake_quantize folded. Not on an input off any grid, nor without a grid
// after it.
// CHECK-LABEL: func.func @average_pool_on_its_grid(
// CHECK: %[[A:.*]] = nunc.average_pool %{{.*}} {{{.*}}output_quantization = !quant.uniform<u8:f32, 1.5625{{0*}}e-02:7>, pads
// CHECK-NOT: signed_codes
// CHECK: %[[B:.*]] = nunc.average_pool %{{.*}} {{{.*}}output_quantization = !quant.uniform<u8:f32, 2.34375{{0*}}e-02:128>, pads
// CHECK: nunc.quantized_conv %[[B]]
// CHECK: nunc.average_pool %arg0 {dilations
// CHECK-NOT: output_quantization
// CHECK: nunc.fake_quantize
// CHECK: nunc.average_pool %[[Q:.*]] {dilations
// CHECK-NOT: output_quantization
// CHECK: return %[[A]]
// ADDS-LABEL: func.func @average_pool_on_its_grid(
// ADDS: nunc.average_pool %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads
func.func @average_pool_on_its_grid(%x: tensor<1x4x6x6xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) {
  %xq = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03125:100>} : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  %p = nunc.average_pool %xq {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  %q = nunc.fake_quantize %p {quantization = !quant.uniform<u8:f32, 0.015625:7>} : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  %e = nunc.average_pool %xq {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  %w = nunc.constant dense<2> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.0625>>
  %n = nunc.quantized_conv %e, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x3x3xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.0625>> -> tensor<1x8x3x3xf32>
  %g = nunc.average_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  %gq = nunc.fake_quantize %g {quantization = !quant.uniform<u8:f32, 0.015625:7>} : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  %h = nunc.average_pool %xq {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  return %q, %n, %gq, %h : tensor<1x4x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>
}

// -----

// A Softmax between pairs (its input on a grid: a fake_quantize's, a
// quantized GEMM's output grid, either through a Reshape; its result
// rounded by a fake_quantize that only it feeds, or by every reader)
// takes onnxruntime's QLinearSoftmax steps: both grids on the op, the
// fake_quantize folded. Not on an input off any grid, nor without a grid
// after it.
// CHECK-LABEL: func.func @softmax_in_qlinear_steps(
// CHECK: %[[A:.*]] = nunc.softmax %{{.*}} {input_quantization = !quant.uniform<u8:f32, 1.250000e-01:100>, output_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>}
// CHECK: %[[G:.*]] = nunc.quantized_linear
// CHECK: %[[B:.*]] = nunc.softmax %[[G]] {input_quantization = !quant.uniform<u8:f32, 2.500000e-01:100>, output_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>}
// CHECK: %[[C:.*]] = nunc.softmax %arg0 :
// CHECK: %[[CQ:.*]] = nunc.fake_quantize %[[C]]
// CHECK: %[[D:.*]] = nunc.softmax %{{.*}} {axis = 0 : i64} :
// CHECK: %[[R:.*]] = nunc.reshape
// CHECK: %[[E:.*]] = nunc.softmax %[[R]] {input_quantization = !quant.uniform<u8:f32, 1.250000e-01:100>
// CHECK: return %[[A]], %[[B]], %[[CQ]], %[[D]], %[[E]] :
// ADDS-LABEL: func.func @softmax_in_qlinear_steps(
// ADDS: nunc.softmax %{{.*}} :
func.func @softmax_in_qlinear_steps(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x6xf32>) {
  %xq = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<4x3xf32> -> tensor<4x3xf32>
  %a = nunc.softmax %xq : tensor<4x3xf32> -> tensor<4x3xf32>
  %aq = nunc.fake_quantize %a {quantization = !quant.uniform<u8:f32, 0.0039215688593685627>} : tensor<4x3xf32> -> tensor<4x3xf32>
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %g = nunc.quantized_linear %xq, %qw {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>, output_quantization = !quant.uniform<u8:f32, 0.25:100>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  %b = nunc.softmax %g : tensor<4x2xf32> -> tensor<4x2xf32>
  %bq = nunc.fake_quantize %b {quantization = !quant.uniform<u8:f32, 0.0039215688593685627>} : tensor<4x2xf32> -> tensor<4x2xf32>
  %c = nunc.softmax %x : tensor<4x3xf32> -> tensor<4x3xf32>
  %cq = nunc.fake_quantize %c {quantization = !quant.uniform<u8:f32, 0.0039215688593685627>} : tensor<4x3xf32> -> tensor<4x3xf32>
  %d = nunc.softmax %xq {axis = 0 : i64} : tensor<4x3xf32> -> tensor<4x3xf32>
  %shape = nunc.constant dense<[2, 6]> : tensor<2xi64>
  %r = nunc.reshape %xq, %shape : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2x6xf32>
  %e = nunc.softmax %r : tensor<2x6xf32> -> tensor<2x6xf32>
  %eq = nunc.fake_quantize %e {quantization = !quant.uniform<u8:f32, 0.0039215688593685627>} : tensor<2x6xf32> -> tensor<2x6xf32>
  return %aq, %bq, %cq, %d, %eq : tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x6xf32>
}

// -----

// With s8 activations: a QDQ model's Softmax whose pairs onnxruntime
// converts both to u8 (one reader each) or neither takes the steps; one of
// each (an f32 Softmax there) is left alone.
// CHECK-LABEL: func.func @softmax_qdq_s8(
// CHECK: %[[ONE:.*]] = nunc.softmax %{{.*}} {input_quantization
// CHECK: %[[MIXED:.*]] = nunc.softmax %{{.*}} : tensor<4x3xf32>
// CHECK: nunc.fake_quantize %[[MIXED]]
func.func @softmax_qdq_s8(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) attributes {nunc.signed_activation_codes} {
  %xq = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<4x3xf32> -> tensor<4x3xf32>
  %one = nunc.softmax %xq : tensor<4x3xf32> -> tensor<4x3xf32>
  %oneq = nunc.fake_quantize %one {quantization = !quant.uniform<u8:f32, 0.0039215688593685627>} : tensor<4x3xf32> -> tensor<4x3xf32>
  %yq = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<4x3xf32> -> tensor<4x3xf32>
  %mixed = nunc.softmax %yq : tensor<4x3xf32> -> tensor<4x3xf32>
  %mixedq = nunc.fake_quantize %mixed {quantization = !quant.uniform<u8:f32, 0.0039215688593685627>} : tensor<4x3xf32> -> tensor<4x3xf32>
  return %oneq, %mixedq, %yq : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// With s8 activations (codes moved onto u8 grids): a QLinear-operator
// model's pool rounds with the s8 zero point (signed_codes); a QDQ model's
// with the u8 one where both pairs have one reader (onnxruntime converts
// them to u8), the s8 one where both have others (they stay s8); with one
// of each onnxruntime runs MLAS's f32 AveragePool, then the pair:
// ordered_f32_arithmetic, the fake_quantize kept.
// CHECK-LABEL: func.func @average_pool_qlinear_operators_s8(
// CHECK: nunc.average_pool {{.*}}output_quantization = !quant.uniform<u8:f32, 1.5625{{0*}}e-02:7>{{.*}}signed_codes
// CHECK-LABEL: func.func @average_pool_qdq_s8(
// CHECK: %[[ONE:.*]] = nunc.average_pool %[[IN:.*]] {{{.*}}output_quantization
// CHECK-NOT: signed_codes
// CHECK-SAME: -> tensor<1x4x3x3xf32>
// CHECK: %[[BOTH:.*]] = nunc.average_pool {{.*}}output_quantization{{.*}}signed_codes
// CHECK: %[[MIXED:.*]] = nunc.average_pool %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, ordered_f32_arithmetic, pads
// CHECK: nunc.fake_quantize %[[MIXED]]
func.func @average_pool_qlinear_operators_s8(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32> attributes {nunc.qlinear_operators, nunc.signed_activation_codes} {
  %xq = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03125:100>} : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  %p = nunc.average_pool %xq {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  %q = nunc.fake_quantize %p {quantization = !quant.uniform<u8:f32, 0.015625:7>} : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  return %q : tensor<1x4x3x3xf32>
}
func.func @average_pool_qdq_s8(%x: tensor<1x4x6x6xf32>, %y: tensor<1x4x6x6xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x6x6xf32>, tensor<1x4x3x3xf32>) attributes {nunc.signed_activation_codes} {
  %xq = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03125:100>} : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  %one = nunc.average_pool %xq {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  %oneq = nunc.fake_quantize %one {quantization = !quant.uniform<u8:f32, 0.015625:7>} : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  %yq = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.03125:100>} : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  %both = nunc.average_pool %yq {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  %bothq = nunc.fake_quantize %both {quantization = !quant.uniform<u8:f32, 0.015625:7>} : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  %bothr = nunc.relu %bothq : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  %mixed = nunc.average_pool %yq {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  %mixedq = nunc.fake_quantize %mixed {quantization = !quant.uniform<u8:f32, 0.015625:7>} : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  return %oneq, %bothq, %bothr, %yq, %mixedq : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x6x6xf32>, tensor<1x4x3x3xf32>
}

// -----

// u8 filter codes of one zero point whose steps leave s8 (q - 10 up to
// 245): one step too (the kernel takes them as steps plus an offset).
// CHECK-LABEL: func.func @depthwise_u8_steps(
// CHECK: nunc.fused_conv {{.*}}one_step_requantization
func.func @depthwise_u8_steps(%x: tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>> {
  %w = nunc.constant dense<[[[[61.25, -2.5, 1.0]]], [[[-2.0, 31.75, 0.25]]]]> : tensor<2x1x1x3xf32>
  %a = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 3>, output_quantization = !quant.uniform<u8:f32, 0.03125:10>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, u8_output, weight_quantization = !quant.uniform<u8:f32, 0.25:10>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>, tensor<2x1x1x3xf32> -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>
  return %a : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.03125:10>>
}

// -----

// A depthwise conv whose output grid indexes a table (an elementwise chain
// after the pair, looked up at its codes): its codes in one step before
// the lookup.
// CHECK-LABEL: func.func @depthwise_table(
// CHECK: nunc.fused_conv {{.*}}one_step_requantization, output_quantization = !quant.uniform<u8:f32, 3.125{{0*}}e-02:10>, output_table
func.func @depthwise_table(%x: tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>) -> tensor<1x2x4x4xf32> {
  %w = nunc.constant dense<[[[[0.25, -0.5, 0.75]]], [[[-0.125, 1.0, 0.5]]]]> : tensor<2x1x1x3xf32>
  %a = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 3>, output_quantization = !quant.uniform<u8:f32, 0.03125:10>, output_table = array<f32: 0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375, 0.5, 0.5625, 0.625, 0.6875, 0.75, 0.8125, 0.875, 0.9375, 1.0, 1.0625, 1.125, 1.1875, 1.25, 1.3125, 1.375, 1.4375, 1.5, 1.5625, 1.625, 1.6875, 1.75, 1.8125, 1.875, 1.9375, 2.0, 2.0625, 2.125, 2.1875, 2.25, 2.3125, 2.375, 2.4375, 2.5, 2.5625, 2.625, 2.6875, 2.75, 2.8125, 2.875, 2.9375, 3.0, 3.0625, 3.125, 3.1875, 3.25, 3.3125, 3.375, 3.4375, 3.5, 3.5625, 3.625, 3.6875, 3.75, 3.8125, 3.875, 3.9375, 4.0, 4.0625, 4.125, 4.1875, 4.25, 4.3125, 4.375, 4.4375, 4.5, 4.5625, 4.625, 4.6875, 4.75, 4.8125, 4.875, 4.9375, 5.0, 5.0625, 5.125, 5.1875, 5.25, 5.3125, 5.375, 5.4375, 5.5, 5.5625, 5.625, 5.6875, 5.75, 5.8125, 5.875, 5.9375, 6.0, 6.0625, 6.125, 6.1875, 6.25, 6.3125, 6.375, 6.4375, 6.5, 6.5625, 6.625, 6.6875, 6.75, 6.8125, 6.875, 6.9375, 7.0, 7.0625, 7.125, 7.1875, 7.25, 7.3125, 7.375, 7.4375, 7.5, 7.5625, 7.625, 7.6875, 7.75, 7.8125, 7.875, 7.9375, 8.0, 8.0625, 8.125, 8.1875, 8.25, 8.3125, 8.375, 8.4375, 8.5, 8.5625, 8.625, 8.6875, 8.75, 8.8125, 8.875, 8.9375, 9.0, 9.0625, 9.125, 9.1875, 9.25, 9.3125, 9.375, 9.4375, 9.5, 9.5625, 9.625, 9.6875, 9.75, 9.8125, 9.875, 9.9375, 10.0, 10.0625, 10.125, 10.1875, 10.25, 10.3125, 10.375, 10.4375, 10.5, 10.5625, 10.625, 10.6875, 10.75, 10.8125, 10.875, 10.9375, 11.0, 11.0625, 11.125, 11.1875, 11.25, 11.3125, 11.375, 11.4375, 11.5, 11.5625, 11.625, 11.6875, 11.75, 11.8125, 11.875, 11.9375, 12.0, 12.0625, 12.125, 12.1875, 12.25, 12.3125, 12.375, 12.4375, 12.5, 12.5625, 12.625, 12.6875, 12.75, 12.8125, 12.875, 12.9375, 13.0, 13.0625, 13.125, 13.1875, 13.25, 13.3125, 13.375, 13.4375, 13.5, 13.5625, 13.625, 13.6875, 13.75, 13.8125, 13.875, 13.9375, 14.0, 14.0625, 14.125, 14.1875, 14.25, 14.3125, 14.375, 14.4375, 14.5, 14.5625, 14.625, 14.6875, 14.75, 14.8125, 14.875, 14.9375, 15.0, 15.0625, 15.125, 15.1875, 15.25, 15.3125, 15.375, 15.4375, 15.5, 15.5625, 15.625, 15.6875, 15.75, 15.8125, 15.875, 15.9375>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>, weight_quantization = !quant.uniform<i8:f32, 0.125>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078125:121>>, tensor<2x1x1x3xf32> -> tensor<1x2x4x4xf32>
  return %a : tensor<1x2x4x4xf32>
}

// -----

// A QDQ model's attention on u8 codes with a grid on every step, its mask
// an elementwise chain ending on a u8 grid: onnxruntime's steps
// (qlinear_arithmetic), the chain's last grid as the mask's.
// CHECK-LABEL: func.func @qlinear_attention(
// CHECK: nunc.attention {{.*}}mask_quantization = !quant.uniform<u8:f32, 1.000000e+00>{{.*}}qlinear_arithmetic{{.*}}scale_divisor = 2.000000e+00
// Without a mask: no logits grid, no mask grid.
// CHECK: nunc.attention
// CHECK-NOT: mask_quantization
// CHECK-SAME: qlinear_arithmetic
// ADDS-LABEL: func.func @qlinear_attention(
// ADDS-NOT: qlinear_arithmetic
func.func @qlinear_attention(%q: tensor<1x4x8x!quant.uniform<u8:f32, 0.04:128>>, %k: tensor<1x5x8x!quant.uniform<u8:f32, 0.035:100>>, %v: tensor<1x5x8x!quant.uniform<u8:f32, 0.02:37>>, %m: tensor<1x1x1x5xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %mask = nunc.elementwise_chain %m {steps = [{args = array<i64: -1, 0>, constant = 1.000000e+00 : f32, grid = !quant.uniform<u8:f32, 1.000000e+00>, op = "sub"}, {args = array<i64: 1, -1>, constant = -3.40282347E+38 : f32, grid = !quant.uniform<u8:f32, 1.000000e+00>, op = "mul"}]} : (tensor<1x1x1x5xf32>) -> tensor<1x1x1x5xf32>
  %a = nunc.attention %q, %k, %v mask %mask : tensor<1x1x1x5xf32> {logits_quantization = !quant.uniform<u8:f32, 0.0625:120>, num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 0.015625:114>, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, scale = 0.5 : f32, scale_divisor = 2.0 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0625:120>, scores_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<1x4x8x!quant.uniform<u8:f32, 0.04:128>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.035:100>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.02:37>> -> tensor<1x4x8xf32>
  %b = nunc.attention %q, %k, %v {num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 0.015625:114>, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, scale = 0.5 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0625:120>, scores_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<1x4x8x!quant.uniform<u8:f32, 0.04:128>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.035:100>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.02:37>> -> tensor<1x4x8xf32>
  return %a, %b : tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

// -----

// Not in onnxruntime's steps: a mask whose values lie on no grid; f32
// query, key and value; a missing grid (P V's).
// CHECK-LABEL: func.func @attention_as_it_is(
// CHECK-NOT: qlinear_arithmetic
// CHECK: return
func.func @attention_as_it_is(%q: tensor<1x4x8x!quant.uniform<u8:f32, 0.04:128>>, %k: tensor<1x5x8x!quant.uniform<u8:f32, 0.035:100>>, %v: tensor<1x5x8x!quant.uniform<u8:f32, 0.02:37>>, %m: tensor<1x1x1x5xf32>, %f: tensor<1x4x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %a = nunc.attention %q, %k, %v mask %m : tensor<1x1x1x5xf32> {logits_quantization = !quant.uniform<u8:f32, 0.0625:120>, num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 0.015625:114>, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, scale = 0.5 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0625:120>, scores_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<1x4x8x!quant.uniform<u8:f32, 0.04:128>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.035:100>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.02:37>> -> tensor<1x4x8xf32>
  %b = nunc.attention %f, %f, %f {num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 0.015625:114>, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, scale = 0.5 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0625:120>, scores_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32> -> tensor<1x4x8xf32>
  %c = nunc.attention %q, %k, %v {num_heads = 2 : i64, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, scale = 0.5 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0625:120>, scores_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<1x4x8x!quant.uniform<u8:f32, 0.04:128>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.035:100>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.02:37>> -> tensor<1x4x8xf32>
  return %a, %b, %c : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

// -----

// A model quantized with s8 activations: signed_codes too (the mask's
// codes add as s8). Also where the probabilities' codes saturate:
// floor(1 / s_p) + zp - 128 = 254 + 40 - 128 > 127 (onnxruntime's s8
// softmax writes 127 there, as the u8 codes stop at 255).
// CHECK-LABEL: func.func @attention_signed_model(
// CHECK: nunc.attention {{.*}}qlinear_arithmetic{{.*}}signed_codes
// CHECK: nunc.attention {{.*}}qlinear_arithmetic{{.*}}signed_codes
// CHECK: return
func.func @attention_signed_model(%q: tensor<1x4x8x!quant.uniform<u8:f32, 0.04:128>>, %k: tensor<1x5x8x!quant.uniform<u8:f32, 0.035:100>>, %v: tensor<1x5x8x!quant.uniform<u8:f32, 0.02:37>>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) attributes {nunc.signed_activation_codes} {
  %b = nunc.attention %q, %k, %v {num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 0.015625:114>, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, scale = 0.5 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0625:120>, scores_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<1x4x8x!quant.uniform<u8:f32, 0.04:128>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.035:100>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.02:37>> -> tensor<1x4x8xf32>
  %c = nunc.attention %q, %k, %v {num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 0.015625:114>, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627:40>, scale = 0.5 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0625:120>, scores_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<1x4x8x!quant.uniform<u8:f32, 0.04:128>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.035:100>>, tensor<1x5x8x!quant.uniform<u8:f32, 0.02:37>> -> tensor<1x4x8xf32>
  return %b, %c : tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

// -----

// A QDQ model's MatMul and bias Add between u8 pairs (bias codes on their
// grid): onnxruntime's QLinearMatMul and QLinearAdd
// (one_step_requantization); its residual on a u8 grid (a fake_quantize)
// added likewise (residual_quantization). Not: a bias off its codes' grid,
// no product grid.
// CHECK-LABEL: func.func @qlinear_gemms(
// CHECK: nunc.quantized_linear {{.*}}bias_codes_quantization{{.*}}one_step_requantization{{.*}}u8_output
// CHECK: nunc.quantized_linear {{.*}}bias_first{{.*}}one_step_requantization{{.*}}residual_quantization = !quant.uniform<u8:f32, 2.500000e-01:128>
// CHECK: nunc.quantized_linear
// CHECK-NOT: one_step_requantization
// CHECK: return
func.func @qlinear_gemms(%x: tensor<4x3xf32>, %r: tensor<4x2xf32>) -> (tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %b = nunc.constant dense<[-0.5, 0.25]> : tensor<2xf32>
  %off = nunc.constant dense<[-0.5, 0.3]> : tensor<2xf32>
  %rq = nunc.fake_quantize %r {quantization = !quant.uniform<u8:f32, 0.25:128>} : tensor<4x2xf32> -> tensor<4x2xf32>
  %a = nunc.quantized_linear %x, %qw bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 0.25:10>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<u8:f32, 0.125:120>, u8_output} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>
  %c = nunc.quantized_linear %x, %qw bias %b : tensor<2xf32> residual %rq : tensor<4x2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 0.25:10>, bias_first, bias_quantization = !quant.uniform<u8:f32, 0.25:90>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.5:100>, product_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  %d = nunc.quantized_linear %x, %qw bias %off : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 0.25:10>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  %e = nunc.quantized_linear %x, %qw bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 0.25:10>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return %a, %c, %d, %e : tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A u8 QDQ model's GELU in a GEMM's epilogue whose constants 1 and 0.5 are
// codes of grids (gelu_one / gelu_half_quantization): onnxruntime's
// QLinearAdd / QLinearMul steps (gelu_qlinear_arithmetic). Not: without the
// constants' grids, without an output grid, in a QDQ model with s8
// activations (there the GELU's Muls stay f32 ops in onnxruntime). In a
// QLinear-operator model with s8 activations, on s8 codes as its GEMM's
// (signed_codes; the constants' grids s8 as the model stores them).
// CHECK-LABEL: func.func @gelu_in_qlinear_steps(
// CHECK: nunc.quantized_linear {{.*}}gelu_qlinear_arithmetic
// CHECK-NOT: gelu_qlinear_arithmetic
// CHECK: return
// CHECK-LABEL: func.func @gelu_in_qlinear_steps_qlinear_operators_s8(
// CHECK: nunc.quantized_linear {{.*}}gelu_qlinear_arithmetic{{.*}}one_step_requantization{{.*}}signed_codes
// CHECK-LABEL: func.func @gelu_in_qlinear_steps_s8(
// CHECK-NOT: gelu_qlinear_arithmetic
// CHECK: return
func.func @gelu_in_qlinear_steps(%x: tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %a = nunc.quantized_linear %x, %qw {activation = "gelu", activation_input_quantization = !quant.uniform<u8:f32, 0.05:128>, activation_quantization = "static", gelu_erf_quantization = !quant.uniform<u8:f32, 0.0078431377:128>, gelu_half_quantization = !quant.uniform<u8:f32, 0.0019607844>, gelu_one_quantization = !quant.uniform<u8:f32, 0.0039215689>, gelu_product_quantization = !quant.uniform<u8:f32, 0.0625:20>, gelu_sum_quantization = !quant.uniform<u8:f32, 0.0078431377>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.03125:8>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  %b = nunc.quantized_linear %x, %qw {activation = "gelu", activation_input_quantization = !quant.uniform<u8:f32, 0.05:128>, activation_quantization = "static", gelu_erf_quantization = !quant.uniform<u8:f32, 0.0078431377:128>, gelu_product_quantization = !quant.uniform<u8:f32, 0.0625:20>, gelu_sum_quantization = !quant.uniform<u8:f32, 0.0078431377>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.03125:8>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  %c = nunc.quantized_linear %x, %qw {activation = "gelu", activation_input_quantization = !quant.uniform<u8:f32, 0.05:128>, activation_quantization = "static", gelu_erf_quantization = !quant.uniform<u8:f32, 0.0078431377:128>, gelu_half_quantization = !quant.uniform<u8:f32, 0.0019607844>, gelu_one_quantization = !quant.uniform<u8:f32, 0.0039215689>, gelu_product_quantization = !quant.uniform<u8:f32, 0.0625:20>, gelu_sum_quantization = !quant.uniform<u8:f32, 0.0078431377>, input_quantization = !quant.uniform<u8:f32, 0.125:10>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return %a, %b, %c : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
func.func @gelu_in_qlinear_steps_qlinear_operators_s8(%x: tensor<4x3xf32>) -> tensor<4x2xf32> attributes {nunc.qlinear_operators, nunc.signed_activation_codes} {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %b = nunc.constant dense<[-0.5, 0.25]> : tensor<2xf32>
  %a = nunc.quantized_linear %x, %qw bias %b : tensor<2xf32> {activation = "gelu", activation_input_quantization = !quant.uniform<u8:f32, 0.05:128>, activation_quantization = "static", bias_codes_quantization = !quant.uniform<i8:f32, 0.25:-10>, gelu_erf_quantization = !quant.uniform<u8:f32, 0.0078431377:128>, gelu_half_quantization = !quant.uniform<i8:f32, 0.0019607844:-128>, gelu_one_quantization = !quant.uniform<i8:f32, 0.0039215689:-128>, gelu_product_quantization = !quant.uniform<u8:f32, 0.0625:20>, gelu_sum_quantization = !quant.uniform<u8:f32, 0.0078431377>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.03125:8>, product_quantization = !quant.uniform<i8:f32, 0.125:-8>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return %a : tensor<4x2xf32>
}
func.func @gelu_in_qlinear_steps_s8(%x: tensor<4x3xf32>) -> tensor<4x2xf32> attributes {nunc.signed_activation_codes} {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %a = nunc.quantized_linear %x, %qw {activation = "gelu", activation_input_quantization = !quant.uniform<u8:f32, 0.05:128>, activation_quantization = "static", gelu_erf_quantization = !quant.uniform<u8:f32, 0.0078431377:128>, gelu_half_quantization = !quant.uniform<u8:f32, 0.0019607844>, gelu_one_quantization = !quant.uniform<u8:f32, 0.0039215689>, gelu_product_quantization = !quant.uniform<u8:f32, 0.0625:20>, gelu_sum_quantization = !quant.uniform<u8:f32, 0.0078431377>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.03125:8>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return %a : tensor<4x2xf32>
}

// -----

// A decomposed LayerNorm's means between a quantized model's pairs: the
// mean of values on a grid, and the variance's mean that an elementwise
// chain rounds first, sum as onnxruntime's kernel does
// (ordered_f32_arithmetic). Not: an f32 mean read as f32, rows of 10 (not
// whole packets), a mean over the leading axis.
// CHECK-LABEL: func.func @means_between_pairs(
// CHECK: nunc.reduce_mean %{{.*}} {ordered_f32_arithmetic}
// CHECK: nunc.reduce_mean %{{.*}} {ordered_f32_arithmetic}
// CHECK-NOT: ordered_f32_arithmetic
// CHECK: return
func.func @means_between_pairs(%x: tensor<2x16xf32>, %y: tensor<2x10xf32>, %z: tensor<2x16xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x16xf32>) {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %axes0 = nunc.constant dense<[0]> : tensor<1xi64>
  %q = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.05:120>} : tensor<2x16xf32> -> tensor<2x16xf32>
  %m = nunc.reduce_mean %q axes %axes : tensor<1xi64> : tensor<2x16xf32> -> tensor<2x1xf32>
  %sq = nunc.mul %z, %z : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  %v = nunc.reduce_mean %sq axes %axes : tensor<1xi64> : tensor<2x16xf32> -> tensor<2x1xf32>
  %r = nunc.elementwise_chain %v {steps = [{args = array<i64: 0>, grid = !quant.uniform<u8:f32, 0.001>, op = "fake_quantize"}, {args = array<i64: 1, -1>, constant = 1.0e-12 : f32, grid = !quant.uniform<u8:f32, 0.001>, op = "add"}]} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %f = nunc.reduce_mean %z axes %axes : tensor<1xi64> : tensor<2x16xf32> -> tensor<2x1xf32>
  %qy = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.05:120>} : tensor<2x10xf32> -> tensor<2x10xf32>
  %t = nunc.reduce_mean %qy axes %axes : tensor<1xi64> : tensor<2x10xf32> -> tensor<2x1xf32>
  %l = nunc.reduce_mean %q axes %axes0 : tensor<1xi64> : tensor<2x16xf32> -> tensor<1x16xf32>
  return %m, %r, %f, %t, %l : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x16xf32>
}

// -----

// LayerNorms between a quantized model's pairs (the input a
// DequantizeLinear's values or on an op's grid; or the result read only by
// quantize / fake_quantize ops) round as onnxruntime's kernel does
// (ordered_f32_arithmetic). Not: f32 on both sides, rows of 12.
// CHECK-LABEL: func.func @layer_norms_between_pairs(
// CHECK: nunc.layer_norm {{.*}}ordered_f32_arithmetic
// CHECK: nunc.layer_norm {{.*}}ordered_f32_arithmetic
// CHECK: nunc.layer_norm {{.*}}ordered_f32_arithmetic
// CHECK: nunc.layer_norm
// CHECK-NOT: ordered_f32_arithmetic
// CHECK: nunc.layer_norm
// CHECK-NOT: ordered_f32_arithmetic
// CHECK: return
func.func @layer_norms_between_pairs(%codes: tensor<2x16xui8>, %x: tensor<2x16xf32>, %y: tensor<2x12xui8>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16x!quant.uniform<u8:f32, 0.05:120>>, tensor<2x16xf32>, tensor<2x12xf32>) {
  %s = nunc.constant dense<0.03> : tensor<f32>
  %zp = nunc.constant dense<128> : tensor<ui8>
  %g = nunc.constant dense<1.5> : tensor<16xf32>
  %g12 = nunc.constant dense<1.5> : tensor<12xf32>
  %dq = nunc.dequantize_linear %codes, %s, %zp : tensor<ui8> : tensor<2x16xui8>, tensor<f32> -> tensor<2x16xf32>
  %a, %am, %ai = nunc.layer_norm %dq, %g : tensor<2x16xf32>, tensor<16xf32> -> tensor<2x16xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  %fq = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.25:128>} : tensor<2x16xf32> -> tensor<2x16xf32>
  %b, %bm, %bi = nunc.layer_norm %fq, %g : tensor<2x16xf32>, tensor<16xf32> -> tensor<2x16xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  %c, %cm, %ci = nunc.layer_norm %x, %g : tensor<2x16xf32>, tensor<16xf32> -> tensor<2x16xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  %cq = nunc.quantize %c {quantization = !quant.uniform<u8:f32, 0.05:120>} : tensor<2x16xf32> -> tensor<2x16x!quant.uniform<u8:f32, 0.05:120>>
  %d, %dm, %di = nunc.layer_norm %x, %g : tensor<2x16xf32>, tensor<16xf32> -> tensor<2x16xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  %dq12 = nunc.dequantize_linear %y, %s, %zp : tensor<ui8> : tensor<2x12xui8>, tensor<f32> -> tensor<2x12xf32>
  %e, %em, %ei = nunc.layer_norm %dq12, %g12 : tensor<2x12xf32>, tensor<12xf32> -> tensor<2x12xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  return %a, %b, %cq, %d, %e : tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16x!quant.uniform<u8:f32, 0.05:120>>, tensor<2x16xf32>, tensor<2x12xf32>
}

// -----

// A model with s8 activations written as QLinear operators
// (nunc.qlinear_operators: onnxruntime runs its QLinearMatMul and
// QLinearAdds on s8 codes): one_step_requantization with signed_codes for
// a bias of s8 codes and an s8 product grid, its residual's s8 grid taken
// as the u8 one of the same values.
// CHECK-LABEL: func.func @qlinear_operators_s8(
// CHECK: nunc.quantized_linear {{.*}}one_step_requantization{{.*}}signed_codes, u8_output
// CHECK: nunc.quantized_linear {{.*}}one_step_requantization{{.*}}residual_quantization = !quant.uniform<u8:f32, 2.500000e-01:128>, signed_codes
func.func @qlinear_operators_s8(%x: tensor<4x3xf32>, %r: tensor<4x2xf32>) -> (tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>, tensor<4x2xf32>) attributes {nunc.qlinear_operators, nunc.signed_activation_codes} {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %b = nunc.constant dense<[-0.5, 0.25]> : tensor<2xf32>
  %rq = nunc.fake_quantize %r {quantization = !quant.uniform<i8:f32, 0.25:0>} : tensor<4x2xf32> -> tensor<4x2xf32>
  %a = nunc.quantized_linear %x, %qw bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<i8:f32, 0.25:-10>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<i8:f32, 0.125:-8>, u8_output} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>
  %c = nunc.quantized_linear %x, %qw bias %b : tensor<2xf32> residual %rq : tensor<4x2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<i8:f32, 0.25:-10>, bias_first, bias_quantization = !quant.uniform<u8:f32, 0.25:90>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.5:100>, product_quantization = !quant.uniform<i8:f32, 0.125:-8>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return %a, %c : tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>, tensor<4x2xf32>
}

// -----

// The same in a QDQ model with s8 activations (onnxruntime runs its
// MatMuls and Adds as f32 ops between the pairs there): not marked.
// CHECK-LABEL: func.func @qdq_s8(
// CHECK-NOT: one_step_requantization
// CHECK: return
func.func @qdq_s8(%x: tensor<4x3xf32>) -> tensor<4x2x!quant.uniform<u8:f32, 0.25:100>> attributes {nunc.signed_activation_codes} {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %b = nunc.constant dense<[-0.5, 0.25]> : tensor<2xf32>
  %a = nunc.quantized_linear %x, %qw bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<i8:f32, 0.25:-10>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<i8:f32, 0.125:-8>, u8_output} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>
  return %a : tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>
}

// -----

// A QDQ model with s8 activations: a GEMM whose input pair has several
// readers (two GEMMs reading the nunc.quantize, or one and a fake_quantize
// of the same value on the same grid, its s8 view) is a MatMul onnxruntime runs in f32
// (MLAS's sgemm; K 3 < N stride 16 at N = 2: one block of 1024). One
// whose pair has one reader is a QLinearMatMul there (its pairs converted
// to u8), its bias Add in f32: qlinear_product.
// CHECK-LABEL: func.func @qdq_s8_f32_products(
// CHECK: %[[Q:.*]] = nunc.quantize %arg0
// CHECK: nunc.quantized_linear %[[Q]], {{.*}}f32_product_k_block = 1024 : i64
// CHECK: nunc.quantized_linear %[[Q]], {{.*}}f32_product_k_block = 1024 : i64
// CHECK: %[[Q1:.*]] = nunc.quantize %arg1
// CHECK: nunc.quantized_linear %[[Q1]], {{.*}}f32_product_k_block = 1024 : i64
// CHECK: %[[Q2:.*]] = nunc.quantize %arg2
// CHECK-NOT: f32_product_k_block
// CHECK: nunc.quantized_linear %[[Q2]], {{.*}}qlinear_product
// CHECK-NOT: f32_product_k_block
// CHECK: return
func.func @qdq_s8_f32_products(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>, %z: tensor<4x3xf32>) -> (tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>, tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>, tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>, tensor<4x3xf32>, tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>) attributes {nunc.signed_activation_codes} {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %b = nunc.constant dense<[-0.5, 0.25]> : tensor<2xf32>
  %q = nunc.quantize %x {quantization = !quant.uniform<u8:f32, 0.125:10>} : tensor<4x3xf32> -> tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>
  %a = nunc.quantized_linear %q, %qw bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<i8:f32, 0.25:-10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<i8:f32, 0.125:-8>, u8_output} : tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>
  %c = nunc.quantized_linear %q, %qw bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<i8:f32, 0.25:-10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<i8:f32, 0.125:-8>, u8_output} : tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>
  %q1 = nunc.quantize %y {quantization = !quant.uniform<u8:f32, 0.125:10>} : tensor<4x3xf32> -> tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>
  %f1 = nunc.fake_quantize %y {quantization = !quant.uniform<i8:f32, 0.125:-118>} : tensor<4x3xf32> -> tensor<4x3xf32>
  %d = nunc.quantized_linear %q1, %qw bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<i8:f32, 0.25:-10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<i8:f32, 0.125:-8>, u8_output} : tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>
  %q2 = nunc.quantize %z {quantization = !quant.uniform<u8:f32, 0.125:10>} : tensor<4x3xf32> -> tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>
  %e = nunc.quantized_linear %q2, %qw bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<i8:f32, 0.25:-10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<i8:f32, 0.125:-8>, u8_output} : tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>
  return %a, %c, %d, %f1, %e : tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>, tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>, tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>, tensor<4x3xf32>, tensor<4x2x!quant.uniform<u8:f32, 0.25:100>>
}

// -----

// A QDQ model with s8 activations: a conv whose input pair has several
// readers (two convs, a conv and a fake_quantize of its s8 view, or a conv
// and an f32 Add reading the values of a pair folded into their producer)
// is a Conv onnxruntime runs in f32 (MLAS's im2col and sgemm: N = 30
// positions < K = 36 widens the block to 512), and so is one writing such
// a pair (the producer of the last); one whose pairs have one reader a
// QLinearConv there: one_step_requantization. Not in a QLinear-operator
// model, nor with u8 activations.
// CHECK-LABEL: func.func @qdq_s8_f32_convs(
// CHECK: %[[V:.*]] = nunc.quantized_conv %arg3, {{.*}}f32_product_k_block = 512 : i64
// CHECK: nunc.quantized_conv %arg0, {{.*}}f32_product_k_block = 512 : i64
// CHECK: nunc.quantized_conv %arg0, {{.*}}f32_product_k_block = 512 : i64
// CHECK: nunc.quantized_conv %arg1, {{.*}}f32_product_k_block = 512 : i64
// CHECK: nunc.quantized_conv %[[V]], {{.*}}f32_product_k_block = 512 : i64
// CHECK: %[[V2:.*]] = nunc.quantized_conv %arg5, {{.*}}one_step_requantization
// CHECK: %[[MP:.*]] = nunc.max_pool %[[V2]]
// CHECK: nunc.quantized_conv %[[MP]], {{.*}}f32_product_k_block = 512 : i64
// CHECK: nunc.quantized_conv %arg6, {{.*}}f32_product_k_block = 512 : i64
// CHECK-NOT: f32_product_k_block
// CHECK: nunc.quantized_conv %arg2, {{.*}}one_step_requantization
// CHECK-NOT: f32_product_k_block
// CHECK: return
func.func @qdq_s8_f32_convs(%x: tensor<1x4x5x6xf32>, %y: tensor<1x4x5x6xf32>, %z: tensor<1x4x5x6xf32>, %p: tensor<1x4x5x6xf32>, %r: tensor<1x4x5x6xf32>, %p2: tensor<1x4x5x6xf32>, %u: tensor<1x4x5x6xf32>) -> (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) attributes {nunc.signed_activation_codes} {
  %w = nunc.constant dense<3> : tensor<4x4x3x3xi8>
  %qw = quant.scast %w : tensor<4x4x3x3xi8> to tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>>
  %v = nunc.quantized_conv %p, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0234375:128>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %a = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %b = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %c = nunc.quantized_conv %y, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %f = nunc.fake_quantize %y {quantization = !quant.uniform<i8:f32, 0.0234375>} : tensor<1x4x5x6xf32> -> tensor<1x4x5x6xf32>
  %e = nunc.quantized_conv %v, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %s = nunc.add %v, %r : (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32>
  // A max pool of a pair's values, read by a conv and an f32 Add; an
  // operand a conv and an elementwise chain's fake_quantize step read.
  %v2 = nunc.quantized_conv %p2, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0234375:128>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %mp = nunc.max_pool %v2 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32> -> tensor<1x4x5x6xf32>
  %g = nunc.quantized_conv %mp, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %h = nunc.add %mp, %r : (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32>
  %c2 = nunc.quantized_conv %u, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %k = nunc.elementwise_chain %u, %r {steps = [{args = array<i64: 0>, grid = !quant.uniform<u8:f32, 0.0234375:128>, op = "fake_quantize"}, {args = array<i64: 1, 2>, op = "add"}]} : (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) -> tensor<1x4x5x6xf32>
  %d = nunc.quantized_conv %z, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  return %a, %b, %c, %f, %e, %s, %g, %h, %c2, %k, %d : tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>
}

// CHECK-LABEL: func.func @qoperator_s8_convs(
// CHECK-NOT: f32_product_k_block
// CHECK: return
func.func @qoperator_s8_convs(%x: tensor<1x4x5x6xf32>) -> (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) attributes {nunc.qlinear_operators, nunc.signed_activation_codes} {
  %w = nunc.constant dense<3> : tensor<4x4x3x3xi8>
  %qw = quant.scast %w : tensor<4x4x3x3xi8> to tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>>
  %a = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %b = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  return %a, %b : tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>
}

// CHECK-LABEL: func.func @u8_convs(
// CHECK-NOT: f32_product_k_block
// CHECK: return
func.func @u8_convs(%x: tensor<1x4x5x6xf32>) -> (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) {
  %w = nunc.constant dense<3> : tensor<4x4x3x3xi8>
  %qw = quant.scast %w : tensor<4x4x3x3xi8> to tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>>
  %a = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %b = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  return %a, %b : tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>
}

// -----

// An operand of the Add's own shape that is a constant holding a grid's
// codes (a QDQ model's folded position embeddings) adds as codes too.
// CHECK-LABEL: func.func @codes_constant_of_the_same_shape(
// CHECK: nunc.add {{.*}}rhs_quantization = !quant.uniform<u8:f32, 2.500000e-01:128>
func.func @codes_constant_of_the_same_shape(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %c = nunc.constant dense<[[-0.25, 0.75, 1.0]]> : tensor<1x3xf32>
  %a = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<1x3xf32> -> tensor<1x3xf32>
  %s = nunc.add %a, %c {nunc.rhs_codes_grid = !quant.uniform<u8:f32, 0.25:128>, output_quantization = !quant.uniform<u8:f32, 0.25:90>} : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  return %s : tensor<1x3xf32>
}

// -----

// A QDQ model's Mul between pairs (an unfused LayerNorm's scale, a
// constant holding its grid's codes that it broadcasts): its codes as
// onnxruntime's QLinearMul computes them; the pair after its lhs folds in.
// Not: a broadcast operand without a codes grid, or one of the other
// signedness. ELEM: marked with only-elementwise too.
// CHECK-LABEL: func.func @mul_codes(
// CHECK: %[[M:.*]] = nunc.mul %arg0, %{{.*}} {lhs_quantization = !quant.uniform<u8:f32, 3.000000e-02:120>, nunc.rhs_codes_grid = !quant.uniform<u8:f32, 1.000000e-02>, output_quantization = !quant.uniform<u8:f32, 2.000000e-02:120>, rhs_quantization = !quant.uniform<u8:f32, 1.000000e-02>}
// CHECK: %[[N:.*]] = nunc.mul %{{.*}}, %{{.*}} {output_quantization
// CHECK-NOT: lhs_quantization
// CHECK: %[[S:.*]] = nunc.mul %{{.*}}, %{{.*}} {nunc.rhs_codes_grid = !quant.uniform<i8:f32, 1.000000e-02>, output_quantization
// CHECK-NOT: lhs_quantization
// CHECK: return
// ADDS-LABEL: func.func @mul_codes(
// ADDS: nunc.mul %arg0, {{.*}}lhs_quantization
func.func @mul_codes(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %g = nunc.constant dense<0.5> : tensor<8xf32>
  %h = nunc.constant dense<0.5> : tensor<8xf32>
  %s = nunc.constant dense<0.5> : tensor<8xf32>
  %q = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03:120>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %a = nunc.mul %q, %g {nunc.rhs_codes_grid = !quant.uniform<u8:f32, 0.01>, output_quantization = !quant.uniform<u8:f32, 0.02:120>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %r = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03:120>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %b = nunc.mul %r, %h {output_quantization = !quant.uniform<u8:f32, 0.02:120>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %t = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.03:120>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %c = nunc.mul %t, %s {nunc.rhs_codes_grid = !quant.uniform<i8:f32, 0.01>, output_quantization = !quant.uniform<u8:f32, 0.02:120>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %a, %b, %c : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// A Mul by a one-value constant stays a step of an elementwise chain,
// unless the constant dequantized past the float range (a symmetric grid's
// code -127 of the attention mask's lowest float, in a QLinear-operator
// model with s8 activations): onnxruntime's QLinearMul multiplies the
// codes, so an unmasked position's 0 x code is 0 where the f32 0 x -inf
// is NaN.
// CHECK-LABEL: func.func @mul_codes_of_one_value(
// CHECK: nunc.mul %{{.*}}, %{{.*}} {lhs_quantization = !quant.uniform<u8:f32, 1.000000e+00:128>, nunc.rhs_codes_grid = !quant.uniform<i8:f32, 2.6793887059314005E+36>, output_quantization = !quant.uniform<u8:f32, 1.000000e+00:128>, rhs_quantization = !quant.uniform<u8:f32, 2.6793887059314005E+36:128>, signed_codes}
// CHECK: nunc.mul %{{.*}}, %{{.*}} {nunc.rhs_codes_grid = !quant.uniform<i8:f32, 1.000000e-02>, output_quantization
// CHECK-NOT: lhs_quantization
// CHECK: return
func.func @mul_codes_of_one_value(%x: tensor<1x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>) attributes {nunc.qlinear_operators, nunc.signed_activation_codes} {
  %inf = nunc.constant dense<0xFF800000> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %q = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 1.0:128>} : tensor<1x8xf32> -> tensor<1x8xf32>
  %a = nunc.mul %q, %inf {nunc.rhs_codes_grid = !quant.uniform<i8:f32, 2.6793887059314005E+36>, output_quantization = !quant.uniform<u8:f32, 1.0:128>} : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %r = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 1.0:128>} : tensor<1x8xf32> -> tensor<1x8xf32>
  %b = nunc.mul %r, %half {nunc.rhs_codes_grid = !quant.uniform<i8:f32, 0.01>, output_quantization = !quant.uniform<u8:f32, 1.0:128>} : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  return %a, %b : tensor<1x8xf32>, tensor<1x8xf32>
}

// -----

// 4-bit weights (their codes' constant marked nunc.four_bit_codes): there
// is no 4-bit QLinearMatMul or QLinearConv in onnxruntime, which runs them
// as f32 MatMuls and Convs on the dequantized values whatever their pairs'
// readers, in u8 models too: f32_product_k_block; a u8 model's bias Add
// stays a QLinearAdd of the product's code (one_step_requantization as
// well), an s8 model's single-reader pair no qlinear_product. The same
// with 8-bit codes: as before.
// CHECK-LABEL: func.func @four_bit_gemms_u8(
// CHECK: nunc.quantized_linear {{.*}}f32_product_k_block = 1024 : i64, one_step_requantization
// CHECK: nunc.quantized_linear {{.*}}one_step_requantization
// CHECK-NOT: f32_product_k_block
// CHECK-LABEL: func.func @four_bit_gemm_s8(
// CHECK: nunc.quantized_linear {{.*}}f32_product_k_block = 1024 : i64
// CHECK-NOT: qlinear_product
// CHECK-LABEL: func.func @four_bit_convs_u8(
// CHECK: nunc.quantized_conv {{.*}}f32_product_k_block = 512 : i64
// CHECK: nunc.quantized_conv {{.*}}one_step_requantization
// CHECK-NOT: f32_product_k_block
// CHECK: return
func.func @four_bit_gemms_u8(%x: tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %w4 = nunc.constant {nunc.four_bit_codes} dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw4 = quant.scast %w4 : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 7]]> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %b = nunc.constant dense<[-0.5, 0.25]> : tensor<2xf32>
  %q = nunc.quantize %x {quantization = !quant.uniform<u8:f32, 0.125:10>} : tensor<4x3xf32> -> tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>
  %a = nunc.quantized_linear %q, %qw4 bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 0.25:10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  %c = nunc.quantized_linear %q, %qw bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 0.25:10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return %a, %c : tensor<4x2xf32>, tensor<4x2xf32>
}
func.func @four_bit_gemm_s8(%x: tensor<4x3xf32>) -> tensor<4x2xf32> attributes {nunc.signed_activation_codes} {
  %w4 = nunc.constant {nunc.four_bit_codes} dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw4 = quant.scast %w4 : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %b = nunc.constant dense<[-0.5, 0.25]> : tensor<2xf32>
  %q = nunc.quantize %x {quantization = !quant.uniform<u8:f32, 0.125:10>} : tensor<4x3xf32> -> tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>
  %a = nunc.quantized_linear %q, %qw4 bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<i8:f32, 0.25:-10>, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<i8:f32, 0.125:-8>} : tensor<4x3x!quant.uniform<u8:f32, 0.125:10>>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return %a : tensor<4x2xf32>
}
func.func @four_bit_convs_u8(%x: tensor<1x4x5x6xf32>) -> (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) {
  %w4 = nunc.constant {nunc.four_bit_codes} dense<3> : tensor<4x4x3x3xi8>
  %qw4 = quant.scast %w4 : tensor<4x4x3x3xi8> to tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>>
  %w = nunc.constant dense<5> : tensor<4x4x3x3xi8>
  %qw = quant.scast %w : tensor<4x4x3x3xi8> to tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>>
  %a = nunc.quantized_conv %x, %qw4 {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  %b = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  return %a, %b : tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>
}
