// RUN: nunc-opt %s -split-input-file --nunc-fuse-activation-quantization | FileCheck %s
// RUN: nunc-opt %s -split-input-file --nunc-fuse-activation-quantization="row-alignment=8" | FileCheck %s --check-prefix=ALIGN8
// RUN: nunc-opt %s -split-input-file --nunc-fuse-activation-quantization="producer-epilogue=false" | FileCheck %s --check-prefix=NOEPI
// RUN: nunc-opt %s -split-input-file --nunc-fuse-activation-quantization="row-alignment=0" | FileCheck %s --check-prefix=OFF
// RUN: nunc-opt %s -split-input-file --nunc-fuse-activation-quantization="u8-weight-max-k=4" | FileCheck %s --check-prefix=MAXK4

// Q, K and V read the same tensor (a LayerNorm's output in a transformer)
// on the same grid: one quantize serves all three; the f32 tensor still
// feeds the residual.
// CHECK-LABEL: func.func @shared(
// CHECK: %[[LN:.*]] = nunc.relu
// CHECK-NEXT: %[[Q:.*]] = nunc.quantize %[[LN]] {quantization = !quant.uniform<u8:f32, 6.250000e-02:128>} : tensor<3x8xf32> -> tensor<3x8x!quant.uniform<u8:f32, 6.250000e-02:128>>
// CHECK-NOT: nunc.quantize %
// CHECK: nunc.quantized_linear %[[Q]], %{{.*}} {activation_quantization = "static"} : tensor<3x8x!quant.uniform<u8:f32, 6.250000e-02:128>>
// CHECK: nunc.quantized_linear %[[Q]], %{{.*}} {activation = "relu", activation_quantization = "static"} : tensor<3x8x!quant.uniform<u8:f32, 6.250000e-02:128>>
// CHECK: nunc.quantized_linear %[[Q]], %{{.*}} residual %[[LN]] : tensor<3x8xf32> {activation_quantization = "static"} : tensor<3x8x!quant.uniform<u8:f32, 6.250000e-02:128>>
// OFF-LABEL: func.func @shared(
// OFF-NOT: nunc.quantize %
// OFF-COUNT-3: input_quantization = !quant.uniform<u8:f32, 6.250000e-02:128>
func.func @shared(%x: tensor<3x8xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x8xf32>) {
  %ln = nunc.relu %x : tensor<3x8xf32> -> tensor<3x8xf32>
  %i = nunc.constant dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, -14, 15, 16], [1, 2, 3, 4], [-5, 6, 7, 8], [9, -10, 11, 12], [13, 14, -15, 16]]> : tensor<8x4xi8>
  %w = quant.scast %i : tensor<8x4xi8> to tensor<8x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.125, 1.0}>>
  %sq = nunc.constant dense<[[1, -2, 3, 4, 5, 6, -7, 8], [9, 10, 11, -12, 13, -14, 15, 16], [1, 2, 3, 4, -5, 6, 7, 8], [9, -10, 11, 12, 13, 14, -15, 16], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, -2, 2, 2, 2], [3, 3, -3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, -4, 4, 4]]> : tensor<8x8xi8>
  %ws = quant.scast %sq : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32, 0.125>>
  %q = nunc.quantized_linear %ln, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.0625:128>} : tensor<3x8xf32>, tensor<8x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.125, 1.0}>> -> tensor<3x4xf32>
  %k = nunc.quantized_linear %ln, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.0625:128>, activation = "relu"} : tensor<3x8xf32>, tensor<8x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 0.125, 1.0}>> -> tensor<3x4xf32>
  %o = nunc.quantized_linear %ln, %ws residual %ln : tensor<3x8xf32> {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.0625:128>} : tensor<3x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.125>> -> tensor<3x8xf32>
  return %q, %k, %o : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x8xf32>
}

// -----

