// RUN: nunc-opt %s -split-input-file --nunc-shape-inference | FileCheck %s

// Result types are refined in order from the operand types, and the
// function's result types follow the returned values.

// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME: -> tensor<2x3xf32>
func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<?x?xf32> {
  // CHECK-NEXT: %[[ADD:.*]] = nunc.add {{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = nunc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  // CHECK-NEXT: %[[RELU:.*]] = nunc.relu %[[ADD]] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = nunc.relu %0 : tensor<*xf32> -> tensor<*xf32>
  // CHECK-NEXT: %[[MUL:.*]] = nunc.mul %[[RELU]], %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nunc.mul %1, %a : (tensor<*xf32>, tensor<2x3xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: return %[[MUL]] : tensor<2x3xf32>
  return %2 : tensor<?x?xf32>
}

// -----

// What the operands give is combined with what the declared type already says.

// CHECK-LABEL: func.func @meet(
// CHECK-SAME: -> (tensor<2x3xf32>, tensor<2x3xi1>)
func.func @meet(%a: tensor<2x?xf32>, %b: tensor<?xf32>) -> (tensor<?x3xf32>, tensor<*xi1>) {
  // The operands give [2, ?]; the declaration knows the 3.
  // CHECK-NEXT: %[[SUB:.*]] = nunc.sub {{.*}} -> tensor<2x3xf32>
  %0 = nunc.sub %a, %b : (tensor<2x?xf32>, tensor<?xf32>) -> tensor<?x3xf32>
  // CHECK-NEXT: %[[EQ:.*]] = nunc.equal %[[SUB]], %[[SUB]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = nunc.equal %0, %0 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<*xi1>
  // CHECK-NEXT: return %[[SUB]], %[[EQ]] : tensor<2x3xf32>, tensor<2x3xi1>
  return %0, %1 : tensor<?x3xf32>, tensor<*xi1>
}

// -----

// Constant operands: Reshape's shape (0 copies, -1 infers), Unsqueeze's axes,
// Expand's shape, ConstantOfShape's shape, Slice's starts/ends/axes/steps.

// CHECK-LABEL: func.func @constant_operands(
// CHECK-SAME: -> (tensor<2x12xf32>, tensor<1x3x4x1xf32>, tensor<2x3x4xf32>, tensor<2x0x3xi64>, tensor<10x5xf32>, tensor<4x8xf32>, tensor<4x2x3xf32>)
func.func @constant_operands(%x: tensor<2x3x4xf32>, %y: tensor<3x4xf32>, %z: tensor<3x1xf32>, %w: tensor<10x8xf32>)
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<?x?xf32>, tensor<*xf32>) {
  // CHECK: nunc.reshape {{.*}} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  %s = nunc.constant dense<[0, -1]> : tensor<2xi64>
  %0 = nunc.reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  // Axes index the output: 0 and -1 (= 3).
  // CHECK: nunc.unsqueeze {{.*}} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<1x3x4x1xf32>
  %a = nunc.constant dense<[0, -1]> : tensor<2xi64>
  %1 = nunc.unsqueeze %y, %a : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  // Bidirectional: the 1 of the shape keeps the input's 3.
  // CHECK: nunc.expand {{.*}} : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %e = nunc.constant dense<[2, 1, 4]> : tensor<3xi64>
  %2 = nunc.expand %z, %e : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<*xf32>
  // CHECK: nunc.constant_of_shape {{.*}} : tensor<3xi64> -> tensor<2x0x3xi64>
  %cs = nunc.constant dense<[2, 0, 3]> : tensor<3xi64>
  %3 = nunc.constant_of_shape %cs {value = dense<7> : tensor<1xi64>} : tensor<3xi64> -> tensor<*xi64>
  // Columns 2 to 6 (end -1 = 7).
  // CHECK: nunc.slice {{.*}} : tensor<10x8xf32> -> tensor<10x5xf32>
  %st = nunc.constant dense<2> : tensor<1xi64>
  %en = nunc.constant dense<-1> : tensor<1xi64>
  %ax = nunc.constant dense<1> : tensor<1xi64>
  %4 = nunc.slice %w[%st : tensor<1xi64>, %en : tensor<1xi64> axes %ax : tensor<1xi64>] : tensor<10x8xf32> -> tensor<*xf32>
  // Rows 9, 7, 5, 3 (start 100 clamped to 9, step -2, end 2 excluded); all
  // columns (end past the dim); i32 operands.
  // CHECK: nunc.slice {{.*}} : tensor<10x8xf32> -> tensor<4x8xf32>
  %st2 = nunc.constant dense<[100, 0]> : tensor<2xi32>
  %en2 = nunc.constant dense<[2, 1000]> : tensor<2xi32>
  %sp2 = nunc.constant dense<[-2, 1]> : tensor<2xi32>
  %5 = nunc.slice %w[%st2 : tensor<2xi32>, %en2 : tensor<2xi32> steps %sp2 : tensor<2xi32>] : tensor<10x8xf32> -> tensor<?x?xf32>
  // CHECK: nunc.transpose {{.*}} {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %6 = nunc.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<*xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<?x?xf32>, tensor<*xf32>
}

