// RUN: nunc-opt %s -split-input-file --nunc-quantize-attention | FileCheck %s

// f32 operands, merged heads, D = 32, a mask: int8 products.
// CHECK-LABEL: func.func @merged_heads(
// CHECK: nunc.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {int8_products, num_heads = 2 : i64, scale = 0.176776692 : f32}
func.func @merged_heads(%q: tensor<1x17x64xf32>, %k: tensor<1x17x64xf32>, %v: tensor<1x17x64xf32>, %m: tensor<1x1x1x17xf32>) -> tensor<1x17x64xf32> {
  %y = nunc.attention %q, %k, %v mask %m : tensor<1x1x1x17xf32> {num_heads = 2 : i64, scale = 0.176776692 : f32} : tensor<1x17x64xf32>, tensor<1x17x64xf32>, tensor<1x17x64xf32> -> tensor<1x17x64xf32>
  return %y : tensor<1x17x64xf32>
}

// -----

// Packed operands (one GEMM's columns) too.
// CHECK-LABEL: func.func @packed(
// CHECK: nunc.attention {{.*}}int8_products
func.func @packed(%x: tensor<1x7x96xf32>) -> tensor<1x7x32xf32> {
  %y = nunc.attention %x, %x, %x {input_offsets = array<i64: 0, 32, 64>, input_width = 32 : i64, num_heads = 1 : i64, scale = 0.5 : f32} : tensor<1x7x96xf32>, tensor<1x7x96xf32>, tensor<1x7x96xf32> -> tensor<1x7x32xf32>
  return %y : tensor<1x7x32xf32>
}

// -----

// Heads first and grouped heads too (each task quantizes its own key and
// value head).
// CHECK-LABEL: func.func @layouts(
// CHECK: nunc.attention {{.*}}heads_major = array<i1: true, true, true, true>, int8_products
// CHECK: nunc.attention {{.*}}int8_products, kv_heads = 1 : i64
func.func @layouts(%q4: tensor<1x2x5x16xf32>, %qq: tensor<1x5x64xf32>, %k2: tensor<1x5x32xf32>) -> (tensor<1x2x5x16xf32>, tensor<1x5x64xf32>) {
  %c = nunc.attention %q4, %q4, %q4 {heads_major = array<i1: true, true, true, true>, num_heads = 2 : i64, scale = 0.5 : f32} : tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32> -> tensor<1x2x5x16xf32>
  %d = nunc.attention %qq, %k2, %k2 {kv_heads = 1 : i64, num_heads = 2 : i64, scale = 0.5 : f32} : tensor<1x5x64xf32>, tensor<1x5x32xf32>, tensor<1x5x32xf32> -> tensor<1x5x64xf32>
  return %c, %d : tensor<1x2x5x16xf32>, tensor<1x5x64xf32>
}

// -----

// A head dim of 8 (not a multiple of 16), a QDQ model's probability grid:
// each stays as it is.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: int8_products
// CHECK: return
func.func @kept(%q: tensor<1x5x16xf32>) -> (tensor<1x5x16xf32>, tensor<1x5x16xf32>) {
  %a = nunc.attention %q, %q, %q {num_heads = 2 : i64, scale = 0.5 : f32} : tensor<1x5x16xf32>, tensor<1x5x16xf32>, tensor<1x5x16xf32> -> tensor<1x5x16xf32>
  %b = nunc.attention %q, %q, %q {num_heads = 1 : i64, scale = 0.5 : f32, probs_quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x5x16xf32>, tensor<1x5x16xf32>, tensor<1x5x16xf32> -> tensor<1x5x16xf32>
  return %a, %b : tensor<1x5x16xf32>, tensor<1x5x16xf32>
}

// -----

// keep-f32 names attentions by their ONNX Softmax node (or, without ONNX
// locations, attention#<index>): those stay f32.
// RUN: nunc-opt %s -split-input-file --nunc-quantize-attention="keep-f32=/l1/Softmax,attention#2" | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @kept_by_key(
// KEEP: nunc.attention {{.*}}int8_products
// KEEP-NOT: int8_products
// KEEP: return
func.func @kept_by_key(%q: tensor<1x5x32xf32>) -> (tensor<1x5x32xf32>, tensor<1x5x32xf32>, tensor<1x5x32xf32>) {
  %a = nunc.attention %q, %q, %q {num_heads = 1 : i64, scale = 0.5 : f32} : tensor<1x5x32xf32>, tensor<1x5x32xf32>, tensor<1x5x32xf32> -> tensor<1x5x32xf32> loc(fused<#nunc.onnx_node<"Softmax", 17>>["/l0/Softmax"])
  %b = nunc.attention %q, %q, %q {num_heads = 1 : i64, scale = 0.5 : f32} : tensor<1x5x32xf32>, tensor<1x5x32xf32>, tensor<1x5x32xf32> -> tensor<1x5x32xf32> loc(fused[fused<#nunc.onnx_node<"MatMul", 17>>["/l1/MatMul"], fused<#nunc.onnx_node<"Softmax", 17>>["/l1/Softmax"]])
  %c = nunc.attention %q, %q, %q {num_heads = 1 : i64, scale = 0.5 : f32} : tensor<1x5x32xf32>, tensor<1x5x32xf32>, tensor<1x5x32xf32> -> tensor<1x5x32xf32>
  return %a, %b, %c : tensor<1x5x32xf32>, tensor<1x5x32xf32>, tensor<1x5x32xf32>
}