// FFN1 (GELU) -> FFN2: the quantize of FFN1's result folds into its
// epilogue, which writes the u8 rows; FFN2 reads them. A QDQ model's output
// grid equal to the next grid folds the same way.
// CHECK-LABEL: func.func @chain(
// CHECK: %[[X:.*]] = nunc.quantize %arg0 {quantization = !quant.uniform<u8:f32, 1.250000e-01:100>}
// CHECK: %[[H:.*]] = nunc.quantized_linear %[[X]], %{{.*}} {activation = "gelu", activation_quantization = "static", output_quantization = !quant.uniform<u8:f32, 3.125000e-02:7>, u8_output} : tensor<2x8x!quant.uniform<u8:f32, 1.250000e-01:100>>, {{.*}} -> tensor<2x8x!quant.uniform<u8:f32, 3.125000e-02:7>>
// CHECK: %[[G:.*]] = nunc.quantized_linear %[[H]], %{{.*}} {activation_quantization = "static", output_quantization = !quant.uniform<u8:f32, 2.500000e-01:9>, u8_output} : tensor<2x8x!quant.uniform<u8:f32, 3.125000e-02:7>>, {{.*}} -> tensor<2x8x!quant.uniform<u8:f32, 2.500000e-01:9>>
// CHECK: nunc.quantized_linear %[[G]], %{{.*}} {activation_quantization = "static"} : tensor<2x8x!quant.uniform<u8:f32, 2.500000e-01:9>>, {{.*}} -> tensor<2x8xf32>
// CHECK-NOT: nunc.quantize %
// NOEPI-LABEL: func.func @chain(
// NOEPI-COUNT-3: nunc.quantize %
// NOEPI-NOT: u8_output
// ALIGN8-LABEL: func.func @chain(
// ALIGN8: u8_output
// ALIGN8: u8_output
func.func @chain(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %i = nunc.constant dense<[[1, -2, 3, 4, 5, 6, -7, 8], [9, 10, 11, -12, 13, -14, 15, 16], [1, 2, 3, 4, -5, 6, 7, 8], [9, -10, 11, 12, 13, 14, -15, 16], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, -2, 2, 2, 2], [3, 3, -3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, -4, 4, 4]]> : tensor<8x8xi8>
  %w = quant.scast %i : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32, 0.125>>
  %h = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>, activation = "gelu"} : tensor<2x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.125>> -> tensor<2x8xf32>
  %g = nunc.quantized_linear %h, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.03125:7>, output_quantization = !quant.uniform<u8:f32, 0.25:9>} : tensor<2x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.125>> -> tensor<2x8xf32>
  %y = nunc.quantized_linear %g, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.25:9>} : tensor<2x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.125>> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// u8 weights (zero points) read the u8 rows too, up to u8-weight-max-k (the
// target sums the rows' codes); past it (K = 8 with a maximum of 4) the GEMM keeps
// quantizing its own input, and the producer writes f32.
// CHECK-LABEL: func.func @u8_weights(
// CHECK: %[[X:.*]] = nunc.quantize %arg0 {quantization = !quant.uniform<u8:f32, 1.250000e-01:100>}
// CHECK: %[[H:.*]] = nunc.quantized_linear %[[X]], %{{.*}} {activation_quantization = "static", output_quantization = !quant.uniform<u8:f32, 3.125000e-02:7>, u8_output} : tensor<2x8x!quant.uniform<u8:f32, 1.250000e-01:100>>, tensor<8x8x!quant.uniform<u8:f32, 5.000000e-01:3>> -> tensor<2x8x!quant.uniform<u8:f32, 3.125000e-02:7>>
// CHECK: nunc.quantized_linear %[[H]], %{{.*}} {activation_quantization = "static"} : tensor<2x8x!quant.uniform<u8:f32, 3.125000e-02:7>>, tensor<8x8x!quant.uniform<u8:f32, 5.000000e-01:3>> -> tensor<2x8xf32>
// MAXK4-LABEL: func.func @u8_weights(
// MAXK4-NOT: nunc.quantize %
// MAXK4-NOT: u8_output
// MAXK4-COUNT-2: input_quantization
func.func @u8_weights(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %i = nunc.constant dense<[[1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15, 16], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [-56, 5, 5, 5, 5, 5, 5, 5], [6, 6, 6, 6, 6, 6, 6, -1]]> : tensor<8x8xi8>
  %w = quant.scast %i : tensor<8x8xi8> to tensor<8x8x!quant.uniform<u8:f32, 0.5:3>>
  %h = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<2x8xf32>, tensor<8x8x!quant.uniform<u8:f32, 0.5:3>> -> tensor<2x8xf32>
  %q = nunc.quantized_linear %h, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.03125:7>} : tensor<2x8xf32>, tensor<8x8x!quant.uniform<u8:f32, 0.5:3>> -> tensor<2x8xf32>
  return %q : tensor<2x8xf32>
}

// -----