// -----

// Partially known shape values: the batch dim is dynamic, but a Reshape whose
// target is concat(unsqueeze(gather(shape(x), 0)), constant) keeps the known
// dims. The intermediate shape ops are refined first.

// CHECK-LABEL: func.func @partial_shape_value(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x8x16xf32>)
// CHECK-SAME: -> (tensor<?x8x4x4xf32>, tensor<?x?x16xf32>, tensor<?x8x16xi32>, tensor<?x16x8xf32>)
func.func @partial_shape_value(%x: tensor<?x8x16xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xi32>, tensor<*xf32>) {
  // CHECK-NEXT: %[[S:.*]] = nunc.shape %[[X]] : tensor<?x8x16xf32> -> tensor<3xi64>
  %s = nunc.shape %x : tensor<?x8x16xf32> -> tensor<?xi64>
  %i = nunc.constant dense<0> : tensor<i64>
  // CHECK: %[[B:.*]] = nunc.gather %[[S]], %{{.*}} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %b = nunc.gather %s, %i : (tensor<?xi64>, tensor<i64>) -> tensor<*xi64>
  %z = nunc.constant dense<0> : tensor<1xi64>
  // CHECK: %[[U:.*]] = nunc.unsqueeze %[[B]], %{{.*}} : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %u = nunc.unsqueeze %b, %z : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %k = nunc.constant dense<[8, 4, 4]> : tensor<3xi64>
  // CHECK: %[[C:.*]] = nunc.concat %[[U]], %{{.*}} {axis = 0 : i64} : (tensor<1xi64>, tensor<3xi64>) -> tensor<4xi64>
  %c = nunc.concat %u, %k {axis = 0 : i64} : (tensor<*xi64>, tensor<3xi64>) -> tensor<?xi64>
  // CHECK-NEXT: %[[R0:.*]] = nunc.reshape %[[X]], %[[C]] : (tensor<?x8x16xf32>, tensor<4xi64>) -> tensor<?x8x4x4xf32>
  %0 = nunc.reshape %x, %c : (tensor<?x8x16xf32>, tensor<?xi64>) -> tensor<*xf32>
  // With the batch unknown, a -1 cannot be resolved: only the 16 is known.
  %k2 = nunc.constant dense<[-1, 16]> : tensor<2xi64>
  %c2 = nunc.concat %u, %k2 {axis = 0 : i64} : (tensor<*xi64>, tensor<2xi64>) -> tensor<?xi64>
  // CHECK: %[[R1:.*]] = nunc.reshape %[[X]], %{{.*}} : (tensor<?x8x16xf32>, tensor<3xi64>) -> tensor<?x?x16xf32>
  %1 = nunc.reshape %x, %c2 : (tensor<?x8x16xf32>, tensor<?xi64>) -> tensor<*xf32>
  // CHECK-NEXT: %[[CS:.*]] = nunc.constant_of_shape %[[S]] {value = dense<1> : tensor<1xi32>} : tensor<3xi64> -> tensor<?x8x16xi32>
  %2 = nunc.constant_of_shape %s {value = dense<1> : tensor<1xi32>} : tensor<?xi64> -> tensor<*xi32>
  // shape(x)[1:] = [8, 16], gathered in reverse order: target [?, 16, 8].
  // CHECK-NEXT: %[[TAIL:.*]] = nunc.shape %[[X]] {start = 1 : i64} : tensor<?x8x16xf32> -> tensor<2xi64>
  %tail = nunc.shape %x {start = 1 : i64} : tensor<?x8x16xf32> -> tensor<*xi64>
  %perm = nunc.constant dense<[1, 0]> : tensor<2xi64>
  // CHECK: %[[REV:.*]] = nunc.gather %[[TAIL]], %{{.*}} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %rev = nunc.gather %tail, %perm : (tensor<*xi64>, tensor<2xi64>) -> tensor<*xi64>
  // CHECK-NEXT: %[[C3:.*]] = nunc.concat %[[U]], %[[REV]] {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  %c3 = nunc.concat %u, %rev {axis = 0 : i64} : (tensor<*xi64>, tensor<*xi64>) -> tensor<*xi64>
  // CHECK-NEXT: %[[R3:.*]] = nunc.reshape %[[X]], %[[C3]] : (tensor<?x8x16xf32>, tensor<3xi64>) -> tensor<?x16x8xf32>
  %3 = nunc.reshape %x, %c3 : (tensor<?x8x16xf32>, tensor<*xi64>) -> tensor<*xf32>
  // CHECK-NEXT: return %[[R0]], %[[R1]], %[[CS]], %[[R3]] : tensor<?x8x4x4xf32>, tensor<?x?x16xf32>, tensor<?x8x16xi32>, tensor<?x16x8xf32>
  return %0, %1, %2, %3 : tensor<*xf32>, tensor<*xf32>, tensor<*xi32>, tensor<*xf32>
}

