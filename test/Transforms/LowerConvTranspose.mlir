// RUN: nunc-opt %s -split-input-file --nunc-lower-conv-transpose | FileCheck %s

// ConvTranspose(x, W, b) = Col2Im(Conv1x1(x, W'), ...) + b. W [C, M/G, k...]
// = [4, 3, 3, 2] with 2 groups (C/G = 2 input channels, M/G = 3 output
// channels and 6 taps each) becomes W' [G * M/G * 6, C/G, 1, 1] =
// [36, 2, 1, 1] through [G, C/G, M/G * 6], transposed per group. The
// output: 2 (5 - 1) + output_padding 1 + 3 - pads 1 = 11 rows,
// 2 (6 - 1) + 2 = 12 columns.

// CHECK-LABEL: func.func @grouped_bias(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x5x6xf32>)
// CHECK-DAG: %[[BIAS_SHAPE:.*]] = nunc.constant dense<[6, 1, 1]> : tensor<3xi64>
// CHECK-DAG: %[[BLOCK:.*]] = nunc.constant dense<[3, 2]> : tensor<2xi64>
// CHECK-DAG: %[[IMAGE:.*]] = nunc.constant dense<[11, 12]> : tensor<2xi64>
// CHECK-DAG: %[[COLS_SHAPE:.*]] = nunc.constant dense<[0, 36, -1]> : tensor<3xi64>
// CHECK-DAG: %[[W1X1_SHAPE:.*]] = nunc.constant dense<[36, 2, 1, 1]> : tensor<4xi64>
// CHECK-DAG: %[[GROUPS_SHAPE:.*]] = nunc.constant dense<[2, 2, 18]> : tensor<3xi64>
// CHECK-DAG: %[[W:.*]] = nunc.constant {{.*}} : tensor<4x3x3x2xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant {{.*}} : tensor<6xf32>
// CHECK: %[[G:.*]] = nunc.reshape %[[W]], %[[GROUPS_SHAPE]] : (tensor<4x3x3x2xf32>, tensor<3xi64>) -> tensor<2x2x18xf32>
// CHECK: %[[T:.*]] = nunc.transpose %[[G]] {perm = array<i64: 0, 2, 1>} : tensor<2x2x18xf32> -> tensor<2x18x2xf32>
// CHECK: %[[W1X1:.*]] = nunc.reshape %[[T]], %[[W1X1_SHAPE]] : (tensor<2x18x2xf32>, tensor<4xi64>) -> tensor<36x2x1x1xf32>
// CHECK: %[[CONV:.*]] = nunc.conv %[[X]], %[[W1X1]] {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x5x6xf32>, tensor<36x2x1x1xf32> -> tensor<1x36x5x6xf32>
// CHECK: %[[COLS:.*]] = nunc.reshape %[[CONV]], %[[COLS_SHAPE]] : (tensor<1x36x5x6xf32>, tensor<3xi64>) -> tensor<1x36x30xf32>
// CHECK: %[[IMG:.*]] = nunc.col2im %[[COLS]], %[[IMAGE]], %[[BLOCK]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x36x30xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x6x11x12xf32>
// CHECK: %[[BR:.*]] = nunc.reshape %[[B]], %[[BIAS_SHAPE]] : (tensor<6xf32>, tensor<3xi64>) -> tensor<6x1x1xf32>
// CHECK: %[[Y:.*]] = nunc.add %[[IMG]], %[[BR]] : (tensor<1x6x11x12xf32>, tensor<6x1x1xf32>) -> tensor<1x6x11x12xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nunc.conv_transpose
func.func @grouped_bias(%x: tensor<1x4x5x6xf32>) -> tensor<1x6x11x12xf32> {
  %w = nunc.constant dense<1.0> : tensor<4x3x3x2xf32>
  %b = nunc.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %0 = nunc.conv_transpose %x, %w, %b : tensor<6xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 2>, output_padding = array<i64: 1, 0>, output_shape = array<i64>, pads = array<i64: 1, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x5x6xf32>, tensor<4x3x3x2xf32> -> tensor<1x6x11x12xf32>
  return %0 : tensor<1x6x11x12xf32>
}

// -----

// auto_pad SAME_UPPER with stride 2: the natural 2 (3 - 1) + 3 = 7 is cut
// to 3 * 2 = 6, the extra row and column at the end (pads 0, 1); a weight
// that is not a constant goes through the same Reshape/Transpose ops, run
// at run time; no bias, no Add.

// CHECK-LABEL: func.func @same_upper_runtime_weight(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x3x3xf32>, %[[W:.*]]: tensor<3x2x3x3xf32>)
// CHECK: nunc.reshape %[[W]], %{{.*}} -> tensor<1x3x18xf32>
// CHECK: nunc.transpose %{{.*}} -> tensor<1x18x3xf32>
// CHECK: nunc.reshape %{{.*}} -> tensor<18x3x1x1xf32>
// CHECK: nunc.conv %[[X]], %{{.*}} : tensor<2x3x3x3xf32>, tensor<18x3x1x1xf32> -> tensor<2x18x3x3xf32>
// CHECK: nunc.reshape %{{.*}} -> tensor<2x18x9xf32>
// CHECK: %[[Y:.*]] = nunc.col2im %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x18x9xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2x6x6xf32>
// CHECK-NEXT: return %[[Y]]
func.func @same_upper_runtime_weight(%x: tensor<2x3x3x3xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<2x2x6x6xf32> {
  %0 = nunc.conv_transpose %x, %w {auto_pad = "SAME_UPPER", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, output_padding = array<i64: 0, 0>, output_shape = array<i64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<2x3x3x3xf32>, tensor<3x2x3x3xf32> -> tensor<2x2x6x6xf32>
  return %0 : tensor<2x2x6x6xf32>
}

// -----

// Spatial dims unknown: the col2im's image shape is not known, so the op
// stays (nunc compiles static shapes; the compile reports the dims).

// CHECK-LABEL: func.func @dynamic_spatial(
// CHECK: nunc.conv_transpose
// CHECK-NOT: nunc.col2im
func.func @dynamic_spatial(%x: tensor<1x3x?x?xf32>) -> tensor<1x2x?x?xf32> {
  %w = nunc.constant dense<1.0> : tensor<3x2x2x2xf32>
  %0 = nunc.conv_transpose %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, output_padding = array<i64: 0, 0>, output_shape = array<i64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x3x?x?xf32>, tensor<3x2x2x2xf32> -> tensor<1x2x?x?xf32>
  return %0 : tensor<1x2x?x?xf32>
}