// What stays: a producer whose f32 result has another use (%a, also read by
// a dynamic GEMM), a producer rounding to a different grid (%b), and
// (ALIGN8) GEMMs whose K is not a multiple of the alignment.
// CHECK-LABEL: func.func @stays(
// CHECK: %[[QX:.*]] = nunc.quantize %arg0 {quantization = !quant.uniform<u8:f32, 1.250000e-01:100>}
// CHECK: %[[A:.*]] = nunc.quantized_linear %[[QX]], %{{.*}} {activation_quantization = "static"} : {{.*}} -> tensor<2x4xf32>
// CHECK-NEXT: %[[QA:.*]] = nunc.quantize %[[A]] {quantization = !quant.uniform<u8:f32, 1.250000e-01:100>}
// CHECK-NEXT: %[[B:.*]] = nunc.quantized_linear %[[QA]], %{{.*}} {activation_quantization = "static", output_quantization = !quant.uniform<u8:f32, 5.000000e-01>} : {{.*}} -> tensor<2x4xf32>
// CHECK-NEXT: %[[QB:.*]] = nunc.quantize %[[B]] {quantization = !quant.uniform<u8:f32, 2.500000e-01>}
// CHECK-NEXT: nunc.quantized_linear %[[QB]]
// CHECK-NEXT: nunc.quantized_linear %[[A]], %{{.*}} : tensor<2x4xf32>
// CHECK-NOT: u8_output
// ALIGN8-LABEL: func.func @stays(
// ALIGN8-NOT: nunc.quantize %
func.func @stays(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %i = nunc.constant dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, -14, 15, 16]]> : tensor<4x4xi8>
  %w = quant.scast %i : tensor<4x4xi8> to tensor<4x4x!quant.uniform<i8:f32, 0.125>>
  %a = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<2x4xf32>, tensor<4x4x!quant.uniform<i8:f32, 0.125>> -> tensor<2x4xf32>
  %b = nunc.quantized_linear %a, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>, output_quantization = !quant.uniform<u8:f32, 0.5:0>} : tensor<2x4xf32>, tensor<4x4x!quant.uniform<i8:f32, 0.125>> -> tensor<2x4xf32>
  %c = nunc.quantized_linear %b, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.25:0>} : tensor<2x4xf32>, tensor<4x4x!quant.uniform<i8:f32, 0.125>> -> tensor<2x4xf32>
  %d = nunc.quantized_linear %a, %w : tensor<2x4xf32>, tensor<4x4x!quant.uniform<i8:f32, 0.125>> -> tensor<2x4xf32>
  return %c, %d : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Shapes inference has not pinned: an unranked input or a dynamic K stays
// as it is (the code generator needs static shapes anyway).
// CHECK-LABEL: func.func @unknown_shapes(
// CHECK-NOT: nunc.quantize %
// CHECK-COUNT-2: input_quantization
func.func @unknown_shapes(%x: tensor<*xf32>, %y: tensor<2x?xf32>, %w: tensor<?x4x!quant.uniform<i8:f32, 0.125>>) -> (tensor<*xf32>, tensor<2x4xf32>) {
  %i = nunc.constant dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, -14, 15, 16]]> : tensor<4x4xi8>
  %v = quant.scast %i : tensor<4x4xi8> to tensor<4x4x!quant.uniform<i8:f32, 0.125>>
  %a = nunc.quantized_linear %x, %v {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<*xf32>, tensor<4x4x!quant.uniform<i8:f32, 0.125>> -> tensor<*xf32>
  %b = nunc.quantized_linear %y, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<2x?xf32>, tensor<?x4x!quant.uniform<i8:f32, 0.125>> -> tensor<2x4xf32>
  return %a, %b : tensor<*xf32>, tensor<2x4xf32>
}

// -----

