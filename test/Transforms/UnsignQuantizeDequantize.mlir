// RUN: nunc-opt %s -split-input-file --nunc-unsign-quantize-dequantize | FileCheck %s

// s8 codes read only by DequantizeLinears: u8 codes, every zero point 128
// further on (none counts as 0; a reader with a zero point of its own moves
// it as far).
// CHECK-LABEL: func.func @pair(
// CHECK-DAG: %[[S:.*]] = nunc.constant dense<2.500000e-01> : tensor<f32>
// CHECK-DAG: %[[ZQ:.*]] = nunc.constant dense<125> : tensor<ui8>
// CHECK-DAG: %[[ZB:.*]] = nunc.constant dense<133> : tensor<ui8>
// CHECK: %[[Q:.*]] = nunc.quantize_linear %{{.*}}, %[[S]], %[[ZQ]] : tensor<ui8> {output_element_type = ui8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xui8>
// CHECK: nunc.dequantize_linear %[[Q]], %[[S]], %[[ZQ]] : tensor<ui8> : tensor<2x3xui8>, tensor<f32> -> tensor<2x3xf32>
// CHECK: nunc.dequantize_linear %[[Q]], %[[S]], %[[ZB]] : tensor<ui8> : tensor<2x3xui8>, tensor<f32> -> tensor<2x3xf32>
// CHECK-NOT: i8>
func.func @pair(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = nunc.constant dense<0.25> : tensor<f32>
  %z = nunc.constant dense<-3> : tensor<i8>
  %z2 = nunc.constant dense<5> : tensor<i8>
  %q = nunc.quantize_linear %x, %s, %z : tensor<i8> {output_element_type = i8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi8>
  %a = nunc.dequantize_linear %q, %s, %z : tensor<i8> : tensor<2x3xi8>, tensor<f32> -> tensor<2x3xf32>
  %b = nunc.dequantize_linear %q, %s, %z2 : tensor<i8> : tensor<2x3xi8>, tensor<f32> -> tensor<2x3xf32>
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// No zero point (0), and 16-bit codes (32768 further on).
// CHECK-LABEL: func.func @implicit_zero_and_s16(
// CHECK-DAG: nunc.constant dense<128> : tensor<ui8>
// CHECK-DAG: nunc.constant dense<32758> : tensor<ui16>
// CHECK: nunc.quantize_linear {{.*}} -> tensor<4xui8>
// CHECK: nunc.quantize_linear {{.*}} -> tensor<4xui16>
// CHECK-NOT: xi8>
// CHECK-NOT: xi16>
func.func @implicit_zero_and_s16(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %q = nunc.quantize_linear %x, %s {output_element_type = i8} : tensor<4xf32>, tensor<f32> -> tensor<4xi8>
  %a = nunc.dequantize_linear %q, %s : tensor<4xi8>, tensor<f32> -> tensor<4xf32>
  %z16 = nunc.constant dense<-10> : tensor<i16>
  %q16 = nunc.quantize_linear %x, %s, %z16 : tensor<i16> {output_element_type = i16} : tensor<4xf32>, tensor<f32> -> tensor<4xi16>
  %b = nunc.dequantize_linear %q16, %s, %z16 : tensor<i16> : tensor<4xi16>, tensor<f32> -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// Codes that leave the pairs keep their type: a graph output, an integer
// op's input (MatMulInteger), per-axis quantization, a computed zero point,
// and u8 codes (nothing to do).
// CHECK-LABEL: func.func @stays(
// CHECK: nunc.quantize_linear {{.*}} -> tensor<2x3xi8>
// CHECK: nunc.quantize_linear {{.*}} -> tensor<2x3xi8>
// CHECK: nunc.quantize_linear {{.*}} -> tensor<2x3xi8>
// CHECK: nunc.quantize_linear {{.*}} -> tensor<2x3xi8>
// CHECK: nunc.quantize_linear {{.*}} -> tensor<2x3xui8>
func.func @stays(%x: tensor<2x3xf32>, %w: tensor<3x2xi8>, %zc: tensor<i8>) -> (tensor<2x3xi8>, tensor<2x3xf32>, tensor<2x2xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = nunc.constant dense<0.25> : tensor<f32>
  %z = nunc.constant dense<1> : tensor<i8>
  %q = nunc.quantize_linear %x, %s, %z : tensor<i8> {output_element_type = i8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi8>
  %a = nunc.dequantize_linear %q, %s, %z : tensor<i8> : tensor<2x3xi8>, tensor<f32> -> tensor<2x3xf32>
  %q2 = nunc.quantize_linear %x, %s, %z : tensor<i8> {output_element_type = i8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi8>
  %m = nunc.matmul_integer %q2, %w : tensor<2x3xi8>, tensor<3x2xi8> -> tensor<2x2xi32>
  %sa = nunc.constant dense<[0.25, 0.5, 1.0]> : tensor<3xf32>
  %za = nunc.constant dense<[0, 1, 2]> : tensor<3xi8>
  %q3 = nunc.quantize_linear %x, %sa, %za : tensor<3xi8> {output_element_type = i8} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi8>
  %b = nunc.dequantize_linear %q3, %sa, %za : tensor<3xi8> : tensor<2x3xi8>, tensor<3xf32> -> tensor<2x3xf32>
  %q4 = nunc.quantize_linear %x, %s, %zc : tensor<i8> {output_element_type = i8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi8>
  %c = nunc.dequantize_linear %q4, %s, %zc : tensor<i8> : tensor<2x3xi8>, tensor<f32> -> tensor<2x3xf32>
  %zu = nunc.constant dense<7> : tensor<ui8>
  %q5 = nunc.quantize_linear %x, %s, %zu : tensor<ui8> {output_element_type = ui8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xui8>
  %d = nunc.dequantize_linear %q5, %s, %zu : tensor<ui8> : tensor<2x3xui8>, tensor<f32> -> tensor<2x3xf32>
  return %q, %a, %m, %b, %c, %d : tensor<2x3xi8>, tensor<2x3xf32>, tensor<2x2xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
