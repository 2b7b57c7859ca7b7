// RUN: nunc-opt %s -split-input-file --nunc-fuse-attention-projections | FileCheck %s

// Self-attention's Q, K and V linears become one linear with the weights
// and biases side by side (Q, K, V columns); the attention reads its heads
// at columns 0, E and 2E of that result.
// CHECK-LABEL: func.func @linear(
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 1.000000e+01, 2.000000e+01, -1.000000e+00, -2.000000e+00], [3.000000e+00, 4.000000e+00, 3.000000e+01, 4.000000e+01, -3.000000e+00, -4.000000e+00]]> : tensor<2x6xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[5.000000e-01, 1.500000e+00, 5.000000e+00, 1.500000e+01, -5.000000e-01, -1.500000e+00]> : tensor<6xf32>
// CHECK: %[[QKV:.*]] = nunc.linear %arg0, %[[W]] bias %[[B]] : tensor<6xf32> : tensor<1x3x2xf32>, tensor<2x6xf32> -> tensor<1x3x6xf32>
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[QKV]], %[[QKV]], %[[QKV]] mask %arg1 : tensor<1x1x1x3xf32> {input_offsets = array<i64: 0, 2, 4>, input_width = 2 : i64, num_heads = 2 : i64, scale = 5.000000e-01 : f32} : tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32> -> tensor<1x3x2xf32>
// CHECK-NEXT: return %[[A]]
// CHECK-NOT: nunc.linear
func.func @linear(%x: tensor<1x3x2xf32>, %m: tensor<1x1x1x3xf32>) -> tensor<1x3x2xf32> {
  %wq = nunc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wk = nunc.constant dense<[[10.0, 20.0], [30.0, 40.0]]> : tensor<2x2xf32>
  %wv = nunc.constant dense<[[-1.0, -2.0], [-3.0, -4.0]]> : tensor<2x2xf32>
  %bq = nunc.constant dense<[0.5, 1.5]> : tensor<2xf32>
  %bk = nunc.constant dense<[5.0, 15.0]> : tensor<2xf32>
  %bv = nunc.constant dense<[-0.5, -1.5]> : tensor<2xf32>
  %q = nunc.linear %x, %wq bias %bq : tensor<2xf32> : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %k = nunc.linear %x, %wk bias %bk : tensor<2xf32> : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %v = nunc.linear %x, %wv bias %bv : tensor<2xf32> : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %a = nunc.attention %q, %k, %v mask %m : tensor<1x1x1x3xf32> {num_heads = 2 : i64, scale = 0.5 : f32} : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>
  return %a : tensor<1x3x2xf32>
}

// -----

// int8 projections: the s8 columns side by side, the per-column scales
// concatenated (a per-tensor weight scale repeated per column), one
// dynamic quantization of the input for all three.
// CHECK-LABEL: func.func @quantized(
// CHECK: %[[I:.*]] = nunc.constant dense<{{\[}}[1, -2, 5, 6, 9, 10], [3, 4, -7, 8, 11, -12]]> : tensor<2x6xi8>
// CHECK-NEXT: %[[W:.*]] = quant.scast %[[I]] : tensor<2x6xi8> to tensor<2x6x!quant.uniform<i8<-127:127>:f32:1, {5.000000e-01,2.500000e-01,1.250000e-01,1.000000e+00,6.250000e-02,6.250000e-02}>>
// CHECK-NEXT: %[[QKV:.*]] = nunc.quantized_linear %arg0, %[[W]] : tensor<1x3x2xf32>, tensor<2x6x!quant.uniform<i8<-127:127>:f32:1, {{.*}}>> -> tensor<1x3x6xf32>
// CHECK-NEXT: nunc.attention %[[QKV]], %[[QKV]], %[[QKV]] {input_offsets = array<i64: 0, 2, 4>, input_width = 2 : i64, num_heads = 1 : i64, scale = 1.000000e+00 : f32}
// CHECK-NOT: nunc.quantized_linear
func.func @quantized(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %iq = nunc.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi8>
  %ik = nunc.constant dense<[[5, 6], [-7, 8]]> : tensor<2x2xi8>
  %iv = nunc.constant dense<[[9, 10], [11, -12]]> : tensor<2x2xi8>
  %wq = quant.scast %iq : tensor<2x2xi8> to tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25}>>
  %wk = quant.scast %ik : tensor<2x2xi8> to tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.125, 1.0}>>
  %wv = quant.scast %iv : tensor<2x2xi8> to tensor<2x2x!quant.uniform<i8<-127:127>:f32, 0.0625>>
  %q = nunc.quantized_linear %x, %wq : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25}>> -> tensor<1x3x2xf32>
  %k = nunc.quantized_linear %x, %wk : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.125, 1.0}>> -> tensor<1x3x2xf32>
  %v = nunc.quantized_linear %x, %wv : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<i8<-127:127>:f32, 0.0625>> -> tensor<1x3x2xf32>
  %a = nunc.attention %q, %k, %v {num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>
  return %a : tensor<1x3x2xf32>
}