// An attention whose only reader is the quantize in front of the next GEMM
// (a static transformer's output projection) writes that grid's codes
// itself; one with another reader, one rounding to another grid, a
// heads-first result and an attention on u8 codes without a grid of its
// own on P V keep their quantize (a GEMM whose input grid holds fewer than
// 256 codes quantizes its own input). Without the epilogue folds none
// moves.
// CHECK-LABEL: func.func @attention(
// CHECK: %[[A:.*]] = nunc.attention %arg0, %arg0, %arg0 {num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 1.250000e-01:100>, scale = 2.500000e-01 : f32, u8_output} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8x!quant.uniform<u8:f32, 1.250000e-01:100>>
// CHECK: nunc.quantized_linear %[[A]], %{{.*}} {activation_quantization = "static"} : tensor<1x3x8x!quant.uniform<u8:f32, 1.250000e-01:100>>
// CHECK: %[[B:.*]] = nunc.attention %arg0, %arg0, %arg0 {num_heads = 2 : i64, scale = 2.500000e-01 : f32} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
// CHECK: nunc.quantize %[[B]]
// CHECK: %[[C:.*]] = nunc.attention %arg0, %arg0, %arg0 {num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 2.500000e-01>, scale = 2.500000e-01 : f32} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
// CHECK: nunc.quantize %[[C]]
// CHECK: %[[D:.*]] = nunc.attention %arg1, %arg1, %arg1 {heads_major = array<i1: true, true, true, true>, num_heads = 2 : i64, scale = 2.500000e-01 : f32}
// CHECK: nunc.quantize %[[D]]
// CHECK: %[[E:.*]] = nunc.attention %arg0, %arg0, %arg0 {num_heads = 2 : i64, scale = 2.500000e-01 : f32} :
// CHECK-NEXT: nunc.quantized_linear %[[E]], %{{.*}} {activation_quantization = "static", input_quantization = !quant.uniform<u8<0:254>:f32, 1.250000e-01:100>}
// CHECK: %[[F:.*]] = nunc.attention %arg2, %arg2, %arg2 {num_heads = 2 : i64, probs_quantization = !quant.uniform<u8:f32, 0.0039215686274509803>, scale = 2.500000e-01 : f32} :
// CHECK: nunc.quantize %[[F]]
// ALIGN8-LABEL: func.func @attention(
// ALIGN8: u8_output
// NOEPI-LABEL: func.func @attention(
// NOEPI-NOT: u8_output
// NOEPI-COUNT-5: nunc.quantize %
func.func @attention(%x: tensor<1x3x8xf32>, %h: tensor<1x2x3x4xf32>, %codes: tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>) -> (tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x8xf32>, tensor<1x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>) {
  %i = nunc.constant dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, -14, 15, 16], [1, 2, 3, 4], [-5, 6, 7, 8], [9, -10, 11, 12], [13, 14, -15, 16]]> : tensor<8x4xi8>
  %w = quant.scast %i : tensor<8x4xi8> to tensor<8x4x!quant.uniform<i8:f32, 0.125>>
  %j = nunc.constant dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, -14, 15, 16]]> : tensor<4x4xi8>
  %w4 = quant.scast %j : tensor<4x4xi8> to tensor<4x4x!quant.uniform<i8:f32, 0.125>>
  %a = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 0.25 : f32} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  %pa = nunc.quantized_linear %a, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<1x3x8xf32>, tensor<8x4x!quant.uniform<i8:f32, 0.125>> -> tensor<1x3x4xf32>
  %b = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 0.25 : f32} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  %pb = nunc.quantized_linear %b, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<1x3x8xf32>, tensor<8x4x!quant.uniform<i8:f32, 0.125>> -> tensor<1x3x4xf32>
  %c = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 0.25 : f32, output_quantization = !quant.uniform<u8:f32, 0.25:0>} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  %pc = nunc.quantized_linear %c, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<1x3x8xf32>, tensor<8x4x!quant.uniform<i8:f32, 0.125>> -> tensor<1x3x4xf32>
  %d = nunc.attention %h, %h, %h {num_heads = 2 : i64, scale = 0.25 : f32, heads_major = array<i1: true, true, true, true>} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  %pd = nunc.quantized_linear %d, %w4 {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<1x2x3x4xf32>, tensor<4x4x!quant.uniform<i8:f32, 0.125>> -> tensor<1x2x3x4xf32>
  %e = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 0.25 : f32} : tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  %pe = nunc.quantized_linear %e, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8<0:254>:f32, 0.125:100>} : tensor<1x3x8xf32>, tensor<8x4x!quant.uniform<i8:f32, 0.125>> -> tensor<1x3x4xf32>
  %f = nunc.attention %codes, %codes, %codes {num_heads = 2 : i64, scale = 0.25 : f32, probs_quantization = !quant.uniform<u8:f32, 0.0039215686274509803>} : tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x3x8x!quant.uniform<u8:f32, 0.5:128>> -> tensor<1x3x8xf32>
  %pf = nunc.quantized_linear %f, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<1x3x8xf32>, tensor<8x4x!quant.uniform<i8:f32, 0.125>> -> tensor<1x3x4xf32>
  return %pa, %pb, %b, %pc, %pd, %pe, %pf : tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x8xf32>, tensor<1x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>
}
