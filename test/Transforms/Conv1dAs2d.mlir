// RUN: nunc-opt %s -split-input-file --nunc-conv1d-as-2d | FileCheck %s

// A 1-D conv with bias, dilation and pads: the 2-D conv over [N, C, 1, L]
// with a leading 1 (0 for the pads) in its attributes, its constant weight
// reshaped at compile time, and a reshape back. The residual Add, the Mul
// by a [C, 1] constant (now [C, 1, 1]) and the Relu after it move inside
// the reshape, so that they follow the conv directly; so does the 1-D
// MaxPool, which reads the 4-D tensor without a reshape pair between.

// CHECK-LABEL: func.func @conv_chain(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x4x10xf32>, %[[R:[^:]*]]: tensor<1x4x10xf32>, %[[G:.*]]: tensor<4x1xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<5.000000e-01> : tensor<4x4x1x3xf32>
// CHECK-DAG: %[[X4:.*]] = nunc.reshape %[[X]], %{{.*}} : (tensor<1x4x10xf32>, tensor<4xi64>) -> tensor<1x4x1x10xf32>
// CHECK: %[[C:.*]] = nunc.conv %[[X4]], %[[W]], %{{.*}} : tensor<4xf32> {dilations = array<i64: 1, 2>, kernel_shape = array<i64: 1, 3>, pads = array<i64: 0, 2, 0, 2>, strides = array<i64: 1, 1>} : tensor<1x4x1x10xf32>, tensor<4x4x1x3xf32> -> tensor<1x4x1x10xf32>
// CHECK: %[[R4:.*]] = nunc.reshape %[[R]], %{{.*}} -> tensor<1x4x1x10xf32>
// CHECK: %[[A:.*]] = nunc.add %[[C]], %[[R4]] : (tensor<1x4x1x10xf32>, tensor<1x4x1x10xf32>) -> tensor<1x4x1x10xf32>
// CHECK: %[[G3:.*]] = nunc.reshape %[[G]], %{{.*}} : (tensor<4x1xf32>, tensor<3xi64>) -> tensor<4x1x1xf32>
// CHECK: %[[M:.*]] = nunc.mul %[[A]], %[[G3]] : (tensor<1x4x1x10xf32>, tensor<4x1x1xf32>) -> tensor<1x4x1x10xf32>
// CHECK: %[[Y:.*]] = nunc.relu %[[M]] : tensor<1x4x1x10xf32> -> tensor<1x4x1x10xf32>
// CHECK: %[[P:.*]] = nunc.max_pool %[[Y]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 2>} : tensor<1x4x1x10xf32> -> tensor<1x4x1x5xf32>
// CHECK: %[[OUT:.*]] = nunc.reshape %[[P]], %{{.*}} : (tensor<1x4x1x5xf32>, tensor<3xi64>) -> tensor<1x4x5xf32>
// CHECK-NEXT: return %[[OUT]]
func.func @conv_chain(%x: tensor<1x4x10xf32>, %r: tensor<1x4x10xf32>, %g: tensor<4x1xf32>) -> tensor<1x4x5xf32> {
  %w = nunc.constant dense<0.5> : tensor<4x4x3xf32>
  %b = nunc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %c = nunc.conv %x, %w, %b : tensor<4xf32> {dilations = array<i64: 2>, kernel_shape = array<i64: 3>, pads = array<i64: 2, 2>, strides = array<i64: 1>} : tensor<1x4x10xf32>, tensor<4x4x3xf32> -> tensor<1x4x10xf32>
  %a = nunc.add %c, %r : (tensor<1x4x10xf32>, tensor<1x4x10xf32>) -> tensor<1x4x10xf32>
  %m = nunc.mul %a, %g : (tensor<1x4x10xf32>, tensor<4x1xf32>) -> tensor<1x4x10xf32>
  %y = nunc.relu %m : tensor<1x4x10xf32> -> tensor<1x4x10xf32>
  %p = nunc.max_pool %y {kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<1x4x10xf32> -> tensor<1x4x5xf32>
  return %p : tensor<1x4x5xf32>
}

// -----

// A BatchNormalization between two 1-D convs: it moves inside (its per-channel parameters as they are), and
// the second conv reads the 4-D tensor directly; one reshape at the end.

// CHECK-LABEL: func.func @conv_bn_conv(
// CHECK: %[[C1:.*]] = nunc.conv %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x1x8xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x1x8xf32>
// CHECK-NOT: reshape
// CHECK: %[[N:.*]] = nunc.batch_norm %[[C1]], %{{.*}} : (tensor<1x2x1x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x8xf32>
// CHECK-NOT: reshape
// CHECK: %[[C2:.*]] = nunc.conv %[[N]], %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x1x8xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x1x8xf32>
// CHECK: nunc.reshape %[[C2]], %{{.*}} -> tensor<1x3x8xf32>
// CHECK-NOT: nunc.reshape
func.func @conv_bn_conv(%x: tensor<1x2x8xf32>) -> tensor<1x3x8xf32> {
  %w1 = nunc.constant dense<0.25> : tensor<2x2x1xf32>
  %w2 = nunc.constant dense<0.5> : tensor<3x2x1xf32>
  %p = nunc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c1 = nunc.conv %x, %w1 {dilations = array<i64: 1>, kernel_shape = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<1x2x8xf32>, tensor<2x2x1xf32> -> tensor<1x2x8xf32>
  %n = nunc.batch_norm %c1, %p, %p, %p, %p : (tensor<1x2x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x8xf32>
  %c2 = nunc.conv %n, %w2 {dilations = array<i64: 1>, kernel_shape = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<1x2x8xf32>, tensor<3x2x1xf32> -> tensor<1x3x8xf32>
  return %c2 : tensor<1x3x8xf32>
}

// -----

// 2-D convs, 1-D ones with a weight of run-time shape and an Add that
// broadcasts a reshaped operand up (the result is not the reshape's shape)
// stay as they are.

// (The weight of run-time shape, from the fuzzer, once made the pass lift
// the input before giving up, again and again, and fail without a word.)

// CHECK-LABEL: func.func @unchanged(
// CHECK: nunc.conv %{{.*}} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
// CHECK: nunc.add %{{.*}} : (tensor<2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NOT: nunc.reshape
// CHECK: nunc.conv %{{.*}} : tensor<1x4x11xf32>, tensor<4x?x4xf32> -> tensor<1x4x8xf32>
// CHECK-NOT: nunc.reshape
func.func @unchanged(%x: tensor<1x2x4x4xf32>, %s: tensor<6xf32>, %t: tensor<4x2x3xf32>, %u: tensor<1x4x11xf32>, %v: tensor<4x?x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<4x2x3xf32>, tensor<1x4x8xf32>) {
  %w = nunc.constant dense<0.5> : tensor<2x2x1x1xf32>
  %c = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %shape = nunc.constant dense<[2, 3]> : tensor<2xi64>
  %r = nunc.reshape %s, %shape : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %a = nunc.add %r, %t : (tensor<2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  %d = nunc.conv %u, %v {dilations = array<i64: 1>, group = 4 : i64, kernel_shape = array<i64: 4>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<1x4x11xf32>, tensor<4x?x4xf32> -> tensor<1x4x8xf32>
  return %c, %a, %d : tensor<1x2x4x4xf32>, tensor<4x2x3xf32>, tensor<1x4x8xf32>
}

// -----

// A QDQ 1-D conv: the lifting reshapes move above the input's pair (a
// fake_quantize by now; it also feeds an Add, which keeps the original) and
// the weight's DequantizeLinear (its codes reshaped at compile time), and
// the output's pair moves inside the dropping reshape: the QDQ conv fusion
// then sees its pattern on the 2-D conv.

// CHECK-LABEL: func.func @qdq_conv(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x6xf32>)
// CHECK-DAG: %[[CODES:.*]] = nunc.constant dense<3> : tensor<2x4x1x3xi8>
// CHECK-DAG: %[[FQ:.*]] = nunc.fake_quantize %[[X]] {quantization = !quant.uniform<u8:f32, 2.500000e-01:128>} : tensor<1x4x6xf32> -> tensor<1x4x6xf32>
// CHECK-DAG: %[[X4:.*]] = nunc.reshape %[[X]], %{{.*}} -> tensor<1x4x1x6xf32>
// CHECK-DAG: %[[FQ4:.*]] = nunc.fake_quantize %[[X4]] {quantization = !quant.uniform<u8:f32, 2.500000e-01:128>} : tensor<1x4x1x6xf32> -> tensor<1x4x1x6xf32>
// CHECK-DAG: %[[W4:.*]] = nunc.dequantize_linear %[[CODES]], %{{.*}} {axis = 0 : i64} : tensor<2x4x1x3xi8>, tensor<2xf32> -> tensor<2x4x1x3xf32>
// CHECK: %[[C:.*]] = nunc.conv %[[FQ4]], %[[W4]] {{.*}} -> tensor<1x2x1x6xf32>
// CHECK: %[[Q:.*]] = nunc.fake_quantize %[[C]] {{.*}} : tensor<1x2x1x6xf32> -> tensor<1x2x1x6xf32>
// CHECK: nunc.reshape %[[Q]], %{{.*}} -> tensor<1x2x6xf32>
// CHECK: nunc.add %[[FQ]], %[[FQ]]
func.func @qdq_conv(%x: tensor<1x4x6xf32>) -> (tensor<1x2x6xf32>, tensor<1x4x6xf32>) {
  %codes = nunc.constant dense<3> : tensor<2x4x3xi8>
  %ws = nunc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %fq = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.25:128>} : tensor<1x4x6xf32> -> tensor<1x4x6xf32>
  %w = nunc.dequantize_linear %codes, %ws {axis = 0 : i64} : tensor<2x4x3xi8>, tensor<2xf32> -> tensor<2x4x3xf32>
  %c = nunc.conv %fq, %w {dilations = array<i64: 1>, kernel_shape = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : tensor<1x4x6xf32>, tensor<2x4x3xf32> -> tensor<1x2x6xf32>
  %y = nunc.fake_quantize %c {quantization = !quant.uniform<u8:f32, 0.5:128>} : tensor<1x2x6xf32> -> tensor<1x2x6xf32>
  %a = nunc.add %fq, %fq : (tensor<1x4x6xf32>, tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  return %y, %a : tensor<1x2x6xf32>, tensor<1x4x6xf32>
}
