// RUN: nunc-opt %s -split-input-file --nunc-fuse-layer-norm | FileCheck %s

// LayerNorm as torch exports it below opset 17: ReduceMean, Sub, Pow(., 2),
// ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta. It becomes one
// nunc.layer_norm over the reduced trailing axes; eps = 1e-5 is the default
// of the attribute, so only the axis is printed. Nothing else is left.

// CHECK-LABEL: func.func @torch_last_axis(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-DAG: %[[G:.*]] = nunc.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[5.000000e-01, 2.500000e-01, 0.000000e+00, -5.000000e-01, 1.000000e+00, 2.000000e+00, -1.000000e+00, 3.000000e+00]> : tensor<8xf32>
// CHECK-NOT: nunc.{{(reduce_mean|sub|pow|mul|add|sqrt|div)}}
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[G]], %[[B]] : tensor<8xf32> {axis = 2 : i64} : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>
// CHECK-NEXT: return %[[Y]] : tensor<2x4x8xf32>
// CHECK-NOT: nunc.
func.func @torch_last_axis(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %gamma = nunc.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %beta = nunc.constant dense<[0.5, 0.25, 0.0, -0.5, 1.0, 2.0, -1.0, 3.0]> : tensor<8xf32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x4x1xf32> -> tensor<2x4x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %7 = nunc.mul %6, %gamma : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %8 = nunc.add %7, %beta : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %8 : tensor<2x4x8xf32>
}

// -----

// The square as Mul(d, d), a positive axis, and every commutative operand
// swapped: eps + var, gamma * normalized, beta + scaled. eps = 1e-6 is
// printed as the f32 nearest to it.

// CHECK-LABEL: func.func @mul_square_swapped(
// CHECK-SAME: %[[X:[^:]*]]: tensor<3x6xf32>, %[[G:[^:]*]]: tensor<6xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[G]], %[[B]] : tensor<6xf32> {axis = 1 : i64, epsilon = 9.99999997E-7 : f32} : tensor<3x6xf32>, tensor<6xf32> -> tensor<3x6xf32>, tensor<3x1xf32>, tensor<3x1xf32>
// CHECK-NEXT: return %[[Y]] : tensor<3x6xf32>
// CHECK-NOT: nunc.
func.func @mul_square_swapped(%x: tensor<3x6xf32>, %gamma: tensor<6xf32>, %beta: tensor<6xf32>) -> tensor<3x6xf32> {
  %axes = nunc.constant dense<[1]> : tensor<1xi64>
  %eps = nunc.constant dense<1.0e-06> : tensor<1xf32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<3x6xf32> -> tensor<3x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<3x6xf32>, tensor<3x1xf32>) -> tensor<3x6xf32>
  %2 = nunc.mul %1, %1 : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<3x6xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<3x6xf32> -> tensor<3x1xf32>
  %4 = nunc.add %eps, %3 : (tensor<1xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  %5 = nunc.sqrt %4 : tensor<3x1xf32> -> tensor<3x1xf32>
  %6 = nunc.div %1, %5 : (tensor<3x6xf32>, tensor<3x1xf32>) -> tensor<3x6xf32>
  %7 = nunc.mul %gamma, %6 : (tensor<6xf32>, tensor<3x6xf32>) -> tensor<3x6xf32>
  %8 = nunc.add %beta, %7 : (tensor<6xf32>, tensor<3x6xf32>) -> tensor<3x6xf32>
  return %8 : tensor<3x6xf32>
}

// -----

// No gamma and no beta (elementwise_affine=False): the scale is a new
// constant of ones over the normalized dims, and there is no bias.

// CHECK-LABEL: func.func @no_affine(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-NEXT: %[[ONES:.*]] = nunc.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[ONES]] {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>
// CHECK-NEXT: return %[[Y]] : tensor<2x4x8xf32>
// CHECK-NOT: nunc.
func.func @no_affine(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-12> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x4x1xf32> -> tensor<2x4x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  return %6 : tensor<2x4x8xf32>
}

// -----

// Gamma without beta (bias=False).

// CHECK-LABEL: func.func @gamma_only(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x8xf32>, %[[G:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[G]] {axis = 1 : i64} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
// CHECK-NEXT: return %[[Y]] : tensor<2x8xf32>
// CHECK-NOT: nunc.
func.func @gamma_only(%x: tensor<2x8xf32>, %gamma: tensor<8xf32>) -> tensor<2x8xf32> {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x1xf32> -> tensor<2x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %7 = nunc.mul %6, %gamma : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %7 : tensor<2x8xf32>
}