// -----

// A type never becomes less precise: declared dims the operands cannot give
// are kept, and a ranked declaration is not replaced by an unranked inference.

// CHECK-LABEL: func.func @never_less_precise(
// CHECK-SAME: -> (tensor<2x5xf32>, tensor<?x3xf32>, tensor<?x?x?x?xf32>, tensor<4x?xf32>)
func.func @never_less_precise(%a: tensor<?x4xf32>, %b: tensor<4x?xf32>, %s: tensor<?xi64>, %ax: tensor<2xi64>, %y: tensor<3x4xf32>)
    -> (tensor<2x5xf32>, tensor<?x3xf32>, tensor<*xf32>, tensor<4x?xf32>) {
  // CHECK-NEXT: nunc.matmul {{.*}} : (tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<2x5xf32>
  %0 = nunc.matmul %a, %b : (tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<2x5xf32>
  // The target is unknown (unranked inference); the declaration stays.
  // CHECK-NEXT: nunc.reshape {{.*}} : (tensor<3x4xf32>, tensor<?xi64>) -> tensor<?x3xf32>
  %1 = nunc.reshape %y, %s : (tensor<3x4xf32>, tensor<?xi64>) -> tensor<?x3xf32>
  // Two run-time axes: the rank is known, not the dims.
  // CHECK-NEXT: nunc.unsqueeze {{.*}} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<?x?x?x?xf32>
  %2 = nunc.unsqueeze %y, %ax : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  // CHECK-NEXT: nunc.transpose {{.*}} : tensor<?x4xf32> -> tensor<4x?xf32>
  %3 = nunc.transpose %a {perm = array<i64: 1, 0>} : tensor<?x4xf32> -> tensor<4x?xf32>
  return %0, %1, %2, %3 : tensor<2x5xf32>, tensor<?x3xf32>, tensor<*xf32>, tensor<4x?xf32>
}

// -----

// Nothing can be refined: the types stay dynamic (and unranked).

// CHECK-LABEL: func.func @nothing_to_refine(
// CHECK-SAME: -> (tensor<?x3xf32>, tensor<*xf32>, tensor<*xf32>, tensor<?x?xf32>)
func.func @nothing_to_refine(%a: tensor<?x3xf32>, %b: tensor<3xf32>, %u: tensor<*xf32>, %s: tensor<?xi64>, %m: tensor<?x?xf32>)
    -> (tensor<?x3xf32>, tensor<*xf32>, tensor<*xf32>, tensor<?x?xf32>) {
  // CHECK-NEXT: nunc.add {{.*}} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %0 = nunc.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK-NEXT: nunc.sigmoid {{.*}} : tensor<*xf32> -> tensor<*xf32>
  %1 = nunc.sigmoid %u : tensor<*xf32> -> tensor<*xf32>
  // CHECK-NEXT: nunc.reshape {{.*}} : (tensor<?x3xf32>, tensor<?xi64>) -> tensor<*xf32>
  %2 = nunc.reshape %a, %s : (tensor<?x3xf32>, tensor<?xi64>) -> tensor<*xf32>
  // CHECK-NEXT: nunc.matmul {{.*}} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = nunc.matmul %m, %m : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: return {{.*}} : tensor<?x3xf32>, tensor<*xf32>, tensor<*xf32>, tensor<?x?xf32>
  return %0, %1, %2, %3 : tensor<?x3xf32>, tensor<*xf32>, tensor<*xf32>, tensor<?x?xf32>
}

// -----

// A shape value that passes through Identity from a tensor of unknown length
// is unknown: the Reshape stays unranked (it must not be read as the empty
// shape, which would make a scalar).

// CHECK-LABEL: func.func @unknown_shape_through_identity(
// CHECK-SAME: -> tensor<*xf32>
func.func @unknown_shape_through_identity(%x: tensor<2x3xf32>, %s: tensor<?xi64>) -> tensor<*xf32> {
  // CHECK-NEXT: %[[I:.*]] = nunc.identity %{{.*}} : tensor<?xi64> -> tensor<?xi64>
  %i = nunc.identity %s : tensor<?xi64> -> tensor<?xi64>
  // CHECK-NEXT: nunc.reshape %{{.*}}, %[[I]] : (tensor<2x3xf32>, tensor<?xi64>) -> tensor<*xf32>
  %r = nunc.reshape %x, %i : (tensor<2x3xf32>, tensor<?xi64>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

// The same through Squeeze, for Expand and ConstantOfShape (which verify, but
// must not be refined to the types of an empty shape: a rank-1 Expand and a
// scalar ConstantOfShape).

// CHECK-LABEL: func.func @unknown_shape_through_squeeze(
// CHECK-SAME: -> (tensor<*xf32>, tensor<*xf32>)
func.func @unknown_shape_through_squeeze(%x: tensor<6xf32>, %s: tensor<?x1xi64>) -> (tensor<*xf32>, tensor<*xf32>) {
  %a = nunc.constant dense<1> : tensor<1xi64>
  // CHECK: %[[Q:.*]] = nunc.squeeze %{{.*}} axes %{{.*}} : tensor<1xi64> : tensor<?x1xi64> -> tensor<?xi64>
  %q = nunc.squeeze %s axes %a : tensor<1xi64> : tensor<?x1xi64> -> tensor<?xi64>
  // CHECK-NEXT: %[[E:.*]] = nunc.expand %{{.*}}, %[[Q]] : (tensor<6xf32>, tensor<?xi64>) -> tensor<*xf32>
  %e = nunc.expand %x, %q : (tensor<6xf32>, tensor<?xi64>) -> tensor<*xf32>
  // CHECK-NEXT: %[[C:.*]] = nunc.constant_of_shape %[[Q]] {{.*}} : tensor<?xi64> -> tensor<*xf32>
  %c = nunc.constant_of_shape %q {value = dense<1.0> : tensor<1xf32>} : tensor<?xi64> -> tensor<*xf32>
  // CHECK-NEXT: return %[[E]], %[[C]] : tensor<*xf32>, tensor<*xf32>
  return %e, %c : tensor<*xf32>, tensor<*xf32>
}

// -----

// Ops with several results; convolution and pooling windows.

// CHECK-LABEL: func.func @multi_result_and_windows(
// CHECK-SAME: -> (tensor<2x5x8xf16>, tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<*xui8>, tensor<f32>, tensor<1x4x3x2xf32>, tensor<1x2x3x3xf32>)
func.func @multi_result_and_windows(%x: tensor<2x5x8xf16>, %s: tensor<5x8xf16>, %u: tensor<*xf32>, %img: tensor<1x2x7x5xf32>, %w: tensor<4x2x3x3xf32>)
    -> (tensor<*xf16>, tensor<*xf32>, tensor<*xf32>, tensor<*xui8>, tensor<f32>, tensor<*xf32>, tensor<*xf32>) {
  // Normalized over dims 1 and 2: statistics of shape [2, 1, 1].
  // CHECK-NEXT: nunc.layer_norm {{.*}} -> tensor<2x5x8xf16>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
  %0:3 = nunc.layer_norm %x, %s {axis = 1 : i64} : tensor<2x5x8xf16>, tensor<5x8xf16> -> tensor<*xf16>, tensor<*xf32>, tensor<*xf32>
  // CHECK-NEXT: nunc.dynamic_quantize_linear {{.*}} : tensor<*xf32> -> tensor<*xui8>, tensor<f32>, tensor<ui8>
  %1:3 = nunc.dynamic_quantize_linear %u : tensor<*xf32> -> tensor<*xui8>, tensor<f32>, tensor<ui8>
  // Pads [H begin, W begin, H end, W end] = [1, 0, 0, 1], strides 2:
  // H: (7 + 1 + 0 - 3) / 2 + 1 = 3, W: (5 + 0 + 1 - 3) / 2 + 1 = 2.
  // CHECK-NEXT: nunc.conv {{.*}} -> tensor<1x4x3x2xf32>
  %2 = nunc.conv %img, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 2>} : tensor<1x2x7x5xf32>, tensor<4x2x3x3xf32> -> tensor<*xf32>
  // ceil_mode: H: ceil((7 - 3) / 3) + 1 = 3, W: ceil((5 - 2) / 2) + 1 = 3 (both
  // last windows start inside the input).
  // CHECK-NEXT: nunc.max_pool {{.*}} -> tensor<1x2x3x3xf32>
  %3 = nunc.max_pool %img {ceil_mode = 1 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 2>} : tensor<1x2x7x5xf32> -> tensor<*xf32>
  return %0#0, %0#1, %0#2, %1#0, %1#1, %2, %3 : tensor<*xf16>, tensor<*xf32>, tensor<*xf32>, tensor<*xui8>, tensor<f32>, tensor<*xf32>, tensor<*xf32>
}
