// RUN: nunc-opt %s -split-input-file --canonicalize | FileCheck %s

// x ^ 2 with a constant exponent of 2 (float or integer, scalar or splat)
// becomes x * x: the same correctly rounded square, on the elementwise
// kernels (an unfused LayerNorm's variance is Pow(x - mean, 2)).

// CHECK-LABEL: func.func @square(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>
// CHECK-NOT: nunc.pow
// CHECK: %[[A:.*]] = nunc.mul %[[X]], %[[X]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[B:.*]] = nunc.mul %[[X]], %[[X]]
// CHECK: return %[[A]], %[[B]]
func.func @square(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %two = nunc.constant dense<2.0> : tensor<f32>
  %two_i = nunc.constant dense<2> : tensor<3xi64>
  %a = nunc.pow %x, %two : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %b = nunc.pow %x, %two_i : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Any other exponent, one that is not the same everywhere, and one that
// broadcasts x to a larger result stay Pow.

// CHECK-LABEL: func.func @not_a_square(
// CHECK-COUNT-3: nunc.pow
// CHECK-NOT: nunc.mul
func.func @not_a_square(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %three = nunc.constant dense<3.0> : tensor<f32>
  %mixed = nunc.constant dense<[2.0, 2.0, 3.0]> : tensor<3xf32>
  %wide = nunc.constant dense<2.0> : tensor<2x3xf32>
  %a = nunc.pow %x, %three : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %b = nunc.pow %x, %mixed : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %c = nunc.pow %x, %wide : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b, %c : tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>
}