// -----

// Over the last two axes (given unsorted, one negative): axis = 1, with a
// [4, 8] gamma and a [8] beta that broadcasts over the normalized [4, 8].

// CHECK-LABEL: func.func @last_two_axes(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x4x8xf32>, %[[G:[^:]*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[G]], %[[B]] : tensor<8xf32> {axis = 1 : i64} : tensor<2x4x8xf32>, tensor<4x8xf32> -> tensor<2x4x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
// CHECK-NEXT: return %[[Y]] : tensor<2x4x8xf32>
// CHECK-NOT: nunc.
func.func @last_two_axes(%x: tensor<2x4x8xf32>, %gamma: tensor<4x8xf32>, %beta: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %axes = nunc.constant dense<[2, -2]> : tensor<2xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<2xi64> : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<2xi64> : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x1x1xf32> -> tensor<2x1x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %7 = nunc.mul %6, %gamma : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %8 = nunc.add %7, %beta : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %8 : tensor<2x4x8xf32>
}

// -----

// Over the last two axes without gamma: the ones constant is [4, 8].

// CHECK-LABEL: func.func @last_two_axes_no_affine(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-NEXT: %[[ONES:.*]] = nunc.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[ONES]] {axis = 1 : i64} : tensor<2x4x8xf32>, tensor<4x8xf32> -> tensor<2x4x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nunc.
func.func @last_two_axes_no_affine(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %axes = nunc.constant dense<[-2, -1]> : tensor<2xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<2xi64> : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<2xi64> : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x1x1xf32> -> tensor<2x1x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  return %6 : tensor<2x4x8xf32>
}

// -----

// Half precision with gamma and beta: the op keeps f16 data (stash_type 1 is
// the default); eps = 2^-10 is exact in f16 and f32.

// CHECK-LABEL: func.func @f16_affine(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x8xf16>, %[[G:[^:]*]]: tensor<8xf16>, %[[B:.*]]: tensor<8xf16>)
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[G]], %[[B]] : tensor<8xf16> {axis = 1 : i64, epsilon = 9.765625E-4 : f32} : tensor<2x8xf16>, tensor<8xf16> -> tensor<2x8xf16>,
// CHECK-NEXT: return %[[Y]] : tensor<2x8xf16>
// CHECK-NOT: nunc.
func.func @f16_affine(%x: tensor<2x8xf16>, %gamma: tensor<8xf16>, %beta: tensor<8xf16>) -> tensor<2x8xf16> {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f16>
  %eps = nunc.constant dense<9.765625e-04> : tensor<f16>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x8xf16> -> tensor<2x1xf16>
  %1 = nunc.sub %x, %0 : (tensor<2x8xf16>, tensor<2x1xf16>) -> tensor<2x8xf16>
  %2 = nunc.pow %1, %two : (tensor<2x8xf16>, tensor<f16>) -> tensor<2x8xf16>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x8xf16> -> tensor<2x1xf16>
  %4 = nunc.add %3, %eps : (tensor<2x1xf16>, tensor<f16>) -> tensor<2x1xf16>
  %5 = nunc.sqrt %4 : tensor<2x1xf16> -> tensor<2x1xf16>
  %6 = nunc.div %1, %5 : (tensor<2x8xf16>, tensor<2x1xf16>) -> tensor<2x8xf16>
  %7 = nunc.mul %6, %gamma : (tensor<2x8xf16>, tensor<8xf16>) -> tensor<2x8xf16>
  %8 = nunc.add %7, %beta : (tensor<2x8xf16>, tensor<8xf16>) -> tensor<2x8xf16>
  return %8 : tensor<2x8xf16>
}

// -----

// LayerNorm(bias=False) followed by a residual Add of a full-shape tensor:
// the Add is not a beta (it does not broadcast to the normalized dims), so
// it stays, but the LayerNorm with its gamma still fuses.

