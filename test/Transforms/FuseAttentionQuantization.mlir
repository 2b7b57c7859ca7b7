// RUN: nunc-opt %s -split-input-file --nunc-fuse-attention-quantization | FileCheck %s

// Q, K and V each from a GEMM used only by the attention, on a u8 grid, and
// a grid on the probabilities: the GEMMs write their codes, which the
// attention reads (its result stays f32).
// CHECK-LABEL: func.func @codes(
// CHECK: %[[Q:.*]] = nunc.quantized_linear {{.*}}output_quantization = !quant.uniform<u8:f32, 6.250000e-02:120>, u8_output} : {{.*}} -> tensor<1x5x8x!quant.uniform<u8:f32, 6.250000e-02:120>>
// CHECK: %[[K:.*]] = nunc.quantized_linear {{.*}}output_quantization = !quant.uniform<u8:f32, 5.000000e-02:131>, u8_output} : {{.*}} -> tensor<1x5x8x!quant.uniform<u8:f32, 5.000000e-02:131>>
// CHECK: %[[V:.*]] = nunc.quantized_linear {{.*}}output_quantization = !quant.uniform<u8:f32, 3.125000e-02:128>, u8_output} : {{.*}} -> tensor<1x5x8x!quant.uniform<u8:f32, 3.125000e-02:128>>
// CHECK: nunc.attention %[[Q]], %[[K]], %[[V]] {{.*}} : tensor<1x5x8x!quant.uniform<u8:f32, 6.250000e-02:120>>, tensor<1x5x8x!quant.uniform<u8:f32, 5.000000e-02:131>>, tensor<1x5x8x!quant.uniform<u8:f32, 3.125000e-02:128>> -> tensor<1x5x8xf32>
func.func @codes(%x: tensor<1x5x8xf32>) -> (tensor<1x5x8xf32>) {
  %i = nunc.constant dense<3> : tensor<8x8xi8>
  %w = quant.scast %i : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32, 0.01>>
  %q = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %k = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.05:131>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %v = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.03125:128>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %y = nunc.attention %q, %k, %v {num_heads = 2 : i64, scale = 0.5 : f32, probs_quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32> -> tensor<1x5x8xf32>
  return %y : tensor<1x5x8xf32>
}

// -----

// No grid on the probabilities: P V would not be a product of codes.
// CHECK-LABEL: func.func @no_probability_grid(
// CHECK-NOT: u8_output
// CHECK: nunc.attention {{.*}} : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32> -> tensor<1x5x8xf32>
func.func @no_probability_grid(%x: tensor<1x5x8xf32>) -> (tensor<1x5x8xf32>) {
  %i = nunc.constant dense<3> : tensor<8x8xi8>
  %w = quant.scast %i : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32, 0.01>>
  %q = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %k = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.05:131>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %v = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.03125:128>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %y = nunc.attention %q, %k, %v {num_heads = 2 : i64, scale = 0.5 : f32} : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32> -> tensor<1x5x8xf32>
  return %y : tensor<1x5x8xf32>
}

// -----

// Q's GEMM has another user (its f32 values are returned too), V's GEMM
// has no output grid, K's is s8: each alone keeps the attention on f32.
// CHECK-LABEL: func.func @shared_query(
// CHECK-NOT: u8_output
// CHECK-LABEL: func.func @value_without_grid(
// CHECK-NOT: u8_output
// CHECK-LABEL: func.func @s8_key(
// CHECK-NOT: u8_output
func.func @shared_query(%x: tensor<1x5x8xf32>) -> (tensor<1x5x8xf32>, tensor<1x5x8xf32>) {
  %i = nunc.constant dense<3> : tensor<8x8xi8>
  %w = quant.scast %i : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32, 0.01>>
  %q = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %k = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.05:131>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %v = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.03125:128>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %y = nunc.attention %q, %k, %v {num_heads = 2 : i64, scale = 0.5 : f32, probs_quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32> -> tensor<1x5x8xf32>
  return %y, %q : tensor<1x5x8xf32>, tensor<1x5x8xf32>
}
func.func @value_without_grid(%x: tensor<1x5x8xf32>) -> (tensor<1x5x8xf32>) {
  %i = nunc.constant dense<3> : tensor<8x8xi8>
  %w = quant.scast %i : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32, 0.01>>
  %q = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %k = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.05:131>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %v = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %y = nunc.attention %q, %k, %v {num_heads = 2 : i64, scale = 0.5 : f32, probs_quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32> -> tensor<1x5x8xf32>
  return %y : tensor<1x5x8xf32>
}
func.func @s8_key(%x: tensor<1x5x8xf32>) -> (tensor<1x5x8xf32>) {
  %i = nunc.constant dense<3> : tensor<8x8xi8>
  %w = quant.scast %i : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32, 0.01>>
  %q = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %k = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<i8:f32, 0.05:3>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %v = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.03125:128>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %y = nunc.attention %q, %k, %v {num_heads = 2 : i64, scale = 0.5 : f32, probs_quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32> -> tensor<1x5x8xf32>
  return %y : tensor<1x5x8xf32>
}

// -----

// The same GEMM result as key and value (two uses): stays f32.
// CHECK-LABEL: func.func @key_is_value(
// CHECK-NOT: u8_output
func.func @key_is_value(%x: tensor<1x5x8xf32>) -> (tensor<1x5x8xf32>) {
  %i = nunc.constant dense<3> : tensor<8x8xi8>
  %w = quant.scast %i : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32, 0.01>>
  %q = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.0625:120>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %k = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:128>, output_quantization = !quant.uniform<u8:f32, 0.05:131>} : tensor<1x5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.01>> -> tensor<1x5x8xf32>
  %y = nunc.attention %q, %k, %k {num_heads = 2 : i64, scale = 0.5 : f32, probs_quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32> -> tensor<1x5x8xf32>
  return %y : tensor<1x5x8xf32>
}