// -----

// 4-bit weights (nunc.four_bit_codes): three GEMMs, as onnxruntime's three
// f32 MatMuls (each its own sums' k blocks).
// CHECK-LABEL: func.func @four_bit(
// CHECK-COUNT-3: nunc.quantized_linear %arg0
// CHECK: nunc.attention %{{.*}}, %{{.*}}, %{{.*}} {num_heads
func.func @four_bit(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %iq = nunc.constant {nunc.four_bit_codes} dense<[[1, -2], [3, 4]]> : tensor<2x2xi8>
  %ik = nunc.constant {nunc.four_bit_codes} dense<[[5, 6], [-7, 7]]> : tensor<2x2xi8>
  %iv = nunc.constant {nunc.four_bit_codes} dense<[[-8, 1], [2, -3]]> : tensor<2x2xi8>
  %wq = quant.scast %iq : tensor<2x2xi8> to tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25}>>
  %wk = quant.scast %ik : tensor<2x2xi8> to tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.125, 1.0}>>
  %wv = quant.scast %iv : tensor<2x2xi8> to tensor<2x2x!quant.uniform<i8<-127:127>:f32, 0.0625>>
  %q = nunc.quantized_linear %x, %wq : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25}>> -> tensor<1x3x2xf32>
  %k = nunc.quantized_linear %x, %wk : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.125, 1.0}>> -> tensor<1x3x2xf32>
  %v = nunc.quantized_linear %x, %wv : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<i8<-127:127>:f32, 0.0625>> -> tensor<1x3x2xf32>
  %a = nunc.attention %q, %k, %v {num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>
  return %a : tensor<1x3x2xf32>
}

// -----