// CHECK-LABEL: func.func @gamma_then_residual(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x8xf32>, %[[G:[^:]*]]: tensor<8xf32>, %[[R:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[G]] {axis = 1 : i64} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
// CHECK-NEXT: %[[S:.*]] = nunc.add %[[Y]], %[[R]] : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: return %[[S]] : tensor<2x8xf32>
// CHECK-NOT: nunc.
func.func @gamma_then_residual(%x: tensor<2x8xf32>, %gamma: tensor<8xf32>, %r: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x1xf32> -> tensor<2x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %7 = nunc.mul %6, %gamma : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %8 = nunc.add %7, %r : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %8 : tensor<2x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Negative cases: no nunc.layer_norm, the decomposed ops stay.
//===----------------------------------------------------------------------===//

// ReduceMean over a non-trailing axis (1 of 3).

// CHECK-LABEL: func.func @middle_axis(
// CHECK-NOT: nunc.layer_norm
// CHECK: nunc.reduce_mean
// CHECK: nunc.sub
// CHECK: nunc.pow
// CHECK: nunc.reduce_mean
// CHECK: nunc.sqrt
// CHECK: nunc.div
// CHECK-NOT: nunc.layer_norm
func.func @middle_axis(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %axes = nunc.constant dense<[1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x4x8xf32> -> tensor<2x1x8xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x4x8xf32>, tensor<2x1x8xf32>) -> tensor<2x4x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x4x8xf32> -> tensor<2x1x8xf32>
  %4 = nunc.add %3, %eps : (tensor<2x1x8xf32>, tensor<f32>) -> tensor<2x1x8xf32>
  %5 = nunc.sqrt %4 : tensor<2x1x8xf32> -> tensor<2x1x8xf32>
  %6 = nunc.div %1, %5 : (tensor<2x4x8xf32>, tensor<2x1x8xf32>) -> tensor<2x4x8xf32>
  return %6 : tensor<2x4x8xf32>
}

// -----

// Axes {0, 2} are not a trailing run even though they include the last one.

// CHECK-LABEL: func.func @gapped_axes(
// CHECK-NOT: nunc.layer_norm
// CHECK: nunc.reduce_mean
// CHECK: nunc.div
func.func @gapped_axes(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %axes = nunc.constant dense<[0, 2]> : tensor<2xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<2xi64> : tensor<2x4x8xf32> -> tensor<1x4x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x4x8xf32>, tensor<1x4x1xf32>) -> tensor<2x4x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<2xi64> : tensor<2x4x8xf32> -> tensor<1x4x1xf32>
  %4 = nunc.add %3, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %5 = nunc.sqrt %4 : tensor<1x4x1xf32> -> tensor<1x4x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x4x8xf32>, tensor<1x4x1xf32>) -> tensor<2x4x8xf32>
  return %6 : tensor<2x4x8xf32>
}

// -----

// The mean is over the last axis but the variance over the last two: no
// LayerNorm of x, but d / sqrt(mean(d^2) + eps) over the last two axes is
// an RMS normalization of d.

// CHECK-LABEL: func.func @mismatched_axes(
// CHECK: %[[M:.*]] = nunc.reduce_mean %arg0
// CHECK-NEXT: %[[D:.*]] = nunc.sub %arg0, %[[M]]
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[D]], %{{.*}} {axis = 1 : i64, rms} : tensor<2x4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @mismatched_axes(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %axes2 = nunc.constant dense<[-2, -1]> : tensor<2xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes2 : tensor<2xi64> : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x1x1xf32> -> tensor<2x1x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  return %6 : tensor<2x4x8xf32>
}

// -----

// The centered value d has a third use: no LayerNorm of x, and no RMS
// normalization of d either (x - mean(x) is a LayerNorm's to fuse).

