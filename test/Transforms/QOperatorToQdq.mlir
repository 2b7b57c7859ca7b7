// RUN: nunc-opt %s -split-input-file --nunc-qoperator-to-qdq | FileCheck %s

// A QLinearConv with a constant weight becomes quantize_static's QDQ form:
// DequantizeLinear of the input and (per output channel, axis 0) of the
// weight, an f32 Conv with the attributes, the i32 bias as f32 with the
// scale fl(sx sw[m]) (0.5 x 0.25 and 0.5 x 0.125: 8 -> 1, -16 -> -1), and a
// QuantizeLinear to y's grid. (The input's Q/DQ pair then fuses in
// nunc-fuse-quantize-dequantize as any QDQ model's.)

// CHECK-LABEL: func.func @qlinear_conv(
// CHECK-SAME: %[[X:.*]]: tensor<1x2x5x5xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{.*}}> : tensor<2x2x3x3xi8>
// CHECK-DAG: %[[SW:.*]] = nunc.constant dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[ZW:.*]] = nunc.constant dense<0> : tensor<2xi8>
// CHECK-DAG: %[[SY:.*]] = nunc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[ZY:.*]] = nunc.constant dense<3> : tensor<ui8>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[XQ:.*]] = nunc.quantize_linear %[[X]]
// CHECK-DAG: %[[XF:.*]] = nunc.dequantize_linear %[[XQ]], %{{.*}}, %{{.*}} : tensor<ui8> : tensor<1x2x5x5xui8>
// CHECK-DAG: %[[WF:.*]] = nunc.dequantize_linear %[[W]], %[[SW]], %[[ZW]] : tensor<2xi8> {axis = 0 : i64} : tensor<2x2x3x3xi8>, tensor<2xf32> -> tensor<2x2x3x3xf32>
// CHECK: %[[C:.*]] = nunc.conv %[[XF]], %[[WF]], %[[B]] : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 1>} : tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x3x3xf32>
// CHECK: %[[Y:.*]] = nunc.quantize_linear %[[C]], %[[SY]], %[[ZY]] : tensor<ui8> {output_element_type = ui8} : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xui8>
// CHECK: return %[[Y]]
func.func @qlinear_conv(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xui8> {
  %sx = nunc.constant dense<0.5> : tensor<f32>
  %zx = nunc.constant dense<128> : tensor<ui8>
  %w = nunc.constant dense<[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[-1, -2, -3], [-4, -5, -6], [-7, -8, -9]]], [[[9, 8, 7], [6, 5, 4], [3, 2, 1]], [[0, 1, 0], [1, 0, 1], [0, 1, 0]]]]> : tensor<2x2x3x3xi8>
  %sw = nunc.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %zw = nunc.constant dense<0> : tensor<2xi8>
  %sy = nunc.constant dense<2.0> : tensor<f32>
  %zy = nunc.constant dense<3> : tensor<ui8>
  %b = nunc.constant dense<[8, -16]> : tensor<2xi32>
  %q = nunc.quantize_linear %x, %sx, %zx : tensor<ui8> {output_element_type = ui8} : tensor<1x2x5x5xf32>, tensor<f32> -> tensor<1x2x5x5xui8>
  %y = nunc.qlinear_conv %q, %sx, %zx, %w, %sw, %zw, %sy, %zy, %b {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 1>} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<2x2x3x3xi8>, tensor<2xf32>, tensor<2xi8>, tensor<f32>, tensor<ui8>, tensor<2xi32>) -> tensor<1x2x3x3xui8>
  return %y : tensor<1x2x3x3xui8>
}

// -----

// A weight computed at run time stays a QLinearConv (the exact generic
// kernel runs it).