// u8 weights with zero points (quantize_dynamic QUInt8): the bytes side by
// side, scales and zero points concatenated (per-tensor ones repeated).
// CHECK-LABEL: func.func @quantized_u8(
// CHECK: %[[W:.*]] = quant.scast %{{.*}} : tensor<2x6xi8> to tensor<2x6x!quant.uniform<u8:f32:1, {5.000000e-01:3,2.500000e-01:200,1.250000e-01:128,1.250000e-01:128,6.250000e-02,1.000000e+00:255}>>
// CHECK-NEXT: %[[QKV:.*]] = nunc.quantized_linear %arg0, %[[W]] {activation_quantization = "dynamic_per_tensor"}
// CHECK-NEXT: nunc.attention %[[QKV]], %[[QKV]], %[[QKV]] {input_offsets = array<i64: 0, 2, 4>
// CHECK-NOT: nunc.quantized_linear
func.func @quantized_u8(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %iq = nunc.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi8>
  %ik = nunc.constant dense<[[5, 6], [-7, 8]]> : tensor<2x2xi8>
  %iv = nunc.constant dense<[[9, 10], [11, -12]]> : tensor<2x2xi8>
  %wq = quant.scast %iq : tensor<2x2xi8> to tensor<2x2x!quant.uniform<u8:f32:1, {0.5:3, 0.25:200}>>
  %wk = quant.scast %ik : tensor<2x2xi8> to tensor<2x2x!quant.uniform<u8:f32, 0.125:128>>
  %wv = quant.scast %iv : tensor<2x2xi8> to tensor<2x2x!quant.uniform<u8:f32:1, {0.0625, 1.0:255}>>
  %q = nunc.quantized_linear %x, %wq {activation_quantization = "dynamic_per_tensor"} : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<u8:f32:1, {0.5:3, 0.25:200}>> -> tensor<1x3x2xf32>
  %k = nunc.quantized_linear %x, %wk {activation_quantization = "dynamic_per_tensor"} : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<u8:f32, 0.125:128>> -> tensor<1x3x2xf32>
  %v = nunc.quantized_linear %x, %wv {activation_quantization = "dynamic_per_tensor"} : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<u8:f32:1, {0.0625, 1.0:255}>> -> tensor<1x3x2xf32>
  %a = nunc.attention %q, %k, %v {num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>
  return %a : tensor<1x3x2xf32>
}

// -----

// s8 and u8 projections do not mix.
// CHECK-LABEL: func.func @mixed_signedness(
// CHECK-COUNT-3: nunc.quantized_linear
// CHECK-NOT: input_offsets
func.func @mixed_signedness(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %i = nunc.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi8>
  %ws = quant.scast %i : tensor<2x2xi8> to tensor<2x2x!quant.uniform<i8:f32, 0.5>>
  %wu = quant.scast %i : tensor<2x2xi8> to tensor<2x2x!quant.uniform<u8:f32, 0.5>>
  %q = nunc.quantized_linear %x, %ws {activation_quantization = "dynamic_per_tensor"} : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<i8:f32, 0.5>> -> tensor<1x3x2xf32>
  %k = nunc.quantized_linear %x, %wu {activation_quantization = "dynamic_per_tensor"} : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<u8:f32, 0.5>> -> tensor<1x3x2xf32>
  %v = nunc.quantized_linear %x, %ws {activation_quantization = "dynamic_per_tensor"} : tensor<1x3x2xf32>, tensor<2x2x!quant.uniform<i8:f32, 0.5>> -> tensor<1x3x2xf32>
  %a = nunc.attention %q, %k, %v {num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>
  return %a : tensor<1x3x2xf32>
}

// -----

// Left alone: K and V from another input (cross-attention), projections
// with different activations, a projection with a second use, and a
// projection with a residual.
// CHECK-LABEL: func.func @unfused(
// CHECK-COUNT-12: nunc.linear
// CHECK-NOT: input_offsets
func.func @unfused(%x: tensor<1x3x2xf32>, %y: tensor<1x3x2xf32>) -> (tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>) {
  %w = nunc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %q1 = nunc.linear %x, %w : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %k1 = nunc.linear %y, %w : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %v1 = nunc.linear %y, %w : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %a1 = nunc.attention %q1, %k1, %v1 {num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>
  %q2 = nunc.linear %x, %w {activation = "relu"} : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %k2 = nunc.linear %x, %w : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %v2 = nunc.linear %x, %w : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %a2 = nunc.attention %q2, %k2, %v2 {num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>
  %q3 = nunc.linear %x, %w : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %k3 = nunc.linear %x, %w : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %v3 = nunc.linear %x, %w : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %a3 = nunc.attention %q3, %k3, %v3 {num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>
  %q4 = nunc.linear %x, %w residual %y : tensor<1x3x2xf32> : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %k4 = nunc.linear %x, %w residual %y : tensor<1x3x2xf32> : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %v4 = nunc.linear %x, %w residual %y : tensor<1x3x2xf32> : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
  %a4 = nunc.attention %q4, %k4, %v4 {num_heads = 1 : i64, scale = 1.0 : f32} : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>
  return %a1, %a2, %a3, %v3, %a4 : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>
}
