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
func.func @not_taken(%x: tensor<4xf32>, %lo: tensor<f32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = nunc.clip %x min %lo : tensor<f32> : tensor<4xf32> -> tensor<4xf32>
  %1 = nunc.relu %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = nunc.add %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = nunc.mul %2, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %1, %3 : tensor<4xf32>, tensor<4xi32>
}
