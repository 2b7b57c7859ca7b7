// RUN: nunc-opt %s -split-input-file --nunc-fuse-elementwise-chains | FileCheck %s
// RUN: nunc-opt %s -split-input-file --nunc-fuse-elementwise-chains=max-inputs=1 | FileCheck %s --check-prefix=ONE

// Two ops on one tensor, a scalar constant each: one chain; the constants
// go (nothing else reads them).

// CHECK-LABEL: func.func @pair(
// CHECK-NOT: nunc.constant
// CHECK: %[[C:.*]] = nunc.elementwise_chain %arg0 {steps = [{args = array<i64: 0, -1>, constant = 2.000000e+00 : f32, op = "mul"}, {args = array<i64: 1>, op = "relu"}]} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: return %[[C]]
func.func @pair(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = nunc.constant dense<2.0> : tensor<f32>
  %0 = nunc.mul %x, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = nunc.relu %0 : tensor<8xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// What stays: a single op; an op whose result is also returned ends a
// chain there (its producer and it stay apart from what reads it); a
// per-channel operand (not one element, not the result's shape); a
// constant another op still reads stays.

// CHECK-LABEL: func.func @stays(
// CHECK: %[[C:.*]] = nunc.constant dense<2.000000e+00>
// CHECK: %[[A:.*]] = nunc.add %arg0, %[[C]]
// CHECK: %[[B:.*]] = nunc.elementwise_chain %[[A]] {steps = [{args = array<i64: 0, -1>, constant = 2.000000e+00 : f32, op = "mul"}, {args = array<i64: 1>, op = "relu"}]}
// CHECK: %[[P:.*]] = nunc.mul %[[B]], %arg1
// CHECK: %[[Q:.*]] = nunc.relu %[[P]]
// CHECK: return %[[A]], %[[Q]]
func.func @stays(%x: tensor<2x8xf32>, %ch: tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %c = nunc.constant dense<2.0> : tensor<f32>
  %0 = nunc.add %x, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = nunc.mul %0, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %2 = nunc.relu %1 : tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = nunc.mul %2, %ch : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %4 = nunc.relu %3 : tensor<2x8xf32> -> tensor<2x8xf32>
  return %0, %4 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Two tensor inputs (a residual): one chain; with max-inputs=1 the run
// stays as it is.

// CHECK-LABEL: func.func @residual(
// CHECK: nunc.elementwise_chain %arg0, %arg1 {steps = [{args = array<i64: 0, -1>, constant = 5.000000e-01 : f32, op = "mul"}, {args = array<i64: 2, 1>, op = "add"}, {args = array<i64: 3>, op = "relu"}]}
// ONE-LABEL: func.func @residual(
// ONE: %[[M:.*]] = nunc.mul %arg0
// ONE: %[[A:.*]] = nunc.add %[[M]], %arg1
// ONE: nunc.relu %[[A]]
// ONE-NOT: elementwise_chain
func.func @residual(%x: tensor<16xf32>, %r: tensor<16xf32>) -> tensor<16xf32> {
  %c = nunc.constant dense<0.5> : tensor<1xf32>
  %0 = nunc.mul %x, %c : (tensor<16xf32>, tensor<1xf32>) -> tensor<16xf32>
  %1 = nunc.add %0, %r : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %2 = nunc.relu %1 : tensor<16xf32> -> tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// A clip whose bound is not a constant, and i32 tensors, stay.

// CHECK-LABEL: func.func @not_taken(
// CHECK-NOT: elementwise_chain
// ONE-LABEL: func.func @not_taken(
func.func @not_taken(%x: tensor<4xf32>, %lo: tensor<f32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = nunc.clip %x min %lo : tensor<f32> : tensor<4xf32> -> tensor<4xf32>
  %1 = nunc.relu %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = nunc.add %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = nunc.mul %2, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %1, %3 : tensor<4xf32>, tensor<4xi32>
}

// -----

// The kernel holds at most 8 values alive: nine products of x all read by
// the sum make the whole run too wide, and so is the run up to the eighth
// product's add; the run up to the seventh (x and seven products alive)
// becomes a chain, the rest stay single ops.

// CHECK-LABEL: func.func @too_wide(
// CHECK: %[[C:.*]] = nunc.elementwise_chain %arg0 {steps = [
// CHECK-SAME: array<i64: 0, -1>, constant = 1.000000e+00
// CHECK-SAME: array<i64: 0, -1>, constant = 7.000000e+00
// CHECK-SAME: {args = array<i64: 12, 7>, op = "add"}]}
// CHECK-NOT: elementwise_chain
// CHECK: nunc.add %[[C]]
// CHECK: return
func.func @too_wide(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c1 = nunc.constant dense<1.0> : tensor<f32>
  %c2 = nunc.constant dense<2.0> : tensor<f32>
  %c3 = nunc.constant dense<3.0> : tensor<f32>
  %c4 = nunc.constant dense<4.0> : tensor<f32>
  %c5 = nunc.constant dense<5.0> : tensor<f32>
  %c6 = nunc.constant dense<6.0> : tensor<f32>
  %c7 = nunc.constant dense<7.0> : tensor<f32>
  %c8 = nunc.constant dense<8.0> : tensor<f32>
  %c9 = nunc.constant dense<9.0> : tensor<f32>
  %1 = nunc.mul %x, %c1 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %2 = nunc.mul %x, %c2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = nunc.mul %x, %c3 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %4 = nunc.mul %x, %c4 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %5 = nunc.mul %x, %c5 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %6 = nunc.mul %x, %c6 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %7 = nunc.mul %x, %c7 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %8 = nunc.mul %x, %c8 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %9 = nunc.mul %x, %c9 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %10 = nunc.add %1, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %11 = nunc.add %10, %3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %12 = nunc.add %11, %4 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %13 = nunc.add %12, %5 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %14 = nunc.add %13, %6 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %15 = nunc.add %14, %7 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %16 = nunc.add %15, %8 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %17 = nunc.add %16, %9 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %17 : tensor<8xf32>
}
