// RUN: nunc-opt %s -split-input-file --nunc-fuse-conv | FileCheck %s
// RUN: nunc-opt %s -split-input-file --nunc-fuse-conv=int8=false | FileCheck %s --check-prefix=NOINT8

// Conv followed by a residual Add of a same-shaped tensor and/or an
// activation becomes nunc.fused_conv = activation(conv(x, W) + b + residual),
// keeping the conv's spatial attributes.

// ResNet's block tail: Conv (with bias) + residual Add + Relu.

// CHECK-LABEL: func.func @residual_relu(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x4xf32>, %[[W:[^:]*]]: tensor<2x2x3x3xf32>, %[[B:[^:]*]]: tensor<2xf32>, %[[R:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT: %[[Y:.*]] = nunc.fused_conv %[[X]], %[[W]] bias %[[B]] : tensor<2xf32> residual %[[R]] : tensor<1x2x4x4xf32> {activation = "relu", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT: return %[[Y]] : tensor<1x2x4x4xf32>
func.func @residual_relu(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>, %b: tensor<2xf32>, %r: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = nunc.conv %x, %w, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.add %0, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = nunc.relu %1 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// LeakyRelu folds with its alpha (activation_alpha; 0.01, its default, is
// not printed).

// CHECK-LABEL: func.func @leaky_relu(
// CHECK-NEXT: %[[A:.*]] = nunc.fused_conv %arg0, %arg1 {activation = "leaky_relu", activation_alpha = 2.000000e-01 : f32,
// CHECK-NEXT: %[[B:.*]] = nunc.fused_conv %arg0, %arg1 {activation = "leaky_relu", dilations
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @leaky_relu(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.leaky_relu %0 {alpha = 0.2 : f32} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %2 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x4x4xf32>
  %3 = nunc.leaky_relu %2 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %1, %3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// The residual first in the Add; no bias, no activation; strides, dilations
// and group carried over.

// CHECK-LABEL: func.func @residual_first(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x4x5x5xf32>, %[[W:[^:]*]]: tensor<4x2x3x3xf32>, %[[R:.*]]: tensor<1x4x1x1xf32>)
// CHECK-NEXT: %[[Y:.*]] = nunc.fused_conv %[[X]], %[[W]] residual %[[R]] : tensor<1x4x1x1xf32> {dilations = array<i64: 2, 2>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32> -> tensor<1x4x1x1xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nunc.
func.func @residual_first(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>, %r: tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32> {
  %0 = nunc.conv %x, %w {dilations = array<i64: 2, 2>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32> -> tensor<1x4x1x1xf32>
  %1 = nunc.add %r, %0 : (tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  return %1 : tensor<1x4x1x1xf32>
}

// -----

// Conv + Clip(0, 6) (MobileNet's ReLU6), with constant bounds.

// CHECK-LABEL: func.func @clip_relu6(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x4xf32>, %[[W:[^:]*]]: tensor<2x2x1x1xf32>, %[[B:.*]]: tensor<2xf32>)
// CHECK-NEXT: %[[Y:.*]] = nunc.fused_conv %[[X]], %[[W]] bias %[[B]] : tensor<2xf32> {activation = "clip", activation_max = 6.000000e+00 : f32, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nunc.
func.func @clip_relu6(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %b: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %lo = nunc.constant dense<0.0> : tensor<f32>
  %hi = nunc.constant dense<6.0> : tensor<f32>
  %0 = nunc.conv %x, %w, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.clip %0 min %lo : tensor<f32> max %hi : tensor<f32> : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Residual + Clip(-1, 1), and Clip with only a max (min = -FLT_MAX).

// CHECK-LABEL: func.func @residual_clip(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x4xf32>, %[[W:[^:]*]]: tensor<2x2x1x1xf32>, %[[R:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT: %[[Y0:.*]] = nunc.fused_conv %[[X]], %[[W]] residual %[[R]] : tensor<1x2x4x4xf32> {activation = "clip", activation_max = 1.000000e+00 : f32, activation_min = -1.000000e+00 : f32, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[Y1:.*]] = nunc.fused_conv %[[X]], %[[W]] {activation = "clip", activation_max = 2.500000e+00 : f32, activation_min = 0xFF800000 : f32, dilations
// CHECK-NEXT: return %[[Y0]], %[[Y1]]
// CHECK-NOT: nunc.
func.func @residual_clip(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %r: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %lo = nunc.constant dense<-1.0> : tensor<f32>
  %hi = nunc.constant dense<1.0> : tensor<f32>
  %hi2 = nunc.constant dense<2.5> : tensor<f32>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.add %0, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = nunc.clip %1 min %lo : tensor<f32> max %hi : tensor<f32> : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %3 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %4 = nunc.clip %3 max %hi2 : tensor<f32> : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %2, %4 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// The other activations: Sigmoid, Tanh, GELU (erf) and GELU (tanh).

// CHECK-LABEL: func.func @activations(
// CHECK-NEXT: %[[A0:.*]] = nunc.fused_conv {{.*}} {activation = "sigmoid", dilations
// CHECK-NEXT: %[[A1:.*]] = nunc.fused_conv {{.*}} {activation = "tanh", dilations
// CHECK-NEXT: %[[A2:.*]] = nunc.fused_conv {{.*}} {activation = "gelu", dilations
// CHECK-NEXT: %[[A3:.*]] = nunc.fused_conv {{.*}} {activation = "gelu_tanh", dilations
// CHECK-NEXT: return %[[A0]], %[[A1]], %[[A2]], %[[A3]]
// CHECK-NOT: nunc.
func.func @activations(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a0 = nunc.sigmoid %0 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a1 = nunc.tanh %1 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %2 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a2 = nunc.gelu %2 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %3 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %a3 = nunc.gelu %3 {approximate = "tanh"} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %a0, %a1, %a2, %a3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// auto_pad is carried over like the other spatial attributes.

// CHECK-LABEL: func.func @auto_pad_kept(
// CHECK-NEXT: nunc.fused_conv %{{.*}}, %{{.*}} {activation = "sigmoid", auto_pad = "SAME_UPPER", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x3x3xf32>
// CHECK-NEXT: return
func.func @auto_pad_kept(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32> {
  %0 = nunc.conv %x, %w {auto_pad = "SAME_UPPER", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x3x3xf32>
  %1 = nunc.sigmoid %0 : tensor<1x1x3x3xf32> -> tensor<1x1x3x3xf32>
  return %1 : tensor<1x1x3x3xf32>
}

// -----

// The conv's declared result type is more precise than its operands give (x
// has a dynamic batch): whatever the pass does, the function must keep
// returning [1, 2, 4, 4] tensors (a fused_conv inferred from x alone has a
// dynamic batch).

// CHECK-LABEL: func.func @result_more_static(
// CHECK: return %{{.*}}, %{{.*}} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
func.func @result_more_static(%x: tensor<?x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %r: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<?x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.relu %0 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %2 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<?x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %3 = nunc.add %2, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %1, %3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Negative cases
//===----------------------------------------------------------------------===//

// The activation comes before the residual Add: relu(conv) + r. The Relu
// fuses; the Add must stay outside.

// CHECK-LABEL: func.func @activation_before_residual(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x4xf32>, %[[W:[^:]*]]: tensor<2x2x1x1xf32>, %[[R:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT: %[[Y:.*]] = nunc.fused_conv %[[X]], %[[W]] {activation = "relu", dilations
// CHECK-NEXT: %[[S:.*]] = nunc.add %[[Y]], %[[R]]
// CHECK-NEXT: return %[[S]]
func.func @activation_before_residual(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %r: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.relu %0 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %2 = nunc.add %1, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// The conv output has a second use: nothing fuses.

// CHECK-LABEL: func.func @conv_second_use(
// CHECK-NOT: nunc.fused_conv
// CHECK: %[[C:.*]] = nunc.conv
// CHECK-NEXT: %[[S:.*]] = nunc.add %[[C]]
// CHECK-NEXT: %[[A:.*]] = nunc.relu %[[S]]
// CHECK-NEXT: return %[[A]], %[[C]]
func.func @conv_second_use(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %r: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.add %0, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = nunc.relu %1 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %2, %0 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// The residual-added value has a second use: the residual fuses, the Relu
// does not.

// CHECK-LABEL: func.func @sum_second_use(
// CHECK: %[[Y:.*]] = nunc.fused_conv %{{.*}}, %{{.*}} residual %{{.*}} : tensor<1x2x4x4xf32> {dilations
// CHECK-NEXT: %[[A:.*]] = nunc.relu %[[Y]]
// CHECK-NEXT: return %[[A]], %[[Y]]
func.func @sum_second_use(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %r: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.add %0, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = nunc.relu %1 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %2, %1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// An Add of a broadcast [1, C, 1, 1] tensor is not a same-shaped residual.

// CHECK-LABEL: func.func @broadcast_add(
// CHECK-NOT: nunc.fused_conv
// CHECK: nunc.conv
// CHECK-NEXT: nunc.add {{.*}} : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
func.func @broadcast_add(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %c: tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.add %0, %c : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// A residual that broadcasts the conv result up: [1, 2, 1, 1] conv output
// plus a [1, 2, 3, 3] tensor is not a residual of the conv's shape.

// CHECK-LABEL: func.func @residual_broadcasts_result(
// CHECK-NOT: nunc.fused_conv
// CHECK: nunc.conv
// CHECK-NEXT: nunc.add {{.*}} -> tensor<1x2x3x3xf32>
func.func @residual_broadcasts_result(%x: tensor<1x2x1x1xf32>, %w: tensor<2x2x1x1xf32>, %r: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x1x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x1x1xf32>
  %1 = nunc.add %0, %r : (tensor<1x2x1x1xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}

// -----

// Clip with a run-time bound, and a second activation after a fused one.

// CHECK-LABEL: func.func @not_fusable_activations(
// CHECK: %[[C:.*]] = nunc.conv
// CHECK-NEXT: nunc.clip %[[C]] min
// CHECK-NEXT: %[[F:.*]] = nunc.fused_conv {{.*}} {activation = "relu", dilations
// CHECK-NEXT: nunc.sigmoid %[[F]]
func.func @not_fusable_activations(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %lo: tensor<f32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.clip %0 min %lo : tensor<f32> : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %2 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %3 = nunc.relu %2 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %4 = nunc.sigmoid %3 : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %1, %4 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A second residual Add after a fused one stays.

// CHECK-LABEL: func.func @two_residuals(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x4xf32>, %[[W:[^:]*]]: tensor<2x2x1x1xf32>, %[[R:[^:]*]]: tensor<1x2x4x4xf32>, %[[S:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT: %[[Y:.*]] = nunc.fused_conv %[[X]], %[[W]] residual %[[R]]
// CHECK-NEXT: %[[Z:.*]] = nunc.add %[[Y]], %[[S]]
// CHECK-NEXT: return %[[Z]]
func.func @two_residuals(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %r: tensor<1x2x4x4xf32>, %s: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.add %0, %r : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = nunc.add %1, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// An s8 weight with a zero point other than 0 (onnxruntime's quantized f32
// weights: one asymmetric grid) is the u8 weight 128 higher, codes and zero
// point: 1 -> 129 and -2 -> 126 (stored as the bytes -127 and 126), zero
// point -43 -> 85. The int8 convolution takes it with its zero point.
// CHECK-LABEL: func.func @qdq_s8_weight_with_zero_point(
// CHECK:      %[[B:.*]] = nunc.constant dense<{{\[\[\[\[}}-127]], {{\[\[}}126]]], {{\[\[\[}}-125]], {{\[\[}}-124]]]]> : tensor<2x2x1x1xi8>
// CHECK:      %[[W:.*]] = quant.scast %[[B]] : tensor<2x2x1x1xi8> to tensor<2x2x1x1x!quant.uniform<u8:f32, 2.500000e-01:85>>
// CHECK:      nunc.quantized_conv %{{.*}}, %[[W]]
func.func @qdq_s8_weight_with_zero_point(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %fq = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.0625:3>} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %w = nunc.constant dense<[[[[1]], [[-2]]], [[[3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %ws = nunc.constant dense<0.25> : tensor<f32>
  %wz = nunc.constant dense<-43> : tensor<i8>
  %dw = nunc.dequantize_linear %w, %ws, %wz : tensor<i8> : tensor<2x2x1x1xi8>, tensor<f32> -> tensor<2x2x1x1xf32>
  %c = nunc.conv %fq, %dw {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x4x4xf32>
  return %c : tensor<1x2x4x4xf32>
}

// -----

// A QDQ conv whose input pair already became fake_quantize (an s8 grid:
// the u8 one 128 higher) takes x itself with that grid; the fake_quantize
// stays for its other user. The Relu after folds into the quantized_conv.
// With int8=false the conv stays f32.
// CHECK-LABEL: func.func @qdq_fake_quantized_input(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x4xf32>
// CHECK:      %[[FQ:.*]] = nunc.fake_quantize %[[X]]
// CHECK:      %[[W:.*]] = quant.scast %{{.*}} : tensor<3x2x1x1xi8> to tensor<3x2x1x1x!quant.uniform<i8:f32:0, {2.500000e-01,5.000000e-01,1.250000e-01}>>
// CHECK:      nunc.quantized_conv %[[X]], %[[W]] {activation = "relu", activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 6.250000e-02:131>
// CHECK:      nunc.add %[[FQ]]
// NOINT8-LABEL: func.func @qdq_fake_quantized_input(
// NOINT8:       nunc.fused_conv
// NOINT8-NOT:   quantized_conv
func.func @qdq_fake_quantized_input(%x: tensor<1x2x4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>) {
  %fq = nunc.fake_quantize %x {quantization = !quant.uniform<i8:f32, 0.0625:3>} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %w = nunc.constant dense<[[[[1]], [[-2]]], [[[3]], [[4]]], [[[-5]], [[6]]]]> : tensor<3x2x1x1xi8>
  %ws = nunc.constant dense<[0.25, 0.5, 0.125]> : tensor<3xf32>
  %dw = nunc.dequantize_linear %w, %ws {axis = 0 : i64} : tensor<3x2x1x1xi8>, tensor<3xf32> -> tensor<3x2x1x1xf32>
  %c = nunc.conv %fq, %dw {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x4xf32>
  %y = nunc.relu %c : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  %z = nunc.add %fq, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y, %z : tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A QDQ conv whose input is already on its grid: the result of an int8 conv
// or a batch_norm that rounded to that grid in its epilogue (their
// output_quantization, an s8 one here) takes that result with the grid.
// CHECK-LABEL: func.func @qdq_input_rounded_by_producer(
// CHECK:      %[[C:.*]] = nunc.quantized_conv %arg0, {{.*}}output_quantization = !quant.uniform<i8:f32, 5.000000e-01:-2>
// CHECK:      nunc.quantized_conv %[[C]], {{.*}}input_quantization = !quant.uniform<u8:f32, 5.000000e-01:126>
// CHECK:      %[[N:.*]] = nunc.batch_norm
// CHECK:      nunc.quantized_conv %[[N]], {{.*}}input_quantization = !quant.uniform<u8:f32, 2.500000e-01:7>
// NOINT8-LABEL: func.func @qdq_input_rounded_by_producer(
func.func @qdq_input_rounded_by_producer(%x: tensor<1x1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %q = nunc.constant dense<[[[[5]]], [[[-7]]]]> : tensor<2x1x1x1xi8>
  %w = quant.scast %q : tensor<2x1x1x1xi8> to tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %c = nunc.quantized_conv %x, %w {activation_quantization = "static", dilations = array<i64: 1, 1>, input_quantization = !quant.uniform<u8:f32, 0.125:128>, kernel_shape = array<i64: 1, 1>, output_quantization = !quant.uniform<i8:f32, 0.5:-2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<1x2x2x2xf32>
  %w2 = nunc.constant dense<[[[[1]], [[2]]], [[[3]], [[-4]]]]> : tensor<2x2x1x1xi8>
  %s2 = nunc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %dw2 = nunc.dequantize_linear %w2, %s2 {axis = 0 : i64} : tensor<2x2x1x1xi8>, tensor<2xf32> -> tensor<2x2x1x1xf32>
  %y = nunc.conv %c, %dw2 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %p = nunc.constant dense<[2.0]> : tensor<1xf32>
  %n = nunc.batch_norm %x, %p, %p, %p, %p {output_quantization = !quant.uniform<u8:f32, 0.25:7>} : (tensor<1x1x2x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
  %w3 = nunc.constant dense<[[[[1]]], [[[2]]]]> : tensor<2x1x1x1xi8>
  %dw3 = nunc.dequantize_linear %w3, %s2 {axis = 0 : i64} : tensor<2x1x1x1xi8>, tensor<2xf32> -> tensor<2x1x1x1xf32>
  %z = nunc.conv %n, %dw3 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  return %y, %z : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A BatchNormalization after a quantized_conv (a quantize_dynamic model)
// becomes its normalization as onnxruntime's kernel forms it in f32: a =
// 1 / sqrt(var + eps) * gamma = 0.5 * 4 and 0.25 * 2, b = beta - mean * a
// = 1 + 2 and -1 - 1.5; weights and bias stay, and the Relu after it stays
// an op (the conv's activation would run before the normalization).
// CHECK-LABEL: func.func @batch_norm_into_quantized_conv(
// NOINT8-LABEL: func.func @batch_norm_into_quantized_conv(
// CHECK-DAG:  %[[A:.*]] = nunc.constant dense<[2.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-DAG:  %[[S:.*]] = nunc.constant dense<[3.000000e+00, -2.500000e+00]> : tensor<2xf32>
// CHECK-DAG:  %[[B:.*]] = nunc.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK:      %[[C:.*]] = nunc.quantized_conv %arg0, %{{.*}} bias %[[B]] : tensor<2xf32> norm %[[A]], %[[S]]
// CHECK-NOT:  activation
// CHECK-NOT:  nunc.batch_norm
// CHECK:      nunc.relu %[[C]]
func.func @batch_norm_into_quantized_conv(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %q = nunc.constant dense<[[[[5]]], [[[-7]]]]> : tensor<2x1x1x1xi8>
  %w = quant.scast %q : tensor<2x1x1x1xi8> to tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %b = nunc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c = nunc.quantized_conv %x, %w bias %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<1x2x3x3xf32>
  %gamma = nunc.constant dense<[4.0, 2.0]> : tensor<2xf32>
  %beta = nunc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = nunc.constant dense<[-1.0, 3.0]> : tensor<2xf32>
  %var = nunc.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %n = nunc.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %y = nunc.relu %n : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// What the int8 patterns must leave alone (and not fail on): a QDQ conv
// whose weight is dequantized per input channel (axis 1: not per output
// channel). A BatchNormalization with a negative gamma after a
// quantized_conv is its normalization like any other (a < 0 is fine there).
// CHECK-LABEL: func.func @int8_leaves_alone(
// CHECK:       nunc.conv
// CHECK:       nunc.quantized_conv {{.*}} norm
// CHECK-NOT:   nunc.batch_norm
// NOINT8-LABEL: func.func @int8_leaves_alone(
func.func @int8_leaves_alone(%x: tensor<1x2x4x4xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x2x3x3xf32>) {
  %fq = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.0625:3>} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %w = nunc.constant dense<[[[[1]], [[-2]]], [[[3]], [[4]]], [[[-5]], [[6]]]]> : tensor<3x2x1x1xi8>
  %ws = nunc.constant dense<[0.25, 0.5]> : tensor<2xf32>
  %dw = nunc.dequantize_linear %w, %ws {axis = 1 : i64} : tensor<3x2x1x1xi8>, tensor<2xf32> -> tensor<3x2x1x1xf32>
  %c = nunc.conv %fq, %dw {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x4xf32>
  %q = nunc.constant dense<[[[[5]]], [[[-7]]]]> : tensor<2x1x1x1xi8>
  %qw = quant.scast %q : tensor<2x1x1x1xi8> to tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %x1 = nunc.constant dense<1.0> : tensor<1x1x3x3xf32>
  %qc = nunc.quantized_conv %x1, %qw {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<2x1x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<1x2x3x3xf32>
  %gamma = nunc.constant dense<[-1.0, 2.0]> : tensor<2xf32>
  %beta = nunc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = nunc.constant dense<[0.0, 3.0]> : tensor<2xf32>
  %var = nunc.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %n = nunc.batch_norm %qc, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %c, %n : tensor<1x3x4x4xf32>, tensor<1x2x3x3xf32>
}

// -----

// A QDQ conv of groups whose input channels fill whole blocks of four
// becomes a quantized_conv with the group; one of groups of two channels
// stays an f32 conv (int8ConvGroups).
// CHECK-LABEL: func.func @qdq_grouped(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x8x4x4xf32>
// CHECK:      %[[W:.*]] = quant.scast %{{.*}} : tensor<4x4x1x1xi8> to tensor<4x4x1x1x!quant.uniform<i8:f32:0, {2.500000e-01,5.000000e-01,1.250000e-01,2.500000e-01}>>
// CHECK:      nunc.quantized_conv %[[X]], %[[W]] {activation_quantization = "static", dilations = array<i64: 1, 1>, group = 2 : i64, input_quantization = !quant.uniform<u8:f32, 6.250000e-02:3>
// CHECK:      nunc.conv {{.*}}group = 4 : i64
// NOINT8-LABEL: func.func @qdq_grouped(
// NOINT8-NOT:   quantized_conv
func.func @qdq_grouped(%x: tensor<1x8x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %fq = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.0625:3>} : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf32>
  %w = nunc.constant dense<[[[[ 6]],  [[-5]],  [[-7]],  [[-4]]], [[[-2]],  [[ 6]],  [[-1]],  [[-8]]], [[[-3]],  [[ 2]],  [[ 6]],  [[ 4]]], [[[ 9]],  [[-6]],  [[ 7]],  [[-8]]]]> : tensor<4x4x1x1xi8>
  %ws = nunc.constant dense<[0.25, 0.5, 0.125, 0.25]> : tensor<4xf32>
  %dw = nunc.dequantize_linear %w, %ws {axis = 0 : i64} : tensor<4x4x1x1xi8>, tensor<4xf32> -> tensor<4x4x1x1xf32>
  %c = nunc.conv %fq, %dw {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x4x4xf32>, tensor<4x4x1x1xf32> -> tensor<1x4x4x4xf32>
  %w2 = nunc.constant dense<[[[[ 1]],  [[-4]]], [[[-6]],  [[ 3]]], [[[-4]],  [[ 1]]], [[[-5]],  [[-7]]]]> : tensor<4x2x1x1xi8>
  %dw2 = nunc.dequantize_linear %w2, %ws {axis = 0 : i64} : tensor<4x2x1x1xi8>, tensor<4xf32> -> tensor<4x2x1x1xf32>
  %c2 = nunc.conv %fq, %dw2 {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x4x4xf32>, tensor<4x2x1x1xf32> -> tensor<1x4x4x4xf32>
  return %c, %c2 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// HardSwish (and HardSigmoid) fold as activations, and a scalar Mul, then
// Add, after the activation become its post_mul and post_add. A Mul after
// the Add (it would round differently) and a non-scalar Mul stay.

// CHECK-LABEL: func.func @hard_swish_post_affine(
// CHECK: %[[A:.*]] = nunc.fused_conv %arg0, %arg1 {activation = "hard_swish", activation_alpha = 0.166666672 : f32, activation_beta = 5.000000e-01 : f32, activation_post_add = -2.500000e-01 : f32, activation_post_mul = 1.500000e+00 : f32,
// CHECK-NEXT: %[[M:.*]] = nunc.mul %[[A]], %{{.*}}
// CHECK-NEXT: %[[S:.*]] = nunc.fused_conv %arg0, %arg1 {activation = "hard_sigmoid", activation_alpha = 2.000000e-01 : f32, activation_beta = 5.000000e-01 : f32, dilations
// CHECK-NEXT: %[[N:.*]] = nunc.mul %[[S]], %arg2
// CHECK-NEXT: return %[[M]], %[[N]]
func.func @hard_swish_post_affine(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>, %t: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %m = nunc.constant dense<1.5> : tensor<1xf32>
  %a = nunc.constant dense<-0.25> : tensor<1xf32>
  %m2 = nunc.constant dense<3.0> : tensor<f32>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x4x4xf32>
  %1 = nunc.hard_swish %0 {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %2 = nunc.mul %1, %m : (tensor<1x2x4x4xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
  %3 = nunc.add %a, %2 : (tensor<1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %4 = nunc.mul %3, %m2 : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %5 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x4x4xf32>
  %6 = nunc.hard_sigmoid %5 {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %7 = nunc.mul %6, %t : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %4, %7 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A Pad of zeros over H and W before a Conv adds to its pads (then the Relu
// fuses as usual); a Pad of another value, one that pads the channels, or
// a reflecting one stays.

// CHECK-LABEL: func.func @pad_into_conv(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x5x5xf32>
// CHECK-NOT: nunc.pad
// CHECK: nunc.fused_conv %[[X]], %{{.*}}pads = array<i64: 2, 1, 0, 2>{{.*}} -> tensor<1x3x7x8xf32>
// CHECK-COUNT-3: nunc.pad
// CHECK-NOT: nunc.pad
// NOINT8-LABEL: func.func @pad_into_conv(
// NOINT8: nunc.fused_conv %arg0, %{{.*}}pads = array<i64: 2, 1, 0, 2>
func.func @pad_into_conv(%x: tensor<1x2x5x5xf32>) -> (tensor<1x3x7x8xf32>, tensor<1x3x7x8xf32>, tensor<1x3x7x8xf32>, tensor<1x3x6x7xf32>) {
  %w = nunc.constant dense<0.5> : tensor<3x2x1x1xf32>
  %w3 = nunc.constant dense<0.5> : tensor<3x3x1x1xf32>
  %p = nunc.constant dense<[0, 0, 1, 0, 0, 0, 0, 2]> : tensor<8xi64>
  %pc = nunc.constant dense<[0, 1, 1, 0, 0, 0, 0, 2]> : tensor<8xi64>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %xp = nunc.pad %x, %p : tensor<1x2x5x5xf32>, tensor<8xi64> -> tensor<1x2x6x7xf32>
  %c = nunc.conv %xp, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x6x7xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x7x8xf32>
  %r = nunc.relu %c : tensor<1x3x7x8xf32> -> tensor<1x3x7x8xf32>
  %xo = nunc.pad %x, %p value %one : tensor<f32> : tensor<1x2x5x5xf32>, tensor<8xi64> -> tensor<1x2x6x7xf32>
  %co = nunc.conv %xo, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x6x7xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x7x8xf32>
  %xr = nunc.pad %x, %p {mode = "reflect"} : tensor<1x2x5x5xf32>, tensor<8xi64> -> tensor<1x2x6x7xf32>
  %cr = nunc.conv %xr, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x6x7xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x7x8xf32>
  %xc = nunc.pad %x, %pc : tensor<1x2x5x5xf32>, tensor<8xi64> -> tensor<1x3x6x7xf32>
  %cc = nunc.conv %xc, %w3 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x3x6x7xf32>, tensor<3x3x1x1xf32> -> tensor<1x3x6x7xf32>
  return %r, %co, %cr, %cc : tensor<1x3x7x8xf32>, tensor<1x3x7x8xf32>, tensor<1x3x7x8xf32>, tensor<1x3x6x7xf32>
}
