// RUN: nunc-opt %s -split-input-file --nunc-remove-double-qdq-pairs | FileCheck %s

// Two u8 pairs in a row, (0.02, 100) covering [-2, 3.1] and (0.02, 150)
// covering [-3, 2.1]: one pair on the common range [-2, 2.1], scale
// 4.1 / 255 = 0.0160784312, zero point round(2 / that) = round(124.39) =
// 124 (onnxruntime's DoubleQDQPairsRemover).

// CHECK-LABEL: func.func @different_grids(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>
// CHECK-DAG: %[[S:.*]] = nunc.constant dense<0.0160784312> : tensor<f32>
// CHECK-DAG: %[[Z:.*]] = nunc.constant dense<124> : tensor<ui8>
// CHECK: %[[Q:.*]] = nunc.quantize_linear %[[X]], %[[S]], %[[Z]]
// CHECK-NEXT: %[[D:.*]] = nunc.dequantize_linear %[[Q]], %[[S]], %[[Z]]
// CHECK-NEXT: return %[[D]]
func.func @different_grids(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = nunc.constant dense<0.02> : tensor<f32>
  %z1 = nunc.constant dense<100> : tensor<ui8>
  %z2 = nunc.constant dense<150> : tensor<ui8>
  %q1 = nunc.quantize_linear %x, %s, %z1 : tensor<ui8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %d1 = nunc.dequantize_linear %q1, %s, %z1 : tensor<ui8> : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  %q2 = nunc.quantize_linear %d1, %s, %z2 : tensor<ui8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %d2 = nunc.dequantize_linear %q2, %s, %z2 : tensor<ui8> : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  return %d2 : tensor<4xf32>
}

// -----

// The same s8 grid twice (separate constants): the last DequantizeLinear
// reads the first QuantizeLinear, its grid unchanged.

// CHECK-LABEL: func.func @same_grid(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>
// CHECK: %[[Q:.*]] = nunc.quantize_linear %[[X]]
// CHECK-NEXT: %[[D:.*]] = nunc.dequantize_linear %[[Q]], %{{.*}}, %{{.*}} : tensor<i8> : tensor<4xi8>, tensor<f32> -> tensor<4xf32>
// CHECK-NEXT: return %[[D]]
func.func @same_grid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s1 = nunc.constant dense<0.02> : tensor<f32>
  %z1 = nunc.constant dense<-3> : tensor<i8>
  %s2 = nunc.constant dense<0.02> : tensor<f32>
  %z2 = nunc.constant dense<-3> : tensor<i8>
  %q1 = nunc.quantize_linear %x, %s1, %z1 : tensor<i8> {output_element_type = i8} : tensor<4xf32>, tensor<f32> -> tensor<4xi8>
  %d1 = nunc.dequantize_linear %q1, %s1, %z1 : tensor<i8> : tensor<4xi8>, tensor<f32> -> tensor<4xf32>
  %q2 = nunc.quantize_linear %d1, %s2, %z2 : tensor<i8> {output_element_type = i8} : tensor<4xf32>, tensor<f32> -> tensor<4xi8>
  %d2 = nunc.dequantize_linear %q2, %s2, %z2 : tensor<i8> : tensor<4xi8>, tensor<f32> -> tensor<4xf32>
  return %d2 : tensor<4xf32>
}

// -----

// Left as written, as onnxruntime leaves them: the middle values read by
// another op too, a graph output among them, a pair without a zero point,
// a u8 pair followed by an s8 one, and a pair whose Q and DQ grids differ.

// CHECK-LABEL: func.func @left_as_written(
// CHECK-COUNT-10: nunc.quantize_linear
// CHECK-NOT: nunc.quantize_linear
func.func @left_as_written(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xui8>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %s = nunc.constant dense<0.02> : tensor<f32>
  %t = nunc.constant dense<0.03> : tensor<f32>
  %z = nunc.constant dense<100> : tensor<ui8>
  %w = nunc.constant dense<120> : tensor<ui8>
  %v = nunc.constant dense<-20> : tensor<i8>
  // The middle values read by a Relu too.
  %a1 = nunc.quantize_linear %x, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %a2 = nunc.dequantize_linear %a1, %s, %z : tensor<ui8> : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  %ar = nunc.relu %a2 : tensor<4xf32> -> tensor<4xf32>
  %a3 = nunc.quantize_linear %a2, %t, %w : tensor<ui8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %a4 = nunc.dequantize_linear %a3, %t, %w : tensor<ui8> : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  // The first codes a graph output too.
  %b1 = nunc.quantize_linear %x, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %b2 = nunc.dequantize_linear %b1, %s, %z : tensor<ui8> : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  %b3 = nunc.quantize_linear %b2, %t, %w : tensor<ui8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %b4 = nunc.dequantize_linear %b3, %t, %w : tensor<ui8> : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  // No zero point on the first pair.
  %c1 = nunc.quantize_linear %x, %s {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %c2 = nunc.dequantize_linear %c1, %s : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  %c3 = nunc.quantize_linear %c2, %t, %w : tensor<ui8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %c4 = nunc.dequantize_linear %c3, %t, %w : tensor<ui8> : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  // u8, then s8.
  %d1 = nunc.quantize_linear %x, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %d2 = nunc.dequantize_linear %d1, %s, %z : tensor<ui8> : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  %d3 = nunc.quantize_linear %d2, %t, %v : tensor<i8> {output_element_type = i8} : tensor<4xf32>, tensor<f32> -> tensor<4xi8>
  %d4 = nunc.dequantize_linear %d3, %t, %v : tensor<i8> : tensor<4xi8>, tensor<f32> -> tensor<4xf32>
  // The second pair's Q and DQ on different grids.
  %e1 = nunc.quantize_linear %x, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %e2 = nunc.dequantize_linear %e1, %s, %z : tensor<ui8> : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  %e3 = nunc.quantize_linear %e2, %t, %w : tensor<ui8> {output_element_type = ui8} : tensor<4xf32>, tensor<f32> -> tensor<4xui8>
  %e4 = nunc.dequantize_linear %e3, %s, %w : tensor<ui8> : tensor<4xui8>, tensor<f32> -> tensor<4xf32>
  return %a4, %ar, %b4, %b1, %c4, %d4, %e4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xui8>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
