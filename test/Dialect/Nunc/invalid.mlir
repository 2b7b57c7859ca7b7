// RUN: nunc-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Broadcasting and element types
//===----------------------------------------------------------------------===//

func.func @add_incompatible_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{shapes [2, 3] [4] cannot be broadcast together}}
  %0 = nunc.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @where_incompatible_broadcast(%c: tensor<2x1xi1>, %x: tensor<3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{shapes [2, 1] [3] [4] cannot be broadcast together}}
  %0 = nunc.where %c, %x, %y : (tensor<2x1xi1>, tensor<3xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @add_wrong_result_shape(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'nunc.add' op result #0 has type 'tensor<2x4xf32>' but the operands give 'tensor<2x3xf32>'}}
  %0 = nunc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @sub_wrong_result_rank(%a: tensor<?x3xf32>, %b: tensor<3xf32>) {
  // A dynamic dim is compatible with any size, but the rank must agree.
  // expected-error @+1 {{'nunc.sub' op result #0 has type 'tensor<1x?x3xf32>' but the operands give 'tensor<?x3xf32>'}}
  %0 = nunc.sub %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<1x?x3xf32>
  return
}

// -----

func.func @equal_result_not_i1(%a: tensor<3xf32>) {
  // expected-error @+1 {{'nunc.equal' op result #0 has type 'tensor<3xf32>' but the operands give 'tensor<3xi1>'}}
  %0 = nunc.equal %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @add_element_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf16>) {
  // expected-error @+1 {{operands have different element types: 'float' and 'float16'}}
  %0 = nunc.add %a, %b : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @where_element_type_mismatch(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{operands have different element types: 'float' and 'int32'}}
  %0 = nunc.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_result_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nunc.cast' op result #0 has type 'tensor<2x3xi64>' but the operands give 'tensor<2x3xi32>'}}
  %0 = nunc.cast %x {to = i32} : tensor<2x3xf32> -> tensor<2x3xi64>
  return
}

// -----

func.func @relu_result_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nunc.relu' op result #0 has type 'tensor<3x2xf32>' but the operands give 'tensor<2x3xf32>'}}
  %0 = nunc.relu %x : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

// ONNX Sqrt is defined on floating-point tensors only; the evaluator cannot
// run it on integers, so the verifier must not accept it.
func.func @sqrt_of_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = nunc.sqrt %x : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @clip_bound_not_scalar(%x: tensor<4xf32>, %lo: tensor<2xf32>) {
  // expected-error @+1 {{min and max must be scalars, got shape [2]}}
  %0 = nunc.clip %x min %lo : tensor<2xf32> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @clip_max_not_scalar(%x: tensor<4xf32>, %hi: tensor<1x2xf32>) {
  // expected-error @+1 {{min and max must be scalars, got shape [1, 2]}}
  %0 = nunc.clip %x max %hi : tensor<1x2xf32> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @clip_bound_type(%x: tensor<4xf32>, %lo: tensor<f16>) {
  // expected-error @+1 {{bound type 'float16' differs from input type 'float'}}
  %0 = nunc.clip %x min %lo : tensor<f16> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @gelu_bad_approximate(%x: tensor<4xf32>) {
  // expected-error @+1 {{approximate must be "none" or "tanh", got "fast"}}
  %0 = nunc.gelu %x {approximate = "fast"} : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{'nunc.constant' op result #0 has type 'tensor<3xi64>' but the operands give 'tensor<2xi64>'}}
  %0 = "nunc.constant"() <{value = dense<1> : tensor<2xi64>}> : () -> tensor<3xi64>
  return
}

// -----

func.func @constant_of_shape_two_values(%s: tensor<2xi64>) {
  // expected-error @+1 {{value must hold exactly one element, got 2}}
  %0 = nunc.constant_of_shape %s {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xi64> -> tensor<*xf32>
  return
}

// -----

func.func @constant_of_shape_negative_dim() {
  %s = nunc.constant dense<[2, -3]> : tensor<2xi64>
  // expected-error @+1 {{shape [2, -3] has a negative dim}}
  %0 = nunc.constant_of_shape %s {value = dense<1.0> : tensor<1xf32>} : tensor<2xi64> -> tensor<*xf32>
  return
}

// -----

func.func @constant_of_shape_2d_shape(%s: tensor<1x2xi64>) {
  // expected-error @+1 {{shape must be 1-D, got rank 2}}
  %0 = nunc.constant_of_shape %s {value = dense<1.0> : tensor<1xf32>} : tensor<1x2xi64> -> tensor<*xf32>
  return
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_inner_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{MatMul inner dims differ: [2, 3] x [4, 5]}}
  %0 = nunc.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_vector_inner_mismatch(%a: tensor<3xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error @+1 {{MatMul inner dims differ: [3] x [2, 4, 5]}}
  %0 = nunc.matmul %a, %b : (tensor<3xf32>, tensor<2x4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x3x4xf32>, %b: tensor<5x4x6xf32>) {
  // expected-error @+1 {{shapes [2] [5] cannot be broadcast together}}
  %0 = nunc.matmul %a, %b : (tensor<2x3x4xf32>, tensor<5x4x6xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{MatMul operands must have rank >= 1}}
  %0 = nunc.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @matmul_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'nunc.matmul' op result #0 has type 'tensor<2x4x1xf32>' but the operands give 'tensor<2x4xf32>'}}
  %0 = nunc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4x1xf32>
  return
}

// -----

func.func @matmul_element_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) {
  // expected-error @+1 {{operands have different element types: 'float' and 'double'}}
  %0 = nunc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_a_not_2d(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{A must be 2-D, got rank 3}}
  %0 = nunc.gemm %a, %b : tensor<2x3x4xf32>, tensor<4x5xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @gemm_b_not_2d(%a: tensor<3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{B must be 2-D, got rank 1}}
  %0 = nunc.gemm %a, %b : tensor<3x4xf32>, tensor<4xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @gemm_inner_mismatch(%a: tensor<3x4xf32>, %b: tensor<5x4xf32>) {
  // transB is not set: B is [K=5, N=4] against A's K=4.
  // expected-error @+1 {{inner dims differ: A [3, 4] B [5, 4] transA 0 transB 0}}
  %0 = nunc.gemm %a, %b : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @gemm_inner_mismatch_trans_a(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{inner dims differ: A [3, 4] B [4, 5] transA 1 transB 0}}
  %0 = nunc.gemm %a, %b {transA = 1 : i64} : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @gemm_c_too_big(%a: tensor<3x4xf32>, %b: tensor<4x1xf32>, %c: tensor<3x5xf32>) {
  // C broadcasts to [M, N], never the other way.
  // expected-error @+1 {{C of shape [3, 5] does not broadcast to [3, 1]}}
  %0 = nunc.gemm %a, %b, %c : tensor<3x5xf32> : tensor<3x4xf32>, tensor<4x1xf32> -> tensor<*xf32>
  return
}

// -----

func.func @gemm_c_rank_3(%a: tensor<3x4xf32>, %b: tensor<4x1xf32>, %c: tensor<1x3x1xf32>) {
  // expected-error @+1 {{C must have rank <= 2, got 3}}
  %0 = nunc.gemm %a, %b, %c : tensor<1x3x1xf32> : tensor<3x4xf32>, tensor<4x1xf32> -> tensor<*xf32>
  return
}

// -----

func.func @matmul_integer_zero_point_type(%a: tensor<3x4xi8>, %b: tensor<4x2xui8>, %z: tensor<ui8>) {
  // expected-error @+1 {{a_zero_point type differs from A}}
  %0 = nunc.matmul_integer %a, %b a_zero_point %z : tensor<ui8> : tensor<3x4xi8>, tensor<4x2xui8> -> tensor<*xi32>
  return
}

// -----

func.func @matmul_integer_zero_point_size(%a: tensor<3x4xi8>, %b: tensor<4x2xui8>, %z: tensor<3xui8>) {
  // expected-error @+1 {{b_zero_point has 3 entries but axis -1 has size 2}}
  %0 = nunc.matmul_integer %a, %b b_zero_point %z : tensor<3xui8> : tensor<3x4xi8>, tensor<4x2xui8> -> tensor<*xi32>
  return
}

// -----

// ConvInteger's w_zero_point: one, or one per output channel.
func.func @conv_integer_weight_zero_point_size(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xui8>, %z: tensor<2xui8>) {
  // expected-error @+1 {{w_zero_point has 2 entries but axis 0 has size 3}}
  %0 = nunc.conv_integer %x, %w weight_zero_point %z : tensor<2xui8> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x5x5xui8>, tensor<3x2x3x3xui8> -> tensor<*xi32>
  return
}

// -----

func.func @qlinear_conv_zero_point_type(%x: tensor<1x2x5x5xui8>, %s: tensor<f32>, %z8: tensor<i8>, %w: tensor<4x2x3x3xi8>) {
  // expected-error @+1 {{x_zero_point type 'int8' differs from the input type 'uint8'}}
  %0 = nunc.qlinear_conv %x, %s, %z8, %w, %s, %z8, %s, %z8 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<i8>, tensor<4x2x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<*xi8>
  return
}

// -----

func.func @qlinear_conv_input_scale(%x: tensor<1x2x5x5xui8>, %s: tensor<f32>, %s2: tensor<2xf32>, %z: tensor<ui8>, %w: tensor<4x2x3x3xi8>, %z8: tensor<i8>) {
  // expected-error @+1 {{x_scale must be a scalar}}
  %0 = nunc.qlinear_conv %x, %s2, %z, %w, %s, %z8, %s, %z {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<2xf32>, tensor<ui8>, tensor<4x2x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<*xui8>
  return
}

// -----

func.func @qlinear_conv_weight_scales(%x: tensor<1x2x5x5xui8>, %s: tensor<f32>, %s3: tensor<3xf32>, %z: tensor<ui8>, %w: tensor<4x2x3x3xi8>, %z8: tensor<i8>) {
  // expected-error @+1 {{w_scale has 3 entries but axis 0 has size 4}}
  %0 = nunc.qlinear_conv %x, %s, %z, %w, %s3, %z8, %s, %z {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<4x2x3x3xi8>, tensor<3xf32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<*xui8>
  return
}

// -----

func.func @qlinear_conv_bias(%x: tensor<1x2x5x5xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<4x2x3x3xi8>, %z8: tensor<i8>, %b: tensor<3xi32>) {
  // expected-error @+1 {{bias must be 1-D with one entry per output channel}}
  %0 = nunc.qlinear_conv %x, %s, %z, %w, %s, %z8, %s, %z, %b {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<4x2x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>, tensor<3xi32>) -> tensor<*xui8>
  return
}

// -----

func.func @qlinear_matmul_zero_point_type(%a: tensor<3x4xi8>, %s: tensor<f32>, %z: tensor<ui8>, %b: tensor<4x2xui8>) {
  // expected-error @+1 {{zero points must have the element types of A and B}}
  %0 = nunc.qlinear_matmul %a, %s, %z, %b, %s, %z, %s, %z : (tensor<3x4xi8>, tensor<f32>, tensor<ui8>, tensor<4x2xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<*xui8>
  return
}

//===----------------------------------------------------------------------===//
// Reductions and normalization
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axis_out_of_range(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[1, 2]> : tensor<2xi64>
  // expected-error @+1 {{reduction axes 2 is out of range for rank 2}}
  %0 = nunc.reduce_sum %a axes %c : tensor<2xi64> : tensor<2x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @reduce_axis_twice(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[1, -1]> : tensor<2xi64>
  // expected-error @+1 {{reduction axes contains axis 1 twice}}
  %0 = nunc.reduce_mean %a axes %c : tensor<2xi64> : tensor<2x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @reduce_wrong_keepdims_result(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<1> : tensor<1xi64>
  // expected-error @+1 {{'nunc.reduce_sum' op result #0 has type 'tensor<2xf32>' but the operands give 'tensor<2x1xf32>'}}
  %0 = nunc.reduce_sum %a axes %c : tensor<1xi64> : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

// ONNX Softmax: axis must lie in [-r, r-1].
func.func @softmax_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = nunc.softmax %a {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @softmax_negative_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %0 = nunc.softmax %a {axis = -3 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_axis_out_of_range(%a: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0:3 = nunc.layer_norm %a, %s {axis = 2 : i64} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>, tensor<*xf32>, tensor<*xf32>
  return
}

// -----

func.func @layer_norm_scale_mismatch(%x: tensor<2x4xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{scale/bias of shape [3] does not broadcast to the normalized shape [4]}}
  %0:3 = nunc.layer_norm %x, %s : tensor<2x4xf32>, tensor<3xf32> -> tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  return
}

// -----

func.func @layer_norm_scale_rank_too_big(%x: tensor<2x4xf32>, %s: tensor<2x4xf32>) {
  // expected-error @+1 {{scale/bias of shape [2, 4] does not broadcast to the normalized shape [4]}}
  %0:3 = nunc.layer_norm %x, %s : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  return
}

// -----

// The scale broadcasts to the normalized shape one way only: [8] cannot
// become [1] (the evaluator rejects this op).
func.func @layer_norm_scale_larger_than_normalized(%x: tensor<2x1xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{scale/bias of shape [8] does not broadcast to the normalized shape [1]}}
  %0:3 = nunc.layer_norm %x, %s : tensor<2x1xf32>, tensor<8xf32> -> tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  return
}

// -----

func.func @layer_norm_stats_type(%x: tensor<2x4xf16>, %s: tensor<4xf16>) {
  // stash_type = 1 (the default) keeps the statistics in f32.
  // expected-error @+1 {{'nunc.layer_norm' op result #1 has type 'tensor<2x1xf16>' but the operands give 'tensor<2x1xf32>'}}
  %0:3 = nunc.layer_norm %x, %s : tensor<2x4xf16>, tensor<4xf16> -> tensor<2x4xf16>, tensor<2x1xf16>, tensor<2x1xf16>
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<2x3x5x5xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{parameter of size 4 does not match 3 channels}}
  %0 = nunc.batch_norm %x, %p, %p, %p, %p : (tensor<2x3x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x5x5xf32>
  return
}

// -----

func.func @batch_norm_rank_1(%x: tensor<3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{input must have rank >= 2, got 1}}
  %0 = nunc.batch_norm %x, %p, %p, %p, %p : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @batch_norm_param_rank(%x: tensor<2x3xf32>, %p: tensor<3xf32>, %q: tensor<1x3xf32>) {
  // expected-error @+1 {{scale, bias, mean and var must be 1-D}}
  %0 = nunc.batch_norm %x, %p, %p, %p, %q : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Data movement and shapes
//===----------------------------------------------------------------------===//

// -----

func.func @gather_axis_out_of_range(%a: tensor<2x3xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{Gather axis -3 is out of range for rank 2}}
  %0 = nunc.gather %a, %i {axis = -3 : i64} : (tensor<2x3xf32>, tensor<i64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_constant_index_out_of_range(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[0, 3]> : tensor<2xi64>
  // expected-error @+1 {{index 3 is out of range for axis 1 of size 3}}
  %0 = nunc.gather %a, %c {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_negative_constant_index_out_of_range(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<-3> : tensor<i32>
  // expected-error @+1 {{index -3 is out of range for axis 0 of size 2}}
  %0 = nunc.gather %a, %c : (tensor<2x3xf32>, tensor<i32>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_wrong_result(%x: tensor<2x3xf32>, %i: tensor<i64>) {
  // expected-error @+1 {{'nunc.gather' op result #0 has type 'tensor<2x3xf32>' but the operands give 'tensor<3xf32>'}}
  %0 = nunc.gather %x, %i : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_two_minus_one(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @+1 {{Reshape target [-1, -1] has more than one -1}}
  %0 = nunc.reshape %a, %c : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

// The target alone is invalid, whatever the (here unknown) input shape is.
func.func @reshape_unranked_two_minus_one(%u: tensor<*xf32>) {
  %c = nunc.constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @+1 {{Reshape target [-1, -1] has more than one -1}}
  %0 = nunc.reshape %u, %c : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_element_count(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[4, 2]> : tensor<2xi64>
  // expected-error @+1 {{cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  %0 = nunc.reshape %a, %c : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_minus_one_does_not_divide(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[4, -1]> : tensor<2xi64>
  // expected-error @+1 {{cannot reshape [2, 3] to [4, -1]}}
  %0 = nunc.reshape %a, %c : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_zero_copies_missing_dim(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[0, 0, 0]> : tensor<3xi64>
  // expected-error @+1 {{Reshape target [0, 0, 0] copies dim 2 of a rank-2 input}}
  %0 = nunc.reshape %a, %c : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_negative_dim(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[-2, 3]> : tensor<2xi64>
  // expected-error @+1 {{Reshape target [-2, 3] has a negative dim other than -1}}
  %0 = nunc.reshape %a, %c : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_allowzero_with_minus_one(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[0, -1]> : tensor<2xi64>
  // expected-error @+1 {{Reshape target [0, -1] has both 0 and -1 while allowzero is set}}
  %0 = nunc.reshape %a, %c {allowzero = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_2d_shape(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[[2, 3]]> : tensor<1x2xi64>
  // expected-error @+1 {{shape must be 1-D, got rank 2}}
  %0 = nunc.reshape %a, %c : (tensor<2x3xf32>, tensor<1x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reshape_wrong_result(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[3, -1]> : tensor<2xi64>
  // expected-error @+1 {{'nunc.reshape' op result #0 has type 'tensor<2x3xf32>' but the operands give 'tensor<3x2xf32>'}}
  %0 = nunc.reshape %a, %c : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @flatten_axis_out_of_range(%a: tensor<2x3xf32>) {
  // axis = rank is valid for Flatten, rank + 1 is not.
  // expected-error @+1 {{Flatten axis 3 is out of range for rank 2}}
  %0 = nunc.flatten %a {axis = 3 : i64} : tensor<2x3xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @flatten_negative_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{Flatten axis -3 is out of range for rank 2}}
  %0 = nunc.flatten %a {axis = -3 : i64} : tensor<2x3xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @transpose_not_a_permutation(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{perm [0, 0] is not a permutation}}
  %0 = nunc.transpose %a {perm = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @transpose_perm_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{perm [0, 2] is not a permutation}}
  %0 = nunc.transpose %a {perm = array<i64: 0, 2>} : tensor<2x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @transpose_perm_length(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{perm [1, 0, 2] does not have rank 2 entries}}
  %0 = nunc.transpose %a {perm = array<i64: 1, 0, 2>} : tensor<2x3xf32> -> tensor<*xf32>
  return
}

// -----

// A perm of n entries must be a permutation of [0, n) whatever the input's
// (here unknown) rank is.
func.func @transpose_unranked_not_a_permutation(%a: tensor<*xf32>) {
  // expected-error @+1 {{perm [1, 1] is not a permutation}}
  %0 = nunc.transpose %a {perm = array<i64: 1, 1>} : tensor<*xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @unsqueeze_axis_out_of_range(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[3]> : tensor<1xi64>
  // Axes index the rank-3 output.
  // expected-error @+1 {{Unsqueeze axes 3 is out of range for rank 3}}
  %0 = nunc.unsqueeze %a, %c : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @unsqueeze_axis_twice(%a: tensor<2x3xf32>) {
  %c = nunc.constant dense<[1, -3]> : tensor<2xi64>
  // expected-error @+1 {{Unsqueeze axes contains axis 1 twice}}
  %0 = nunc.unsqueeze %a, %c : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @squeeze_non_one_dim(%a: tensor<2x1xf32>) {
  %c = nunc.constant dense<[0]> : tensor<1xi64>
  // expected-error @+1 {{cannot squeeze dim 0 of size 2 in [2, 1]}}
  %0 = nunc.squeeze %a axes %c : tensor<1xi64> : tensor<2x1xf32> -> tensor<*xf32>
  return
}

// -----

func.func @squeeze_axis_out_of_range(%a: tensor<2x1xf32>) {
  %c = nunc.constant dense<[2]> : tensor<1xi64>
  // expected-error @+1 {{Squeeze axes 2 is out of range for rank 2}}
  %0 = nunc.squeeze %a axes %c : tensor<1xi64> : tensor<2x1xf32> -> tensor<*xf32>
  return
}

// -----

func.func @squeeze_wrong_result(%a: tensor<1x3x1xf32>) {
  // expected-error @+1 {{'nunc.squeeze' op result #0 has type 'tensor<1x3xf32>' but the operands give 'tensor<3xf32>'}}
  %0 = nunc.squeeze %a : tensor<1x3x1xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{Concat axis 2 is out of range for rank 2}}
  %0 = nunc.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_scalars(%x: tensor<f32>) {
  // expected-error @+1 {{Concat axis 0 is out of range for rank 0}}
  %0 = nunc.concat %x, %x {axis = 0 : i64} : (tensor<f32>, tensor<f32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{Concat inputs have different ranks: [2, 3] and [3]}}
  %0 = nunc.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_dim_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{Concat inputs [2, 3] and [2, 4] differ in dim 1}}
  %0 = nunc.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_element_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // expected-error @+1 {{operands have different element types: 'float' and 'int32'}}
  %0 = nunc.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+1 {{needs at least one input}}
  %0 = nunc.concat {axis = 0 : i64} : () -> tensor<*xf32>
  return
}

// -----

func.func @slice_step_zero(%a: tensor<2x3xf32>) {
  %s = nunc.constant dense<0> : tensor<1xi64>
  %e = nunc.constant dense<2> : tensor<1xi64>
  %st = nunc.constant dense<0> : tensor<1xi64>
  // expected-error @+1 {{Slice step must not be 0}}
  %0 = nunc.slice %a[%s : tensor<1xi64>, %e : tensor<1xi64> steps %st : tensor<1xi64>] : tensor<2x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @slice_unranked_step_zero(%u: tensor<*xf32>) {
  %s = nunc.constant dense<0> : tensor<1xi64>
  // expected-error @+1 {{Slice step must not be 0}}
  %0 = nunc.slice %u[%s : tensor<1xi64>, %s : tensor<1xi64> steps %s : tensor<1xi64>] : tensor<*xf32> -> tensor<*xf32>
  return
}

// -----

func.func @slice_length_mismatch(%a: tensor<2x3xf32>) {
  %s = nunc.constant dense<[0, 0]> : tensor<2xi64>
  %e = nunc.constant dense<2> : tensor<1xi64>
  // expected-error @+1 {{Slice starts, ends, axes and steps differ in length}}
  %0 = nunc.slice %a[%s : tensor<2xi64>, %e : tensor<1xi64>] : tensor<2x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @slice_axis_out_of_range(%a: tensor<2x3xf32>) {
  %s = nunc.constant dense<0> : tensor<1xi64>
  %e = nunc.constant dense<2> : tensor<1xi64>
  %ax = nunc.constant dense<-3> : tensor<1xi64>
  // expected-error @+1 {{Slice axes -3 is out of range for rank 2}}
  %0 = nunc.slice %a[%s : tensor<1xi64>, %e : tensor<1xi64> axes %ax : tensor<1xi64>] : tensor<2x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @slice_wrong_result(%a: tensor<4x3xf32>) {
  %s = nunc.constant dense<1> : tensor<1xi64>
  %e = nunc.constant dense<-1> : tensor<1xi64>
  // Rows 1 and 2.
  // expected-error @+1 {{'nunc.slice' op result #0 has type 'tensor<3x3xf32>' but the operands give 'tensor<2x3xf32>'}}
  %0 = nunc.slice %a[%s : tensor<1xi64>, %e : tensor<1xi64>] : tensor<4x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @expand_incompatible(%x: tensor<3x2xf32>) {
  %c = nunc.constant dense<[4]> : tensor<1xi64>
  // expected-error @+1 {{shapes [3, 2] [4] cannot be broadcast together}}
  %0 = nunc.expand %x, %c : (tensor<3x2xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @expand_negative_dim(%x: tensor<3x2xf32>) {
  %c = nunc.constant dense<[-1, 2]> : tensor<2xi64>
  // expected-error @+1 {{shape [-1, 2] has a negative dim}}
  %0 = nunc.expand %x, %c : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @expand_unranked_negative_dim(%u: tensor<*xf32>) {
  %c = nunc.constant dense<[-1, 2]> : tensor<2xi64>
  // expected-error @+1 {{shape [-1, 2] has a negative dim}}
  %0 = nunc.expand %u, %c : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @shape_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nunc.shape' op result #0 has type 'tensor<3xi64>' but the operands give 'tensor<2xi64>'}}
  %0 = nunc.shape %x : tensor<2x3xf32> -> tensor<3xi64>
  return
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// -----

func.func @conv_channel_mismatch(%x: tensor<1x5x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{input has 5 channels, weight expects 2 x 2 groups}}
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x5x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @conv_groups_do_not_divide(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{6 output channels do not divide into 4 groups}}
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @conv_group_zero(%x: tensor<1x2x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{group must be positive, got 0}}
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 0 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @conv_kernel_shape_mismatch(%x: tensor<1x2x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{kernel_shape [3, 2] differs from the weight's spatial dims [3, 3]}}
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @conv_bias_size(%x: tensor<1x2x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{bias must be 1-D with 6 entries}}
  %0 = nunc.conv %x, %w, %b : tensor<5xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @conv_rank_mismatch(%x: tensor<1x2x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{input rank 3 differs from weight rank 4}}
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x8xf32>, tensor<6x2x3x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x2x8x8xf32>, %w: tensor<6x2xf32>) {
  // expected-error @+1 {{weight must have rank >= 3, got 2}}
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<6x2xf32> -> tensor<*xf32>
  return
}

// -----

func.func @conv_unranked_weight(%x: tensor<1x2x8x8xf32>, %w: tensor<*xf32>) {
  // expected-error @+1 {{the weight's rank must be known}}
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<*xf32> -> tensor<*xf32>
  return
}

// -----

func.func @conv_element_type_mismatch(%x: tensor<1x2x8x8xf32>, %w: tensor<6x2x3x3xf16>) {
  // expected-error @+1 {{operands have different element types: 'float' and 'float16'}}
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<6x2x3x3xf16> -> tensor<*xf32>
  return
}

// -----

func.func @conv_window_too_large(%x: tensor<1x2x2x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{window of extent 3 does not fit the padded input of size 2}}
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x2x8xf32>, tensor<6x2x3x3xf32> -> tensor<*xf32>
  return
}

// -----

func.func @conv_wrong_result(%x: tensor<1x2x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{'nunc.conv' op result #0 has type 'tensor<1x6x8x8xf32>' but the operands give 'tensor<1x6x6x6xf32>'}}
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @max_pool_dilated_window_too_large(%x: tensor<1x2x4x4xf32>) {
  // Dilation 2 stretches the 3-wide kernel to 5.
  // expected-error @+1 {{window of extent 5 does not fit the padded input of size 4}}
  %0 = nunc.max_pool %x {dilations = array<i64: 2, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @average_pool_pads_length(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{window attributes do not match 2 spatial dims (kernel [3, 3], strides [1, 1], dilations [1, 1], pads [0, 0])}}
  %0 = nunc.average_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @average_pool_unknown_auto_pad(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{unknown auto_pad 'SAME'}}
  %0 = nunc.average_pool %x {auto_pad = "SAME", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @average_pool_zero_stride(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{kernel, strides and dilations must be positive}}
  %0 = nunc.average_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 0, 1>} : tensor<1x2x4x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @max_pool_negative_pad(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{pads must not be negative}}
  %0 = nunc.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, -1, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @max_pool_rank_2(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{expected an NCHW input of rank >= 3, got rank 2}}
  %0 = nunc.max_pool %x {dilations = array<i64: 1>, kernel_shape = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<2x4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @max_pool_rank_1(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected an NCHW input of rank >= 3, got rank 1}}
  %0 = nunc.max_pool %x {dilations = array<i64: 1>, kernel_shape = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<4xf32> -> tensor<*xf32>
  return
}

// -----

func.func @max_pool_rank_0(%x: tensor<f32>) {
  // expected-error @+1 {{expected an NCHW input of rank >= 3, got rank 0}}
  %0 = nunc.max_pool %x {dilations = array<i64: 1>, kernel_shape = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<f32> -> tensor<*xf32>
  return
}

// -----

func.func @average_pool_rank_0(%x: tensor<f32>) {
  // expected-error @+1 {{expected an NCHW input of rank >= 3, got rank 0}}
  %0 = nunc.average_pool %x {dilations = array<i64: 1>, kernel_shape = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<f32> -> tensor<*xf32>
  return
}

// -----

func.func @global_average_pool_rank_2(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{expected an NCHW input of rank >= 3, got rank 2}}
  %0 = nunc.global_average_pool %x : tensor<2x4xf32> -> tensor<*xf32>
  return
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

// -----

func.func @quantize_linear_32_bit_output(%x: tensor<2x3xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{output type must be a signed or unsigned 8- or 16-bit integer, got 'int32'}}
  %0 = nunc.quantize_linear %x, %s {output_element_type = i32} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi8>
  return
}

// -----

func.func @quantize_linear_float_output(%x: tensor<2x3xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{output type must be a signed or unsigned 8- or 16-bit integer, got 'float'}}
  %0 = nunc.quantize_linear %x, %s {output_element_type = f32} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi8>
  return
}

// -----

func.func @quantize_linear_4_bit_output(%x: tensor<2x3xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{output type must be a signed or unsigned 8- or 16-bit integer, got 'int4'}}
  %0 = nunc.quantize_linear %x, %s {output_element_type = i4} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi8>
  return
}

// -----

// 16-bit output is valid, but the declared result says 8 bits.
func.func @quantize_linear_attribute_result_mismatch(%x: tensor<2x3xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'nunc.quantize_linear' op result #0 has type 'tensor<2x3xi8>' but the operands give 'tensor<2x3xi16>'}}
  %0 = nunc.quantize_linear %x, %s {output_element_type = i16} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi8>
  return
}

// -----

func.func @quantize_linear_zero_point_type(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{zero point type 'int8' differs from the output type 'uint8'}}
  %0 = nunc.quantize_linear %x, %s, %z : tensor<i8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  return
}

// -----

func.func @quantize_linear_per_axis_size(%x: tensor<2x4xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{scale has 3 entries but axis 1 has size 4}}
  %0 = nunc.quantize_linear %x, %s {output_element_type = ui8} : tensor<2x4xf32>, tensor<3xf32> -> tensor<2x4xui8>
  return
}

// -----

func.func @quantize_linear_blocked_scale(%x: tensor<2x4xf32>, %s: tensor<2x4xf32>) {
  // expected-error @+1 {{scale must be a scalar or 1-D, got rank 2 (blocked quantization is not supported)}}
  %0 = nunc.quantize_linear %x, %s {output_element_type = ui8} : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xui8>
  return
}

// -----

func.func @quantize_linear_scale_type(%x: tensor<2x4xf32>, %s: tensor<f16>) {
  // expected-error @+1 {{scale type differs from the input type}}
  %0 = nunc.quantize_linear %x, %s {output_element_type = ui8} : tensor<2x4xf32>, tensor<f16> -> tensor<2x4xui8>
  return
}

// -----

func.func @quantize_linear_axis_out_of_range(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{quantization axis 2 is out of range for rank 2}}
  %0 = nunc.quantize_linear %x, %s {axis = 2 : i64, output_element_type = i8} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi8>
  return
}

// -----

func.func @dequantize_linear_zero_point_type(%x: tensor<2x4xi8>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+1 {{zero point type 'uint8' differs from the input type 'int8'}}
  %0 = nunc.dequantize_linear %x, %s, %z : tensor<ui8> : tensor<2x4xi8>, tensor<f32> -> tensor<2x4xf32>
  return
}

// -----

func.func @dequantize_linear_per_axis_size(%x: tensor<2x4xi8>, %s: tensor<2xf32>) {
  // expected-error @+1 {{scale has 2 entries but axis -1 has size 4}}
  %0 = nunc.dequantize_linear %x, %s {axis = -1 : i64} : tensor<2x4xi8>, tensor<2xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @dynamic_quantize_linear_scale_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nunc.dynamic_quantize_linear' op result #1 has type 'tensor<1xf32>' but the operands give 'tensor<f32>'}}
  %0:3 = nunc.dynamic_quantize_linear %x : tensor<2x3xf32> -> tensor<2x3xui8>, tensor<1xf32>, tensor<ui8>
  return
}

// -----

//===----------------------------------------------------------------------===//
// quantized_linear
//===----------------------------------------------------------------------===//

func.func @quantized_linear_float_weight(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{weight must hold !quant.uniform<i8:f32...> or !quant.uniform<u8:f32...>, not 'f32'}}
  %0 = nunc.quantized_linear %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return
}

// -----


func.func @quantized_linear_u8_weight_rows_axis(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<u8:f32:0, {0.5:1, 0.25:2, 1.0:3}>>) {
  // expected-error @+1 {{a per-axis weight must be quantized along dim 1 (its columns) with zero points in [0, 255]}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "dynamic_per_tensor"} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<u8:f32:0, {0.5:1, 0.25:2, 1.0:3}>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_linear_rows_axis(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>) {
  // expected-error @+1 {{a per-axis weight must be quantized along dim 1 (its columns) with zero points 0}}
  %0 = nunc.quantized_linear %x, %w : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_linear_zero_point(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32:1, {0.5:3, 0.25}>>) {
  // expected-error @+1 {{a per-axis weight must be quantized along dim 1 (its columns) with zero points 0}}
  %0 = nunc.quantized_linear %x, %w : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32:1, {0.5:3, 0.25}>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_linear_scale_count(%x: tensor<2x3xf32>, %w: tensor<3x4x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) {
  // expected-error @+1 {{weight has 2 scales for 4 columns}}
  %0 = nunc.quantized_linear %x, %w : tensor<2x3xf32>, tensor<3x4x!quant.uniform<i8:f32:1, {0.5, 0.25}>> -> tensor<2x4xf32>
  return
}

// -----

func.func @quantized_linear_unknown_mode(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{activation_quantization 'calibrated' is not supported (expected dynamic_per_row, dynamic_per_tensor or static)}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "calibrated"} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_linear_static_without_type(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{input_quantization must be given exactly when activation_quantization is static}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "static"} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_linear_static_signed_input(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{input_quantization must be !quant.uniform<u8:f32, scale:zp> (or u16) with a positive scale, not '!quant.uniform<i8:f32, 2.500000e-01>'}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<i8:f32, 0.25>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

// A u16 input grid covers the whole range (the quantizer saturates at 0
// and 65535).
func.func @quantized_linear_narrow_u16_input(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{input_quantization must be !quant.uniform<u8:f32, scale:zp> (or u16) with a positive scale, not '!quant.uniform<u16<1:65535>:f32, 2.500000e-01:7>'}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u16<1:65535>:f32, 0.25:7>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_linear_u16_input_u8_weights(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<u8:f32, 0.5:128>>) {
  // expected-error @+1 {{a u16 input_quantization needs s8 weights}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u16:f32, 0.25:30000>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<u8:f32, 0.5:128>> -> tensor<2x2xf32>
  return
}

// -----

// 16-bit inputs are quantized_linear's only.
func.func @quantized_conv_u16_input(%x: tensor<1x4x5x6xf32>, %w: tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{input_quantization must be !quant.uniform<u8:f32, scale:zp> with a positive scale, not '!quant.uniform<u16:f32, 5.000000e-01:3>'}}
  %0 = nunc.quantized_conv %x, %w {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u16:f32, 0.5:3>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x8x5x6xf32>
  return
}

// -----

func.func @quantized_linear_u8_input_dynamic(%x: tensor<2x3x!quant.uniform<u8:f32, 0.25:3>>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{a quantized input needs activation_quantization "static" and no input_quantization (its type is the quantization)}}
  %0 = nunc.quantized_linear %x, %w : tensor<2x3x!quant.uniform<u8:f32, 0.25:3>>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_linear_s8_input(%x: tensor<2x3x!quant.uniform<i8:f32, 0.25>>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{a quantized input must hold !quant.uniform<u8:f32, scale:zp>, not '!quant.uniform<i8:f32, 2.500000e-01>'}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "static"} : tensor<2x3x!quant.uniform<i8:f32, 0.25>>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

func.func @gelu_constants_without_grids(%x: tensor<4xf32>) {
  // expected-error @+1 {{one and half other than 1 and 0.5 need quantization grids}}
  %0 = nunc.gelu %x {one = 0.99 : f32} : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @quantized_linear_gelu_constants_without_grids(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{gelu_one and gelu_half other than 1 and 0.5 need gelu grids}}
  %0 = nunc.quantized_linear %x, %w {activation = "gelu", gelu_half = 0.49 : f32} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_linear_gelu_grids_without_gelu(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{gelu grids need activation "gelu", not "relu"}}
  %0 = nunc.quantized_linear %x, %w {activation = "relu", gelu_erf_quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_linear_activation_input_grid_signed_scale(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{activation_input_quantization must be a per-tensor !quant.uniform of at most 16 bits over f32}}
  %0 = nunc.quantized_linear %x, %w {activation = "gelu", activation_input_quantization = !quant.uniform<u8:f32:1, {0.5, 0.25}>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_conv_output_table_size(%x: tensor<1x4x5x6xf32>, %w: tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{output_table needs a last grid (norm_quantization with a norm, else output_quantization) and one entry per code of it}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, output_table = array<f32: 1.0, 2.0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x8x5x6xf32>
  return
}

// -----

func.func @quantized_conv_output_table_without_grid(%x: tensor<1x4x5x6xf32>, %w: tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{output_table needs a last grid}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, output_table = array<f32: 1.0, 2.0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x8x5x6xf32>
  return
}

// -----

func.func @quantized_linear_u8_output_without_grid(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{u8_output needs an output_quantization of !quant.uniform<u8:f32, scale:zp>}}
  %0 = nunc.quantized_linear %x, %w {u8_output} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_linear_u8_output_signed(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{u8_output needs an output_quantization of !quant.uniform<u8:f32, scale:zp>}}
  %0 = nunc.quantized_linear %x, %w {u8_output, output_quantization = !quant.uniform<i8:f32, 0.5>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

func.func @quantized_conv_u8_weight_zero_point_axis(%x: tensor<1x4x5x6xf32>, %w: tensor<8x4x1x1x!quant.uniform<u8:f32:1, {0.5:1, 0.25:2, 1.0:3, 1.0:4}>>) {
  // expected-error @+1 {{a per-axis weight must be quantized along dim 0 (its output channels) with zero points in [0, 255]}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<u8:f32:1, {0.5:1, 0.25:2, 1.0:3, 1.0:4}>> -> tensor<1x8x5x6xf32>
  return
}

// -----

func.func @quantized_conv_u8_output_without_u8_grid(%x: tensor<1x4x5x6xf32>, %w: tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{u8_output needs a last grid (norm_quantization with a norm, else output_quantization; table_quantization with an output_table) of !quant.uniform<u8:f32, scale:zp>}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<i8:f32, 0.5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x8x5x6x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

func.func @quantized_conv_u8_output_of_the_wrong_grid(%x: tensor<1x4x5x6xf32>, %w: tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>>, %a: tensor<8xf32>) {
  // With a norm, the codes are those of norm_quantization, which is missing.
  // expected-error @+1 {{u8_output needs a last grid}}
  %0 = nunc.quantized_conv %x, %w norm %a, %a : tensor<8xf32>, tensor<8xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.5>>
  return
}

// -----

func.func @fused_conv_signed_codes(%x: tensor<1x4x5x6x!quant.uniform<i8:f32, 0.5>>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{input must be a float tensor or hold !quant.uniform<u8:f32, scale:zp>, not '!quant.uniform<i8:f32, 5.000000e-01>'}}
  %0 = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6x!quant.uniform<i8:f32, 0.5>>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6xf32>
  return
}

// -----

func.func @fused_conv_u8_output_without_grid(%x: tensor<1x4x5x6xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{u8_output needs an output_quantization (table_quantization with an output_table) of !quant.uniform<u8:f32, scale:zp>}}
  %0 = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6xf32>
  return
}

// -----

func.func @fused_conv_u8_output_with_residual(%x: tensor<1x4x5x6xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{u8_output takes no residual}}
  %0 = nunc.fused_conv %x, %w residual %x : tensor<1x4x5x6xf32> {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.5>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6x!quant.uniform<u8:f32, 0.5>>
  return
}

// -----

func.func @fused_conv_u8_output_not_depthwise(%x: tensor<1x4x5x6xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{u8 codes and output_quantization need a depthwise conv (group = input channels > 1, one filter each)}}
  %0 = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.5>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x5x6x!quant.uniform<u8:f32, 0.5>>
  return
}

// -----

func.func @fused_conv_codes_with_f16_weight(%x: tensor<1x4x5x6x!quant.uniform<u8:f32, 0.5>>, %w: tensor<4x1x3x3xf16>) {
  // expected-error @+1 {{with a quantized input, weight and bias must be f32}}
  %0 = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6x!quant.uniform<u8:f32, 0.5>>, tensor<4x1x3x3xf16> -> tensor<1x4x5x6xf32>
  return
}

// -----

func.func @quantized_conv_codes_with_input_quantization(%x: tensor<1x4x5x6x!quant.uniform<u8:f32, 0.5:3>>, %w: tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{a quantized input needs activation_quantization "static" and no input_quantization (its type is the quantization)}}
  %0 = nunc.quantized_conv %x, %w {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.5:3>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6x!quant.uniform<u8:f32, 0.5:3>>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x8x5x6xf32>
  return
}

// -----

func.func @quantized_conv_dynamic_codes(%x: tensor<1x4x5x6x!quant.uniform<u8:f32, 0.5:3>>, %w: tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{a quantized input needs activation_quantization "static"}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6x!quant.uniform<u8:f32, 0.5:3>>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x8x5x6xf32>
  return
}

// -----

func.func @quantize_signed(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{quantization must be !quant.uniform<u8:f32, scale:zp> with a positive scale, not '!quant.uniform<i8:f32, 5.000000e-01>'}}
  %0 = nunc.quantize %x {quantization = !quant.uniform<i8:f32, 0.5>} : tensor<2x3xf32> -> tensor<2x3x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

func.func @fake_quantize_per_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{quantization must be a per-tensor !quant.uniform of at most 16 bits over f32 with a positive scale and a zero point in range, not '!quant.uniform<u8:f32:1, {1.000000e-01:128,2.000000e-01:128,3.000000e-01:128}>'}}
  %0 = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32:1, {0.1:128, 0.2:128, 0.3:128}>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @fake_quantize_32_bit(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{quantization must be a per-tensor !quant.uniform of at most 16 bits}}
  %0 = nunc.fake_quantize %x {quantization = !quant.uniform<i32:f32, 0.5>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @quantized_linear_per_axis_output(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{output_quantization must be a per-tensor !quant.uniform of at most 16 bits over f32}}
  %0 = nunc.quantized_linear %x, %w {output_quantization = !quant.uniform<u8:f32:1, {0.1:128, 0.2:128}>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  return
}

// -----

func.func @quantized_conv_columns_axis(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) {
  // expected-error @+1 {{a per-axis weight must be quantized along dim 0 (its output channels) with zero points 0}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1x!quant.uniform<i8:f32:1, {0.5, 0.25}>> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @quantized_conv_scale_count(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) {
  // expected-error @+1 {{weight has 2 scales for 3 output channels}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @quantized_conv_per_row(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{activation_quantization 'dynamic_per_row' is not supported (expected dynamic_per_tensor or static)}}
  %0 = nunc.quantized_conv %x, %w {activation_quantization = "dynamic_per_row", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @quantized_conv_static_without_type(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{input_quantization must be given exactly when activation_quantization is static}}
  %0 = nunc.quantized_conv %x, %w {activation_quantization = "static", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @quantized_conv_float_weight(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) {
  // expected-error @+1 {{weight must hold !quant.uniform<i8:f32...> or !quant.uniform<u8:f32...>, not 'f32'}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @batch_norm_grid_per_axis(%x: tensor<1x2x3xf32>, %p: tensor<2xf32>) {
  // expected-error @+1 {{input_quantization and output_quantization must be per-tensor !quant.uniform of at most 16 bits over f32 with a positive scale and a zero point in range}}
  %0 = nunc.batch_norm %x, %p, %p, %p, %p {output_quantization = !quant.uniform<u8:f32:1, {0.1:128, 0.2:128}>} : (tensor<1x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  return
}

// -----

func.func @batch_norm_grid_f64(%x: tensor<1x2x3xf64>, %p: tensor<2xf64>) {
  // expected-error @+1 {{input_quantization and output_quantization need an f32 input}}
  %0 = nunc.batch_norm %x, %p, %p, %p, %p {input_quantization = !quant.uniform<u8:f32, 0.5>} : (tensor<1x2x3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<1x2x3xf64>
  return
}

// -----

func.func @quantized_conv_norm_grid_alone(%x: tensor<1x1x2x2xf32>, %w: tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) {
  // expected-error @+1 {{norm_quantization needs norm_scale and norm_shift}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, norm_quantization = !quant.uniform<u8:f32, 0.5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @quantized_conv_norm_size(%x: tensor<1x1x2x2xf32>, %w: tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>, %a: tensor<3xf32>) {
  // expected-error @+1 {{norm_scale and norm_shift must be f32 [M] with M = 2}}
  %0 = nunc.quantized_conv %x, %w norm %a, %a : tensor<3xf32>, tensor<3xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @attention_kv_heads_not_a_divisor(%q: tensor<1x3x12xf32>, %k: tensor<1x5x8xf32>) {
  // expected-error @+1 {{kv_heads 2 does not divide num_heads 3}}
  %0 = nunc.attention %q, %k, %k {kv_heads = 2 : i64, num_heads = 3 : i64, scale = 1.0 : f32} : tensor<1x3x12xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32> -> tensor<1x3x12xf32>
  return
}

// -----

func.func @attention_heads_major_of_three(%q: tensor<1x2x3x4xf32>) {
  // expected-error @+1 {{heads_major needs four entries (query, key, value, result)}}
  %0 = nunc.attention %q, %q, %q {heads_major = array<i1: true, true, true>, num_heads = 2 : i64, scale = 1.0 : f32} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_heads_first_key_of_other_heads(%q: tensor<1x4x3x8xf32>, %k: tensor<1x3x5x8xf32>) {
  // expected-error @+1 {{key holds 3 heads, not 2}}
  %0 = nunc.attention %q, %k, %k {heads_major = array<i1: true, true, true, true>, kv_heads = 2 : i64, num_heads = 4 : i64, scale = 1.0 : f32} : tensor<1x4x3x8xf32>, tensor<1x3x5x8xf32>, tensor<1x3x5x8xf32> -> tensor<1x4x3x8xf32>
  return
}

// -----

func.func @attention_heads_first_head_sizes_differ(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x4xf32>) {
  // expected-error @+1 {{query and key differ in head size}}
  %0 = nunc.attention %q, %k, %k {heads_major = array<i1: true, true, true, true>, num_heads = 2 : i64, scale = 1.0 : f32} : tensor<1x2x3x8xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x3x8xf32>
  return
}

// -----

func.func @attention_grouped_u8_codes(%c: tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, %k: tensor<1x3x4x!quant.uniform<u8:f32, 0.5:128>>) {
  // expected-error @+1 {{heads_major and kv_heads need float, unpacked operands}}
  %0 = nunc.attention %c, %k, %k {kv_heads = 1 : i64, num_heads = 2 : i64, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, scale = 0.5 : f32} : tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x4x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x4x!quant.uniform<u8:f32, 0.5:128>> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @attention_u8_output_without_grid(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{u8_output needs a u8 output_quantization of all 256 codes}}
  %0 = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 1.0 : f32, u8_output} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>
  return
}

// -----

func.func @attention_u8_output_s8_grid(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{u8_output needs a u8 output_quantization of all 256 codes}}
  %0 = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 1.0 : f32, output_quantization = !quant.uniform<i8:f32, 0.5>, u8_output} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8x!quant.uniform<i8:f32, 0.5>>
  return
}

// -----

func.func @attention_u8_output_narrow_grid(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{u8_output needs a u8 output_quantization of all 256 codes}}
  %0 = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 1.0 : f32, output_quantization = !quant.uniform<u8<0:254>:f32, 0.5:128>, u8_output} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8x!quant.uniform<u8<0:254>:f32, 0.5:128>>
  return
}

// -----

func.func @attention_u8_output_heads_first(%x: tensor<1x2x3x4xf32>) {
  // expected-error @+1 {{u8_output needs a result with the heads merged}}
  %0 = nunc.attention %x, %x, %x {heads_major = array<i1: true, true, true, true>, num_heads = 2 : i64, scale = 1.0 : f32, output_quantization = !quant.uniform<u8:f32, 0.5:128>, u8_output} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4x!quant.uniform<u8:f32, 0.5:128>>
  return
}

// -----

func.func @attention_u8_output_result_type(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{result #0 has type 'tensor<1x3x8xf32>' but the operands give 'tensor<1x3x8x!quant.uniform<u8:f32, 5.000000e-01:128>>'}}
  %0 = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 1.0 : f32, output_quantization = !quant.uniform<u8:f32, 0.5:128>, u8_output} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @attention_mask_of_a_larger_batch(%x: tensor<1x3x8xf32>, %m: tensor<2x1x3x3xf32>) {
  // expected-error @+1 {{mask must broadcast to [B, H, S, T]}}
  %0 = nunc.attention %x, %x, %x mask %m : tensor<2x1x3x3xf32> {num_heads = 2 : i64, scale = 1.0 : f32} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @attention_offsets_without_width(%x: tensor<1x3x6xf32>) {
  // expected-error @+1 {{input_offsets (three: query, key, value) and input_width go together}}
  %0 = nunc.attention %x, %x, %x {input_offsets = array<i64: 0, 2, 4>, num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32> -> tensor<1x3x2xf32>
  return
}

// -----

func.func @attention_width_not_split_into_heads(%x: tensor<1x3x6xf32>) {
  // expected-error @+1 {{input_width 3 does not split into 2 heads}}
  %0 = nunc.attention %x, %x, %x {input_offsets = array<i64: 0, 2, 3>, input_width = 3 : i64, num_heads = 2 : i64, scale = 1.0 : f32} : tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32> -> tensor<1x3x3xf32>
  return
}

// -----

func.func @attention_columns_outside_the_operand(%x: tensor<1x3x6xf32>) {
  // expected-error @+1 {{input columns [5, 7) lie outside operand 2's 6}}
  %0 = nunc.attention %x, %x, %x {input_offsets = array<i64: 0, 2, 5>, input_width = 2 : i64, num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32> -> tensor<1x3x2xf32>
  return
}

// -----

func.func @linear_one_step_without_product_grid(%x: tensor<4x3xf32>) {
  %w = nunc.constant dense<1> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  %b = nunc.constant dense<0.25> : tensor<2xf32>
  // expected-error @+1 {{one_step_requantization needs a static u8 input, 8-bit product_quantization, a bias on bias_codes_quantization and a u8 grid right after the bias}}
  %a = nunc.quantized_linear %x, %qw bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 0.25:10>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, one_step_requantization, output_quantization = !quant.uniform<u8:f32, 0.25:100>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @linear_residual_grid_without_one_step(%x: tensor<4x3xf32>, %r: tensor<4x2xf32>) {
  %w = nunc.constant dense<1> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  // expected-error @+1 {{residual_quantization goes with one_step_requantization}}
  %a = nunc.quantized_linear %x, %qw residual %r : tensor<4x2xf32> {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:10>, residual_quantization = !quant.uniform<u8:f32, 0.25:10>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @linear_bias_codes_without_bias(%x: tensor<4x3xf32>) {
  %w = nunc.constant dense<1> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 0.03125>>
  // expected-error @+1 {{bias_codes_quantization and bias_first need a bias}}
  %a = nunc.quantized_linear %x, %qw {activation_quantization = "static", bias_first, input_quantization = !quant.uniform<u8:f32, 0.125:10>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @attention_qlinear_on_floats(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{qlinear_arithmetic needs u8 query, key and value codes}}
  %0 = nunc.attention %x, %x, %x {num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 0.015625:114>, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, qlinear_arithmetic, scale = 0.5 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0625:120>, scores_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @attention_qlinear_without_output_grid(%c: tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>) {
  // expected-error @+1 {{qlinear_arithmetic needs u8 scores, scaled, probs and output grids}}
  %0 = nunc.attention %c, %c, %c {num_heads = 2 : i64, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, qlinear_arithmetic, scale = 0.5 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0625:120>, scores_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @attention_qlinear_mask_without_grid(%c: tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, %m: tensor<1x1x1x3xf32>) {
  // expected-error @+1 {{qlinear_arithmetic needs u8 logits and mask grids with a mask, neither without one}}
  %0 = nunc.attention %c, %c, %c mask %m : tensor<1x1x1x3xf32> {logits_quantization = !quant.uniform<u8:f32, 0.0625:120>, num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 0.015625:114>, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, qlinear_arithmetic, scale = 0.5 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0625:120>, scores_quantization = !quant.uniform<u8:f32, 0.125:120>} : tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @attention_mask_grid_alone(%x: tensor<1x3x8xf32>, %m: tensor<1x1x1x3xf32>) {
  // expected-error @+1 {{mask_quantization and signed_codes go with qlinear_arithmetic}}
  %0 = nunc.attention %x, %x, %x mask %m : tensor<1x1x1x3xf32> {mask_quantization = !quant.uniform<u8:f32, 1.0>, num_heads = 2 : i64, scale = 0.5 : f32} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @attention_divisor_zero(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{scale_divisor must be finite and not 0}}
  %0 = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 0.5 : f32, scale_divisor = 0.0 : f32} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @attention_mixed_codes_and_floats(%c: tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, %x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{query, key and value must all be float tensors or all hold !quant.uniform<u8:f32, scale:zp>, not 'f32'}}
  %0 = nunc.attention %c, %c, %x {num_heads = 2 : i64, scale = 1.0 : f32} : tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @attention_s8_codes(%c: tensor<1x3x8x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{query, key and value must all be float tensors or all hold !quant.uniform<u8:f32, scale:zp>, not '!quant.uniform<i8:f32, 5.000000e-01>'}}
  %0 = nunc.attention %c, %c, %c {num_heads = 2 : i64, scale = 1.0 : f32} : tensor<1x3x8x!quant.uniform<i8:f32, 0.5>>, tensor<1x3x8x!quant.uniform<i8:f32, 0.5>>, tensor<1x3x8x!quant.uniform<i8:f32, 0.5>> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @attention_packed_codes(%c: tensor<1x3x6x!quant.uniform<u8:f32, 0.5:128>>) {
  // expected-error @+1 {{packed operands (input_offsets) must be f32}}
  %0 = nunc.attention %c, %c, %c {input_offsets = array<i64: 0, 2, 4>, input_width = 2 : i64, num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x6x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x6x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x6x!quant.uniform<u8:f32, 0.5:128>> -> tensor<1x3x2xf32>
  return
}


// -----

func.func @attention_integer_operands(%x: tensor<1x3x8xi32>) {
  // expected-error @+1 {{query, key and value must be float tensors or hold !quant.uniform<u8:f32, scale:zp>, not 'i32'}}
  %0 = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 1.0 : f32} : tensor<1x3x8xi32>, tensor<1x3x8xi32>, tensor<1x3x8xi32> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @resize_unknown_coordinate_mode(%x: tensor<1x1x3x3xf32>) {
  %s = nunc.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  // expected-error @+1 {{unknown coordinate_transformation_mode 'corners'}}
  %0 = nunc.resize %x scales %s : tensor<4xf32> {coordinate_transformation_mode = "corners"} : tensor<1x1x3x3xf32> -> tensor<1x1x6x6xf32>
  return
}

// -----

func.func @resize_scales_per_axis(%x: tensor<1x1x3x3xf32>) {
  %s = nunc.constant dense<[2.0, 2.0]> : tensor<2xf32>
  // expected-error @+1 {{Resize scales has 2 entries for 4 resized dims}}
  %0 = nunc.resize %x scales %s : tensor<2xf32> : tensor<1x1x3x3xf32> -> tensor<1x1x6x6xf32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x3x4x4xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{input has 3 channels, the weight expects 4}}
  %0 = nunc.conv_transpose %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, output_padding = array<i64: 0, 0>, output_shape = array<i64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x3x4x4xf32>, tensor<4x2x3x3xf32> -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @col2im_block_size(%x: tensor<1x10x4xf32>) {
  %image = nunc.constant dense<[3, 3]> : tensor<2xi64>
  %block = nunc.constant dense<2> : tensor<2xi64>
  // expected-error @+1 {{input dim 1 (10) is not a multiple of the block size 4}}
  %0 = nunc.col2im %x, %image, %block {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x10x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2x3x3xf32>
  return
}

// -----

func.func @chain_input_shape(%a: tensor<4xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{needs inputs of the result's shape 'tensor<4xf32>'}}
  %0 = nunc.elementwise_chain %a, %b {steps = [{op = "add", args = array<i64: 0, 1>}]} : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @chain_later_value(%a: tensor<4xf32>) {
  // expected-error @+1 {{step 0 reads value 1, not an input (0-0) or an earlier step's result}}
  %0 = nunc.elementwise_chain %a {steps = [{op = "mul", args = array<i64: 0, 1>}]} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @chain_unknown_op(%a: tensor<4xf32>) {
  // expected-error @+1 {{needs an `op` among add, sub, mul, div, relu, clip, hard_sigmoid, hard_swish, fake_quantize}}
  %0 = nunc.elementwise_chain %a {steps = [{op = "exp", args = array<i64: 0>}]} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @chain_constant_missing(%a: tensor<4xf32>) {
  // expected-error @+1 {{-1 stands for the f32 `constant`, once in a binary step}}
  %0 = nunc.elementwise_chain %a {steps = [{op = "sub", args = array<i64: -1, 0>}]} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @chain_fake_quantize_grid(%a: tensor<4xf32>) {
  // expected-error @+1 {{step 'fake_quantize' needs a `grid`}}
  %0 = nunc.elementwise_chain %a {steps = [{op = "fake_quantize", args = array<i64: 0>}]} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @chain_per_axis_grid(%a: tensor<4xf32>) {
  // expected-error @+1 {{`grid` must be a per-tensor !quant.uniform of f32}}
  %0 = nunc.elementwise_chain %a {steps = [{op = "relu", args = array<i64: 0>, grid = !quant.uniform<u8:f32:0, {0.1:1, 0.2:2}>}]} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @fused_conv_output_table_size(%x: tensor<1x4x5x6xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{output_table needs an output_quantization and one entry per code of it}}
  %0 = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.5>, output_table = array<f32: 1.0, 2.0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6xf32>
  return
}

// -----

func.func @fused_conv_output_table_without_grid(%x: tensor<1x4x5x6xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{output_table needs an output_quantization}}
  %0 = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, output_table = array<f32: 1.0, 2.0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6xf32>
  return
}

// -----

func.func @fused_conv_table_grid_without_table(%x: tensor<1x4x5x6xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{table_quantization needs an output_table}}
  %0 = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.5>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, table_quantization = !quant.uniform<u8:f32, 0.25>} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6xf32>
  return
}

// -----

func.func @fused_conv_table_codes_without_table_grid(%x: tensor<1x4x5x6xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{u8_output needs an output_quantization (table_quantization with an output_table) of !quant.uniform<u8:f32, scale:zp>}}
  %0 = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.5>, output_table = array<f32: 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x6x!quant.uniform<u8:f32, 0.5>>
  return
}

// -----

func.func @quantized_conv_table_grid_without_table(%x: tensor<1x4x5x6xf32>, %w: tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{table_quantization needs an output_table}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, table_quantization = !quant.uniform<u8:f32, 0.25>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x8x5x6xf32>
  return
}

// -----

func.func @quantized_conv_table_codes_without_table_grid(%x: tensor<1x4x5x6xf32>, %w: tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{u8_output needs a last grid (norm_quantization with a norm, else output_quantization; table_quantization with an output_table)}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<u8:f32, 0.5>, output_table = array<f32: 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.5>>
  return
}

// -----

// one_step_requantization needs a static input (here: a dynamic one).
func.func @dynamic_input(%x: tensor<1x4x5x6xf32>) -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125>> {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  // expected-error@+1 {{one_step_requantization needs an output_quantization of !quant.uniform<u8:f32, scale:zp>, a static input}}
  %e = nunc.quantized_conv %x, %qw {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, one_step_requantization, output_quantization = !quant.uniform<u8:f32, 0.0078125>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, u8_output} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125>>
  return %e : tensor<1x8x5x6x!quant.uniform<u8:f32, 0.0078125>>
}

// -----

// one_step_requantization needs an output grid to compute the codes of.
func.func @no_output_grid(%x: tensor<1x4x5x6xf32>) -> tensor<1x8x5x6xf32> {
  %w = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %qw = quant.scast %w : tensor<8x4x1x1xi8> to tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>>
  // expected-error@+1 {{one_step_requantization needs an output_quantization of !quant.uniform<u8:f32, scale:zp>}}
  %e = nunc.quantized_conv %x, %qw {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.0234375:128>, kernel_shape = array<i64: 1, 1>, one_step_requantization, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<8x4x1x1x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x8x5x6xf32>
  return %e : tensor<1x8x5x6xf32>
}

// -----

// An add of codes needs both operands' grids and the sum's.
func.func @add_codes_half(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{lhs_quantization and rhs_quantization need each other and an output_quantization}}
  %s = nunc.add %x, %y {lhs_quantization = !quant.uniform<u8:f32, 0.5:3>, output_quantization = !quant.uniform<u8:f32, 0.5:3>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @signed_codes_alone(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{signed_codes needs lhs_quantization and rhs_quantization}}
  %s = nunc.add %x, %y {signed_codes} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @conv_weight_grid_per_other_axis(%x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error@+1 {{weight_quantization must be an 8-bit !quant.uniform over f32 with positive scales, per tensor or one per output channel (axis 0)}}
  %y = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, weight_quantization = !quant.uniform<i8:f32:2, {0.5, 0.25, 0.125}>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @conv_weight_grid_channels(%x: tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>> {
  // expected-error@+1 {{weight_quantization must be an 8-bit !quant.uniform}}
  %y = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, output_quantization = !quant.uniform<u8:f32, 0.5:3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, u8_output, weight_quantization = !quant.uniform<i8:f32:0, {0.5, 0.25, 0.125}>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>
  return %y : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>
}

// -----

// A depthwise conv's one step needs the filter's grid (and u8 codes in, a
// u8 output grid).
func.func @depthwise_one_step_without_grid(%x: tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>> {
  // expected-error@+1 {{one_step_requantization needs u8 input codes, a weight_quantization, an output_quantization of !quant.uniform<u8:f32, scale:zp> (its codes, their values or a table's index; no residual), and an activation of none, relu or clip}}
  %y = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, one_step_requantization, output_quantization = !quant.uniform<u8:f32, 0.5:3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, u8_output} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>
  return %y : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>
}

// -----

func.func @depthwise_one_step_s8_grid(%x: tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error@+1 {{one_step_requantization needs u8 input codes}}
  %y = nunc.fused_conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, one_step_requantization, output_quantization = !quant.uniform<i8:f32, 0.5:3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, weight_quantization = !quant.uniform<i8:f32, 0.5>} : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5:3>>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @pool_with_one_grid(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32> {
  // expected-error@+1 {{input_quantization and output_quantization must both be !quant.uniform<u8:f32, scale:zp>, or neither}}
  %y = nunc.global_average_pool %x {input_quantization = !quant.uniform<u8:f32, 0.5:3>} : tensor<1x2x4x4xf32> -> tensor<1x2x1x1xf32>
  return %y : tensor<1x2x1x1xf32>
}

// -----

func.func @pool_with_s8_grid(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32> {
  // expected-error@+1 {{input_quantization and output_quantization must both be}}
  %y = nunc.global_average_pool %x {input_quantization = !quant.uniform<u8:f32, 0.5:3>, output_quantization = !quant.uniform<i8:f32, 0.5:3>} : tensor<1x2x4x4xf32> -> tensor<1x2x1x1xf32>
  return %y : tensor<1x2x1x1xf32>
}

// -----

func.func @softmax_with_one_grid(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{input_quantization and output_quantization must both be !quant.uniform<u8:f32, scale:zp>, or neither}}
  %y = nunc.softmax %x {output_quantization = !quant.uniform<u8:f32, 0.5:3>} : tensor<2x4xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @average_pool_on_s8_grid(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error@+1 {{output_quantization must be !quant.uniform<u8:f32, scale:zp>}}
  %y = nunc.average_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, output_quantization = !quant.uniform<i8:f32, 0.5:3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @average_pool_ordered_on_grid(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error@+1 {{ordered_f32_arithmetic and output_quantization exclude each other}}
  %y = nunc.average_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, ordered_f32_arithmetic, output_quantization = !quant.uniform<u8:f32, 0.5:3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @average_pool_signed_codes_without_grid(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error@+1 {{signed_codes needs output_quantization}}
  %y = nunc.average_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, signed_codes, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @layer_norm_ordered_rows_of_12(%x: tensor<2x12xf32>, %g: tensor<12xf32>) {
  // expected-error @+1 {{ordered_f32_arithmetic needs f32 rows of a known multiple of 8 elements}}
  %0, %1, %2 = nunc.layer_norm %x, %g {ordered_f32_arithmetic} : tensor<2x12xf32>, tensor<12xf32> -> tensor<2x12xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  return
}

// -----

func.func @linear_signed_codes_alone(%x: tensor<4x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.03125>>) {
  // expected-error @+1 {{signed_codes goes with one_step_requantization}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:10>, signed_codes} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @linear_f32_product_without_grid(%x: tensor<4x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.03125>>) {
  // expected-error @+1 {{f32_product_k_block needs a positive block, a static input and product_quantization}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "static", f32_product_k_block = 128 : i64, input_quantization = !quant.uniform<u8:f32, 0.125:10>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @linear_qlinear_product_one_step(%x: tensor<4x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.03125>>) {
  %b = nunc.constant dense<[0.25, 0.5]> : tensor<2xf32>
  // expected-error @+1 {{qlinear_product needs a static input and an 8-bit product_quantization, and neither one_step_requantization nor f32_product_k_block}}
  %0 = nunc.quantized_linear %x, %w bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 0.25:3>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, one_step_requantization, output_quantization = !quant.uniform<u8:f32, 0.25:3>, product_quantization = !quant.uniform<u8:f32, 0.25:3>, qlinear_product} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @linear_qlinear_product_u16_grid(%x: tensor<4x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.03125>>) {
  // expected-error @+1 {{qlinear_product needs a static input and an 8-bit product_quantization}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:10>, product_quantization = !quant.uniform<u16:f32, 0.25:3>, qlinear_product} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @linear_f32_product_block_zero(%x: tensor<4x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.03125>>) {
  // expected-error @+1 {{f32_product_k_block needs a positive block}}
  %0 = nunc.quantized_linear %x, %w {activation_quantization = "static", f32_product_k_block = 0 : i64, input_quantization = !quant.uniform<u8:f32, 0.125:10>, product_quantization = !quant.uniform<u8:f32, 0.25:3>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @linear_signed_codes_u8_bias_codes(%x: tensor<4x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.03125>>, %b: tensor<2xf32>) {
  // expected-error @+1 {{bias_codes_quantization (and product_quantization) must be s8 grids with signed_codes}}
  %0 = nunc.quantized_linear %x, %w bias %b : tensor<2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 0.25:10>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, one_step_requantization, output_quantization = !quant.uniform<u8:f32, 0.25:100>, product_quantization = !quant.uniform<u8:f32, 0.125:120>, signed_codes} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @mul_codes_without_output_grid(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{lhs_quantization and rhs_quantization need each other and an output_quantization}}
  %0 = nunc.mul %x, %g {lhs_quantization = !quant.uniform<u8:f32, 0.03:120>, rhs_quantization = !quant.uniform<u8:f32, 0.01>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @reduce_mean_ordered_odd_rows(%x: tensor<2x10xf32>) {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  // expected-error @+1 {{ordered_f32_arithmetic needs f32 data reduced over its trailing axes in rows of a known multiple of 4 elements, at least 8}}
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> {ordered_f32_arithmetic} : tensor<2x10xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @linear_gelu_qlinear_without_constant_grids(%x: tensor<4x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.03125>>) {
  // expected-error @+1 {{gelu_qlinear_arithmetic needs activation gelu and u8 grids on the activation input, the GELU's three steps, its constants 1 and 0.5 (gelu_one / gelu_half_quantization; s8 with signed_codes too) and the output}}
  %0 = nunc.quantized_linear %x, %w {activation = "gelu", activation_input_quantization = !quant.uniform<u8:f32, 0.05:128>, activation_quantization = "static", gelu_erf_quantization = !quant.uniform<u8:f32, 0.0078431377:128>, gelu_product_quantization = !quant.uniform<u8:f32, 0.0625:20>, gelu_qlinear_arithmetic, gelu_sum_quantization = !quant.uniform<u8:f32, 0.0078431377>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.03125:8>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @linear_gelu_qlinear_s8_output(%x: tensor<4x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.03125>>) {
  // expected-error @+1 {{gelu_qlinear_arithmetic needs activation gelu and u8 grids}}
  %0 = nunc.quantized_linear %x, %w {activation = "gelu", activation_input_quantization = !quant.uniform<u8:f32, 0.05:128>, activation_quantization = "static", gelu_erf_quantization = !quant.uniform<u8:f32, 0.0078431377:128>, gelu_half_quantization = !quant.uniform<u8:f32, 0.0019607844>, gelu_one_quantization = !quant.uniform<u8:f32, 0.0039215689>, gelu_product_quantization = !quant.uniform<u8:f32, 0.0625:20>, gelu_qlinear_arithmetic, gelu_sum_quantization = !quant.uniform<u8:f32, 0.0078431377>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<i8:f32, 0.03125:8>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @linear_gelu_qlinear_s8_constants_unsigned(%x: tensor<4x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.03125>>) {
  // expected-error @+1 {{gelu_qlinear_arithmetic needs activation gelu and u8 grids}}
  %0 = nunc.quantized_linear %x, %w {activation = "gelu", activation_input_quantization = !quant.uniform<u8:f32, 0.05:128>, activation_quantization = "static", gelu_erf_quantization = !quant.uniform<u8:f32, 0.0078431377:128>, gelu_half_quantization = !quant.uniform<i8:f32, 0.0019607844:-128>, gelu_one_quantization = !quant.uniform<i8:f32, 0.0039215689:-128>, gelu_product_quantization = !quant.uniform<u8:f32, 0.0625:20>, gelu_qlinear_arithmetic, gelu_sum_quantization = !quant.uniform<u8:f32, 0.0078431377>, input_quantization = !quant.uniform<u8:f32, 0.125:10>, output_quantization = !quant.uniform<u8:f32, 0.03125:8>} : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.03125>> -> tensor<4x2xf32>
  return
}

// -----

func.func @conv_f32_product_dynamic(%x: tensor<1x4x5x6xf32>, %w: tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>>) {
  // expected-error @+1 {{f32_product_k_block needs a positive block and a static input, and no one_step_requantization}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, f32_product_k_block = 128 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  return
}

// -----

func.func @conv_f32_product_one_step(%x: tensor<1x4x5x6xf32>, %w: tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>>) {
  // expected-error @+1 {{f32_product_k_block needs a positive block and a static input, and no one_step_requantization}}
  %0 = nunc.quantized_conv %x, %w {activation_quantization = "static", dilations = array<i64: 1, 1>, f32_product_k_block = 128 : i64, input_quantization = !quant.uniform<u8:f32, 0.125:10>, kernel_shape = array<i64: 3, 3>, one_step_requantization, output_quantization = !quant.uniform<u8:f32, 0.25:3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<4x4x3x3x!quant.uniform<i8:f32, 0.03125>> -> tensor<1x4x5x6xf32>
  return
}

// -----

func.func @quantized_conv_groups_not_dividing_outputs(%x: tensor<1x8x5x6xf32>, %w: tensor<6x2x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{6 output channels do not divide into 4 groups}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<6x2x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x6x5x6xf32>
  return
}

// -----

func.func @quantized_conv_group_channels(%x: tensor<1x8x5x6xf32>, %w: tensor<4x4x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{x 4 groups}}
  %0 = nunc.quantized_conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x4x5x6xf32>
  return
}

// -----

func.func @quantized_conv_f32_products_with_groups(%x: tensor<1x8x5x6xf32>, %w: tensor<4x4x1x1x!quant.uniform<i8:f32, 0.5>>) {
  // expected-error @+1 {{f32_product_k_block needs a positive block and a static input, and no one_step_requantization or groups}}
  %0 = nunc.quantized_conv %x, %w {activation_quantization = "static", dilations = array<i64: 1, 1>, f32_product_k_block = 64 : i64, group = 2 : i64, input_quantization = !quant.uniform<u8:f32, 0.5:3>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x5x6xf32>, tensor<4x4x1x1x!quant.uniform<i8:f32, 0.5>> -> tensor<1x4x5x6xf32>
  return
}

// -----

// A constant scale must be finite (no quantizer writes NaN or inf; 0 x inf
// would make the compiled arithmetic and the reference differ).
func.func @quantize_infinite_scale(%x: tensor<4xf32>) {
  %s = nunc.constant dense<0x7F800000> : tensor<f32>
  // expected-error @+1 {{scale must be finite, got inf}}
  %0 = nunc.quantize_linear %x, %s {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<*xui8>
  return
}

// -----

func.func @dequantize_nan_scale_per_axis(%x: tensor<2x3xi8>) {
  %s = nunc.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  // expected-error @+1 {{scale must be finite, got NaN}}
  %0 = nunc.dequantize_linear %x, %s {axis = 0 : i64} : tensor<2x3xi8>, tensor<2xf32> -> tensor<*xf32>
  return
}

// -----

func.func @qlinear_conv_infinite_output_scale(%x: tensor<1x2x5x5xui8>, %s: tensor<f32>, %z: tensor<ui8>, %w: tensor<4x2x3x3xi8>, %z8: tensor<i8>) {
  %inf = nunc.constant dense<0xFF800000> : tensor<f32>
  // expected-error @+1 {{y_scale must be finite, got -inf}}
  %0 = nunc.qlinear_conv %x, %s, %z, %w, %s, %z8, %inf, %z {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<4x2x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<*xui8>
  return
}

// -----

func.func @attention_int8_products_on_codes(%q: tensor<1x3x16x!quant.uniform<u8:f32, 0.1:128>>) {
  // expected-error @+1 {{with int8_products needs f32 query, key and value}}
  %0 = nunc.attention %q, %q, %q {int8_products, num_heads = 1 : i64, scale = 1.0 : f32, probs_quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x3x16x!quant.uniform<u8:f32, 0.1:128>>, tensor<1x3x16x!quant.uniform<u8:f32, 0.1:128>>, tensor<1x3x16x!quant.uniform<u8:f32, 0.1:128>> -> tensor<1x3x16xf32>
  return
}

// -----

func.func @attention_int8_products_with_a_grid(%q: tensor<1x3x16xf32>) {
  // expected-error @+1 {{with int8_products takes no grids (but u8_output's)}}
  %0 = nunc.attention %q, %q, %q {int8_products, num_heads = 1 : i64, scale = 1.0 : f32, probs_quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x3x16xf32>, tensor<1x3x16xf32>, tensor<1x3x16xf32> -> tensor<1x3x16xf32>
  return
}

// -----

func.func @layer_norm_rms_and_ordered(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{takes rms or ordered_f32_arithmetic, not both}}
  %y, %m, %i = nunc.layer_norm %x, %g {ordered_f32_arithmetic, rms} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  return
}

// -----

func.func @attention_nan_scale(%q: tensor<1x3x16xf32>) {
  // expected-error @+1 {{needs a finite scale, got nan}}
  %0 = nunc.attention %q, %q, %q {num_heads = 1 : i64, scale = 0x7FC00000 : f32} : tensor<1x3x16xf32>, tensor<1x3x16xf32>, tensor<1x3x16xf32> -> tensor<1x3x16xf32>
  return
}

// -----

func.func @leaky_relu_infinite_alpha(%x: tensor<4xf32>) {
  // expected-error @+1 {{needs a finite alpha, got INF}}
  %0 = nunc.leaky_relu %x {alpha = 0x7F800000 : f32} : tensor<4xf32> -> tensor<4xf32>
  return
}