// CHECK-LABEL: func.func @qlinear_conv_runtime_weight(
// CHECK: nunc.qlinear_conv
// CHECK-NOT: nunc.conv
func.func @qlinear_conv_runtime_weight(%x: tensor<1x2x5x5xui8>, %w: tensor<2x2x3x3xi8>) -> tensor<1x2x3x3xui8> {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %z = nunc.constant dense<128> : tensor<ui8>
  %zw = nunc.constant dense<0> : tensor<i8>
  %y = nunc.qlinear_conv %x, %s, %z, %w, %s, %zw, %s, %z {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<2x2x3x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xui8>
  return %y : tensor<1x2x3x3xui8>
}


// -----

// Data movement on u8 codes whose grid the producer names (a QuantizeLinear
// here; QLinearConv and QLinearMatMul alike) runs on their dequantized
// values between a Q/DQ pair of that grid, as the QDQ form has it: the
// Reshape and the Transpose each get one, in order. MaxPool too (dequantizing
// is increasing, so the max commutes).

// CHECK-LABEL: func.func @moves_of_quantized(
// CHECK-SAME: %[[X:.*]]: tensor<2x6xf32>
// CHECK: %[[Q:.*]] = nunc.quantize_linear %[[X]], %[[S:.*]], %[[Z:.*]] : tensor<ui8>
// CHECK: %[[D1:.*]] = nunc.dequantize_linear %[[Q]], %[[S]], %[[Z]] : tensor<ui8> : tensor<2x6xui8>, tensor<f32> -> tensor<2x6xf32>
// CHECK: %[[R:.*]] = nunc.reshape %[[D1]], %{{.*}} : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<2x3x2xf32>
// CHECK: %[[Q2:.*]] = nunc.quantize_linear %[[R]], %[[S]], %[[Z]] : tensor<ui8> {output_element_type = ui8} : tensor<2x3x2xf32>, tensor<f32> -> tensor<2x3x2xui8>
// CHECK: %[[D2:.*]] = nunc.dequantize_linear %[[Q2]], %[[S]], %[[Z]]
// CHECK: %[[T:.*]] = nunc.transpose %[[D2]] {perm = array<i64: 1, 0, 2>} : tensor<2x3x2xf32> -> tensor<3x2x2xf32>
// CHECK: %[[Q3:.*]] = nunc.quantize_linear %[[T]], %[[S]], %[[Z]] : tensor<ui8> {output_element_type = ui8} : tensor<3x2x2xf32>, tensor<f32> -> tensor<3x2x2xui8>
// CHECK: return %[[Q3]]
func.func @moves_of_quantized(%x: tensor<2x6xf32>) -> tensor<3x2x2xui8> {
  %s = nunc.constant dense<0.25> : tensor<f32>
  %z = nunc.constant dense<7> : tensor<ui8>
  %shape = nunc.constant dense<[2, 3, 2]> : tensor<3xi64>
  %q = nunc.quantize_linear %x, %s, %z : tensor<ui8> {output_element_type = ui8} : tensor<2x6xf32>, tensor<f32> -> tensor<2x6xui8>
  %r = nunc.reshape %q, %shape : (tensor<2x6xui8>, tensor<3xi64>) -> tensor<2x3x2xui8>
  %t = nunc.transpose %r {perm = array<i64: 1, 0, 2>} : tensor<2x3x2xui8> -> tensor<3x2x2xui8>
  return %t : tensor<3x2x2xui8>
}

// -----

// u8 codes of a graph input (their grid unknown until a DequantizeLinear
// names it): the MaxPool moves to the dequantized values, between a pair of
// the DequantizeLinear's grid.

// CHECK-LABEL: func.func @dequantize_of_max_pool(
// CHECK-SAME: %[[X:.*]]: tensor<1x2x4x4xui8>
// CHECK: %[[D:.*]] = nunc.dequantize_linear %[[X]], %[[S:.*]], %[[Z:.*]] : tensor<ui8> : tensor<1x2x4x4xui8>, tensor<f32> -> tensor<1x2x4x4xf32>
// CHECK: %[[P:.*]] = nunc.max_pool %[[D]] {{.*}} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
// CHECK: %[[Q:.*]] = nunc.quantize_linear %[[P]], %[[S]], %[[Z]]
// CHECK: %[[Y:.*]] = nunc.dequantize_linear %[[Q]], %[[S]], %[[Z]]
// CHECK: return %[[Y]]
func.func @dequantize_of_max_pool(%x: tensor<1x2x4x4xui8>) -> tensor<1x2x2x2xf32> {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %z = nunc.constant dense<128> : tensor<ui8>
  %p = nunc.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xui8> -> tensor<1x2x2x2xui8>
  %y = nunc.dequantize_linear %p, %s, %z : tensor<ui8> : tensor<1x2x2x2xui8>, tensor<f32> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// A nearest Resize copies codes (a QOperator FPN's upsampling before a
// QLinearAdd): it moves to the dequantized values between a pair, as
// MaxPool does. One that crops (tf_crop_and_resize) writes its
// extrapolation value, 0, as a code: its DequantizeLinear stays.

// CHECK-LABEL: func.func @dequantize_of_resize(
// CHECK-SAME: %[[X:.*]]: tensor<1x2x2x2xui8>
// CHECK: %[[D:.*]] = nunc.dequantize_linear %[[X]], %[[S:.*]], %[[Z:.*]] : tensor<ui8> : tensor<1x2x2x2xui8>, tensor<f32> -> tensor<1x2x2x2xf32>
// CHECK: %[[R:.*]] = nunc.resize %[[D]] scales %{{.*}} : tensor<1x2x2x2xf32> -> tensor<1x2x4x4xf32>
// CHECK: %[[Q:.*]] = nunc.quantize_linear %[[R]], %[[S]], %[[Z]]
// CHECK: %[[Y:.*]] = nunc.dequantize_linear %[[Q]], %[[S]], %[[Z]]
// CHECK: %[[L:.*]] = nunc.resize %[[X]] roi {{.*}} {coordinate_transformation_mode = "tf_crop_and_resize"} : tensor<1x2x2x2xui8> -> tensor<1x2x4x4xui8>
// CHECK: %[[LD:.*]] = nunc.dequantize_linear %[[L]], %[[S]], %[[Z]]
// CHECK: return %[[Y]], %[[LD]]
func.func @dequantize_of_resize(%x: tensor<1x2x2x2xui8>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %z = nunc.constant dense<128> : tensor<ui8>
  %scales = nunc.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %r = nunc.resize %x scales %scales : tensor<4xf32> : tensor<1x2x2x2xui8> -> tensor<1x2x4x4xui8>
  %y = nunc.dequantize_linear %r, %s, %z : tensor<ui8> : tensor<1x2x4x4xui8>, tensor<f32> -> tensor<1x2x4x4xf32>
  %roi = nunc.constant dense<[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]> : tensor<8xf32>
  %l = nunc.resize %x roi %roi : tensor<8xf32> scales %scales : tensor<4xf32> {coordinate_transformation_mode = "tf_crop_and_resize"} : tensor<1x2x2x2xui8> -> tensor<1x2x4x4xui8>
  %ly = nunc.dequantize_linear %l, %s, %z : tensor<ui8> : tensor<1x2x4x4xui8>, tensor<f32> -> tensor<1x2x4x4xf32>
  return %y, %ly : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Per-axis quantization does not survive a transpose (the axis moves): such
// a DequantizeLinear stays where it is.

// CHECK-LABEL: func.func @per_axis_stays(
// CHECK: %[[T:.*]] = nunc.transpose %arg0
// CHECK: nunc.dequantize_linear %[[T]]
// CHECK-NOT: nunc.quantize_linear
func.func @per_axis_stays(%x: tensor<2x3xi8>) -> tensor<3x2xf32> {
  %s = nunc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %t = nunc.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xi8> -> tensor<3x2xi8>
  %y = nunc.dequantize_linear %t, %s {axis = 1 : i64} : tensor<3x2xi8>, tensor<2xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A QLinearMatMul of two run-time tensors (attention's Q K^T) becomes the
// QDQ form, and so does one with a constant B the int8 GEMM cannot take
// (u8 with zero point 128, per column here; it then runs as an f32 GEMM on
// the dequantized weight); one with a constant s8 B of zero point 0 stays
// for nunc-fuse-linear's int8 GEMM.

// CHECK-LABEL: func.func @qlinear_matmul(
// CHECK-SAME: %[[A:.*]]: tensor<4x8xui8>, %[[B:.*]]: tensor<8x3xui8>
// CHECK-DAG: %[[DA:.*]] = nunc.dequantize_linear %[[A]], %[[SA:.*]], %[[ZA:.*]] : tensor<ui8> : tensor<4x8xui8>, tensor<f32> -> tensor<4x8xf32>
// CHECK-DAG: %[[DB:.*]] = nunc.dequantize_linear %[[B]], %{{.*}}, %{{.*}} : tensor<ui8> : tensor<8x3xui8>, tensor<f32> -> tensor<8x3xf32>
// CHECK: %[[M:.*]] = nunc.matmul %[[DA]], %[[DB]] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[Y:.*]] = nunc.quantize_linear %[[M]], %{{.*}}, %{{.*}} : tensor<i8> {output_element_type = i8} : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xi8>
// CHECK-DAG: %[[DW:.*]] = nunc.dequantize_linear %[[W:.*]], %[[SW:.*]], %[[ZW:.*]] : tensor<3xui8> : tensor<8x3xui8>, tensor<3xf32> -> tensor<8x3xf32>
// CHECK-DAG: %[[DA2:.*]] = nunc.dequantize_linear %[[A]]
// CHECK: %[[M2:.*]] = nunc.matmul %[[DA2]], %[[DW]]
// CHECK: %[[C:.*]] = nunc.quantize_linear %[[M2]]
// CHECK: %[[S8:.*]] = nunc.qlinear_matmul %[[A]]
// CHECK: return %[[Y]], %[[C]], %[[S8]]
func.func @qlinear_matmul(%a: tensor<4x8xui8>, %b: tensor<8x3xui8>) -> (tensor<4x3xi8>, tensor<4x3xi8>, tensor<4x3xi8>) {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %z = nunc.constant dense<128> : tensor<ui8>
  %sy = nunc.constant dense<4.0> : tensor<f32>
  %zy = nunc.constant dense<-3> : tensor<i8>
  %w = nunc.constant dense<1> : tensor<8x3xui8>
  %sw = nunc.constant dense<[0.5, 0.25, 2.0]> : tensor<3xf32>
  %zw = nunc.constant dense<128> : tensor<3xui8>
  %w8 = nunc.constant dense<-7> : tensor<8x3xi8>
  %z8 = nunc.constant dense<0> : tensor<i8>
  %y = nunc.qlinear_matmul %a, %s, %z, %b, %s, %z, %sy, %zy : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>, tensor<8x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<4x3xi8>
  %c = nunc.qlinear_matmul %a, %s, %z, %w, %sw, %zw, %sy, %zy : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>, tensor<8x3xui8>, tensor<3xf32>, tensor<3xui8>, tensor<f32>, tensor<i8>) -> tensor<4x3xi8>
  %c8 = nunc.qlinear_matmul %a, %s, %z, %w8, %s, %z8, %sy, %zy : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>, tensor<8x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<4x3xi8>
  return %y, %c, %c8 : tensor<4x3xi8>, tensor<4x3xi8>, tensor<4x3xi8>
}