// CHECK-LABEL: func.func @centered_second_use(
// CHECK-NOT: nunc.layer_norm
// CHECK: %[[D:.*]] = nunc.sub
// CHECK: nunc.pow %[[D]]
// CHECK: %[[N:.*]] = nunc.div %[[D]]
// CHECK: return %[[N]], %[[D]]
func.func @centered_second_use(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x1xf32> -> tensor<2x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %6, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// The variance has a second use.

// CHECK-LABEL: func.func @variance_second_use(
// CHECK-NOT: nunc.layer_norm
// CHECK: nunc.pow
// CHECK: %[[V:.*]] = nunc.reduce_mean
// CHECK: nunc.add %[[V]]
// CHECK: %[[N:.*]] = nunc.div
// CHECK: return %[[N]], %[[V]]
func.func @variance_second_use(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>) {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x1xf32> -> tensor<2x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %6, %3 : tensor<2x8xf32>, tensor<2x1xf32>
}

// -----

// Pow(d, 3) and Mul(d, x) are not squares of d; (mean - x) is -d, which
// is no LayerNorm of x, but e = mean - x over sqrt(mean(e^2) + eps) is the
// RMS normalization of e.

// CHECK-LABEL: func.func @not_a_variance(
// CHECK-NOT: nunc.layer_norm
// CHECK: nunc.pow
// CHECK: nunc.div
// CHECK: nunc.mul
// CHECK: nunc.div
// CHECK: %[[E:.*]] = nunc.sub %{{.*}}, %arg2
// CHECK-NEXT: nunc.layer_norm %[[E]], %{{.*}} {axis = 1 : i64, rms}
func.func @not_a_variance(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>, %z: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %three = nunc.constant dense<3.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %2 = nunc.pow %1, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %4 = nunc.add %3, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x1xf32> -> tensor<2x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %10 = nunc.reduce_mean %y axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %11 = nunc.sub %y, %10 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %12 = nunc.mul %11, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %13 = nunc.reduce_mean %12 axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %14 = nunc.add %13, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %15 = nunc.sqrt %14 : tensor<2x1xf32> -> tensor<2x1xf32>
  %16 = nunc.div %11, %15 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %20 = nunc.reduce_mean %z axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %21 = nunc.sub %20, %z : (tensor<2x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %22 = nunc.pow %21, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %23 = nunc.reduce_mean %22 axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %24 = nunc.add %23, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %25 = nunc.sqrt %24 : tensor<2x1xf32> -> tensor<2x1xf32>
  %26 = nunc.div %21, %25 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %6, %16, %26 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// keepdims = 0 on the variance: mean(d^2) is [2], and sqrt(var + eps)
// broadcasts against the wrong dim, so this is not a LayerNorm.

// CHECK-LABEL: func.func @variance_without_keepdims(
// CHECK-NOT: nunc.layer_norm
// CHECK: nunc.reduce_mean
// CHECK: nunc.div
func.func @variance_without_keepdims(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x2xf32> -> tensor<2x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  %2 = nunc.pow %1, %two : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> {keepdims = 0 : i64} : tensor<2x2xf32> -> tensor<2xf32>
  %4 = nunc.add %3, %eps : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %5 = nunc.sqrt %4 : tensor<2xf32> -> tensor<2xf32>
  %6 = nunc.div %1, %5 : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %6 : tensor<2x2xf32>
}

// -----

// A QDQ model's LayerNorm between pairs: a step that rounds to a grid (the
// variance's add of codes, which took the pair after the ReduceMean, or a
// Div with output_quantization) keeps the ops apart; a Mul by the scale
// that multiplies codes is not taken as the affine part (the core fuses).

// CHECK-LABEL: func.func @rounding_steps(
// CHECK: nunc.reduce_mean
// CHECK: nunc.add {{.*}}lhs_quantization
// CHECK: nunc.div
// CHECK: %[[LN:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm
// CHECK: nunc.mul %[[LN]], {{.*}}lhs_quantization
func.func @rounding_steps(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %eps2 = nunc.constant dense<1.0e-05> : tensor<f32>
  %g = nunc.constant dense<0.5> : tensor<8xf32>
  %0 = nunc.reduce_mean %x axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %1 = nunc.sub %x, %0 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %2 = nunc.pow %1, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nunc.reduce_mean %2 axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %4 = nunc.add %3, %eps {nunc.rhs_codes_grid = !quant.uniform<u8:f32, 3.9215686E-8>, lhs_quantization = !quant.uniform<u8:f32, 0.01>, output_quantization = !quant.uniform<u8:f32, 0.01>, rhs_quantization = !quant.uniform<u8:f32, 3.9215686E-8>} : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %5 = nunc.sqrt %4 : tensor<2x1xf32> -> tensor<2x1xf32>
  %6 = nunc.div %1, %5 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %10 = nunc.reduce_mean %y axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %11 = nunc.sub %y, %10 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %12 = nunc.pow %11, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %13 = nunc.reduce_mean %12 axes %axes : tensor<1xi64> : tensor<2x8xf32> -> tensor<2x1xf32>
  %14 = nunc.add %13, %eps2 : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %15 = nunc.sqrt %14 : tensor<2x1xf32> -> tensor<2x1xf32>
  %16 = nunc.div %11, %15 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %17 = nunc.mul %16, %g {nunc.rhs_codes_grid = !quant.uniform<u8:f32, 0.01>, lhs_quantization = !quant.uniform<u8:f32, 0.03:120>, output_quantization = !quant.uniform<u8:f32, 0.02:120>, rhs_quantization = !quant.uniform<u8:f32, 0.01>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %6, %17 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// RMSNorm as Llama-style decoders export it: Pow(x, 2), ReduceMean, Add
// eps, Sqrt, Reciprocal (1 / root), Mul x, Mul gamma. One nunc.layer_norm
// {rms} of x; x's other reader (the residual) keeps it.

// CHECK-LABEL: func.func @rms_reciprocal(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x8xf32>, %[[G:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[G]] {axis = 2 : i64, epsilon = 9.99999997E-7 : f32, rms} : tensor<2x3x8xf32>, tensor<8xf32> -> tensor<2x3x8xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>
// CHECK-NEXT: %[[R:.*]] = nunc.add %[[X]], %[[Y]]
// CHECK-NEXT: return %[[R]]
func.func @rms_reciprocal(%x: tensor<2x3x8xf32>, %gamma: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %axes = nunc.constant dense<[-1]> : tensor<1xi64>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %eps = nunc.constant dense<1.0e-06> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %0 = nunc.pow %x, %two : (tensor<2x3x8xf32>, tensor<f32>) -> tensor<2x3x8xf32>
  %1 = nunc.reduce_mean %0 axes %axes : tensor<1xi64> : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %2 = nunc.add %1, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %3 = nunc.sqrt %2 : tensor<2x3x1xf32> -> tensor<2x3x1xf32>
  %4 = nunc.div %one, %3 : (tensor<f32>, tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %5 = nunc.mul %x, %4 : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %6 = nunc.mul %gamma, %5 : (tensor<8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %7 = nunc.add %x, %6 : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %7 : tensor<2x3x8xf32>
}

// -----

// ONNX's RMSNormalization body: Mul(x, x), ReduceMean, eps + mean (swapped),
// Sqrt, Div(x, root); no scale: a scale of ones.

// CHECK-LABEL: func.func @rms_division(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x16xf32>)
// CHECK: %[[G:.*]] = nunc.constant dense<1.000000e+00> : tensor<16xf32>
// CHECK-NEXT: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[G]] {axis = 1 : i64, rms}
// CHECK-NEXT: return %[[Y]]
func.func @rms_division(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %axes = nunc.constant dense<[1]> : tensor<1xi64>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %0 = nunc.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = nunc.reduce_mean %0 axes %axes : tensor<1xi64> : tensor<4x16xf32> -> tensor<4x1xf32>
  %2 = nunc.add %eps, %1 : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %3 = nunc.sqrt %2 : tensor<4x1xf32> -> tensor<4x1xf32>
  %4 = nunc.div %x, %3 : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  return %4 : tensor<4x16xf32>
}

// -----

// Not RMSNorm: the root divides another tensor than the one squared; the
// root has a second reader; the square is x^3; the mean is over a leading
// axis. Nothing fuses.

// CHECK-LABEL: func.func @rms_near_misses(
// CHECK-NOT: nunc.layer_norm
// CHECK: return
func.func @rms_near_misses(%x: tensor<4x16xf32>, %z: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %axes = nunc.constant dense<[1]> : tensor<1xi64>
  %axes0 = nunc.constant dense<[0]> : tensor<1xi64>
  %eps = nunc.constant dense<1.0e-05> : tensor<f32>
  %three = nunc.constant dense<3.0> : tensor<f32>
  %0 = nunc.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = nunc.reduce_mean %0 axes %axes : tensor<1xi64> : tensor<4x16xf32> -> tensor<4x1xf32>
  %2 = nunc.add %1, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %3 = nunc.sqrt %2 : tensor<4x1xf32> -> tensor<4x1xf32>
  %4 = nunc.div %z, %3 : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %10 = nunc.mul %z, %z : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %11 = nunc.reduce_mean %10 axes %axes : tensor<1xi64> : tensor<4x16xf32> -> tensor<4x1xf32>
  %12 = nunc.add %11, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %13 = nunc.sqrt %12 : tensor<4x1xf32> -> tensor<4x1xf32>
  %14 = nunc.div %z, %13 : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %20 = nunc.pow %x, %three : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %21 = nunc.reduce_mean %20 axes %axes : tensor<1xi64> : tensor<4x16xf32> -> tensor<4x1xf32>
  %22 = nunc.add %21, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %23 = nunc.sqrt %22 : tensor<4x1xf32> -> tensor<4x1xf32>
  %24 = nunc.div %x, %23 : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %30 = nunc.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %31 = nunc.reduce_mean %30 axes %axes0 : tensor<1xi64> : tensor<4x16xf32> -> tensor<1x16xf32>
  %32 = nunc.add %31, %eps : (tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
  %33 = nunc.sqrt %32 : tensor<1x16xf32> -> tensor<1x16xf32>
  %34 = nunc.div %x, %33 : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  return %4, %14, %13, %24, %34 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// f16 constants near but not exactly 1 and 2 (within a half float's
// precision): c / root and Pow(x, 2.001) are no RMSNorm.

// CHECK-LABEL: func.func @rms_inexact_constants(
// CHECK-NOT: nunc.layer_norm
// CHECK: return
func.func @rms_inexact_constants(%x: tensor<4x16xf16>) -> (tensor<4x16xf16>, tensor<4x16xf16>) {
  %axes = nunc.constant dense<[1]> : tensor<1xi64>
  %eps = nunc.constant dense<1.0e-03> : tensor<f16>
  %c = nunc.constant dense<0.99951> : tensor<f16>
  %two = nunc.constant dense<2.0> : tensor<f16>
  %twoish = nunc.constant dense<2.002> : tensor<f16>
  %0 = nunc.pow %x, %two : (tensor<4x16xf16>, tensor<f16>) -> tensor<4x16xf16>
  %1 = nunc.reduce_mean %0 axes %axes : tensor<1xi64> : tensor<4x16xf16> -> tensor<4x1xf16>
  %2 = nunc.add %1, %eps : (tensor<4x1xf16>, tensor<f16>) -> tensor<4x1xf16>
  %3 = nunc.sqrt %2 : tensor<4x1xf16> -> tensor<4x1xf16>
  %4 = nunc.div %c, %3 : (tensor<f16>, tensor<4x1xf16>) -> tensor<4x1xf16>
  %5 = nunc.mul %x, %4 : (tensor<4x16xf16>, tensor<4x1xf16>) -> tensor<4x16xf16>
  %10 = nunc.pow %x, %twoish : (tensor<4x16xf16>, tensor<f16>) -> tensor<4x16xf16>
  %11 = nunc.reduce_mean %10 axes %axes : tensor<1xi64> : tensor<4x16xf16> -> tensor<4x1xf16>
  %12 = nunc.add %11, %eps : (tensor<4x1xf16>, tensor<f16>) -> tensor<4x1xf16>
  %13 = nunc.sqrt %12 : tensor<4x1xf16> -> tensor<4x1xf16>
  %14 = nunc.div %x, %13 : (tensor<4x16xf16>, tensor<4x1xf16>) -> tensor<4x16xf16>
  return %5, %14 : tensor<4x16xf16>, tensor<4x16xf16>
}

// -----

// An f16 RMSNorm with exact constants fuses (the generic kernel or the
// stash casts run it; the pattern takes any float type).

// CHECK-LABEL: func.func @rms_half(
// CHECK: nunc.layer_norm %arg0, %{{.*}} {axis = 1 : i64, epsilon = 9.765625E-4 : f32, rms} : tensor<4x16xf16>, tensor<16xf16>
func.func @rms_half(%x: tensor<4x16xf16>, %g: tensor<16xf16>) -> tensor<4x16xf16> {
  %axes = nunc.constant dense<[1]> : tensor<1xi64>
  %eps = nunc.constant dense<9.765625E-4> : tensor<f16>
  %one = nunc.constant dense<1.0> : tensor<f16>
  %0 = nunc.mul %x, %x : (tensor<4x16xf16>, tensor<4x16xf16>) -> tensor<4x16xf16>
  %1 = nunc.reduce_mean %0 axes %axes : tensor<1xi64> : tensor<4x16xf16> -> tensor<4x1xf16>
  %2 = nunc.add %1, %eps : (tensor<4x1xf16>, tensor<f16>) -> tensor<4x1xf16>
  %3 = nunc.sqrt %2 : tensor<4x1xf16> -> tensor<4x1xf16>
  %4 = nunc.div %one, %3 : (tensor<f16>, tensor<4x1xf16>) -> tensor<4x1xf16>
  %5 = nunc.mul %4, %x : (tensor<4x1xf16>, tensor<4x16xf16>) -> tensor<4x16xf16>
  %6 = nunc.mul %5, %g : (tensor<4x16xf16>, tensor<16xf16>) -> tensor<4x16xf16>
  return %6 : tensor<4x16xf16>
}
