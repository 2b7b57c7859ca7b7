// RUN: nunc-opt %s -split-input-file --nunc-fuse-gelu | FileCheck %s

// GELU as torch exports it (opset < 20):
//   Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5)
// becomes one nunc.gelu (approximate = "none", the default, so not printed),
// and every op and constant of the subgraph is gone.

// CHECK-LABEL: func.func @erf_torch(
// CHECK-SAME: %[[X:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: return %[[G]] : tensor<2x8xf32>
// CHECK-NOT: nunc.
func.func @erf_torch(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = nunc.erf %0 : tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = nunc.add %1, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nunc.mul %x, %2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = nunc.mul %3, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// x * (1/sqrt 2) instead of x / sqrt 2, every commutative operand swapped
// (constants first), and the other association: (0.5 * x) * (1 + erf).

// CHECK-LABEL: func.func @erf_mul_swapped(
// CHECK-SAME: %[[X:.*]]: tensor<3x5xf32>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] : tensor<3x5xf32> -> tensor<3x5xf32>
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: nunc.
func.func @erf_mul_swapped(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %inv = nunc.constant dense<0.707106769> : tensor<1xf32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.mul %inv, %x : (tensor<1xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %1 = nunc.erf %0 : tensor<3x5xf32> -> tensor<3x5xf32>
  %2 = nunc.add %one, %1 : (tensor<f32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %3 = nunc.mul %half, %x : (tensor<f32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %4 = nunc.mul %2, %3 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return %4 : tensor<3x5xf32>
}

// -----

// The third association, x * (0.5 * (1 + erf)) (as HF writes `x * cdf`), with
// a splat constant of full shape for the 0.5.

// CHECK-LABEL: func.func @erf_cdf(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: nunc.
func.func @erf_cdf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<4xf32>
  %0 = nunc.div %x, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = nunc.erf %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = nunc.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = nunc.mul %2, %half : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = nunc.mul %x, %3 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// The tanh approximation with Pow(x, 3), as HF's NewGELUActivation writes it:
// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).

// CHECK-LABEL: func.func @tanh_pow(
// CHECK-SAME: %[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] {approximate = "tanh"} : tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: nunc.
func.func @tanh_pow(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %three = nunc.constant dense<3.0> : tensor<f32>
  %kappa = nunc.constant dense<0.044715> : tensor<f32>
  %beta = nunc.constant dense<0.797884583> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.pow %x, %three : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %1 = nunc.mul %0, %kappa : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %2 = nunc.add %x, %1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = nunc.mul %2, %beta : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %4 = nunc.tanh %3 : tensor<2x4xf32> -> tensor<2x4xf32>
  %5 = nunc.add %4, %one : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %6 = nunc.mul %x, %half : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %7 = nunc.mul %6, %5 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %7 : tensor<2x4xf32>
}

// -----

// The tanh form with every commutative operand swapped.

// CHECK-LABEL: func.func @tanh_swapped(
// CHECK-SAME: %[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] {approximate = "tanh"} : tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: nunc.
func.func @tanh_swapped(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %three = nunc.constant dense<3.0> : tensor<f32>
  %kappa = nunc.constant dense<0.044715> : tensor<f32>
  %beta = nunc.constant dense<0.797884583> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.pow %x, %three : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %1 = nunc.mul %kappa, %0 : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = nunc.add %1, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = nunc.mul %beta, %2 : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = nunc.tanh %3 : tensor<2x4xf32> -> tensor<2x4xf32>
  %5 = nunc.add %one, %4 : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = nunc.mul %5, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %7 = nunc.mul %half, %6 : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %7 : tensor<2x4xf32>
}

// -----

// A GELU whose result is multiplied further: the outer Mul has four factors,
// so only the inner tree becomes nunc.gelu and the outer Mul stays.

// CHECK-LABEL: func.func @gelu_times_y(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = nunc.mul %[[G]], %[[Y]]
// CHECK-NEXT: return %[[M]]
func.func @gelu_times_y(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = nunc.erf %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = nunc.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = nunc.mul %x, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = nunc.mul %3, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = nunc.mul %4, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %5 : tensor<4xf32>
}

// -----

// A half-precision model exports its constants in f16: sqrt(2) is stored as
// 1.4140625 (the nearest f16), which is still GELU and must still fuse.

// CHECK-LABEL: func.func @erf_f16(
// CHECK-SAME: %[[X:.*]]: tensor<2x8xf16>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] : tensor<2x8xf16> -> tensor<2x8xf16>
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: nunc.
func.func @erf_f16(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f16>
  %one = nunc.constant dense<1.0> : tensor<f16>
  %half = nunc.constant dense<0.5> : tensor<f16>
  %0 = nunc.div %x, %sqrt2 : (tensor<2x8xf16>, tensor<f16>) -> tensor<2x8xf16>
  %1 = nunc.erf %0 : tensor<2x8xf16> -> tensor<2x8xf16>
  %2 = nunc.add %1, %one : (tensor<2x8xf16>, tensor<f16>) -> tensor<2x8xf16>
  %3 = nunc.mul %x, %2 : (tensor<2x8xf16>, tensor<2x8xf16>) -> tensor<2x8xf16>
  %4 = nunc.mul %3, %half : (tensor<2x8xf16>, tensor<f16>) -> tensor<2x8xf16>
  return %4 : tensor<2x8xf16>
}

// -----

// The tanh form exactly as torch's own exporter writes GELU(approximate=
// "tanh") (symbolic_opset9.gelu): the cube is Mul(x, Mul(x, x)), and
// Mul(0.5, Mul(x, Add(1, Tanh(Mul(beta, Add(x, Mul(kappa, cube))))))).

// CHECK-LABEL: func.func @tanh_torch_cube(
// CHECK-SAME: %[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] {approximate = "tanh"} : tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: nunc.
func.func @tanh_torch_cube(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %kappa = nunc.constant dense<0.044715> : tensor<f32>
  %beta = nunc.constant dense<0.797884583> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.mul %x, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.mul %x, %0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = nunc.mul %kappa, %1 : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = nunc.add %x, %2 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = nunc.mul %beta, %3 : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %5 = nunc.tanh %4 : tensor<2x4xf32> -> tensor<2x4xf32>
  %6 = nunc.add %one, %5 : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %7 = nunc.mul %x, %6 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = nunc.mul %half, %7 : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %8 : tensor<2x4xf32>
}

// -----

// Pow with an integer exponent (Pow's exponent may have its own type): x^3
// all the same.

// CHECK-LABEL: func.func @tanh_int_exponent(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] {approximate = "tanh"} : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: nunc.
func.func @tanh_int_exponent(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = nunc.constant dense<3> : tensor<i64>
  %kappa = nunc.constant dense<0.044715> : tensor<f32>
  %beta = nunc.constant dense<0.797884583> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.pow %x, %three : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  %1 = nunc.mul %0, %kappa : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = nunc.add %x, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = nunc.mul %2, %beta : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = nunc.tanh %3 : tensor<4xf32> -> tensor<4xf32>
  %5 = nunc.add %4, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = nunc.mul %x, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %7 = nunc.mul %6, %5 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %7 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Negative cases: nothing is fused and every op stays.
//===----------------------------------------------------------------------===//

// 0.6 instead of 0.5.

// CHECK-LABEL: func.func @wrong_half(
// CHECK-NOT: nunc.gelu
// CHECK: nunc.div
// CHECK-NEXT: nunc.erf
// CHECK-NEXT: nunc.add
// CHECK-NEXT: nunc.mul
// CHECK-NEXT: nunc.mul
// CHECK-NEXT: return
func.func @wrong_half(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.6> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = nunc.erf %0 : tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = nunc.add %1, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = nunc.mul %x, %2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = nunc.mul %3, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// Div by 2 instead of sqrt(2); Mul by sqrt(2) instead of 1/sqrt(2).

// CHECK-LABEL: func.func @wrong_erf_scale(
// CHECK-NOT: nunc.gelu
// CHECK: nunc.div
// CHECK: nunc.erf
// CHECK: nunc.mul
// CHECK: nunc.erf
// CHECK-NOT: nunc.gelu
// CHECK: return
func.func @wrong_erf_scale(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %two = nunc.constant dense<2.0> : tensor<f32>
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.div %x, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = nunc.erf %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = nunc.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = nunc.mul %x, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = nunc.mul %3, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = nunc.mul %x, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = nunc.erf %5 : tensor<4xf32> -> tensor<4xf32>
  %7 = nunc.add %6, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %8 = nunc.mul %x, %7 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %9 = nunc.mul %8, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4, %9 : tensor<4xf32>, tensor<4xf32>
}

// -----

// 2 instead of 1 in (1 + erf).

// CHECK-LABEL: func.func @wrong_one(
// CHECK-NOT: nunc.gelu
// CHECK: nunc.erf
// CHECK: return
func.func @wrong_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = nunc.erf %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = nunc.add %1, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = nunc.mul %x, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = nunc.mul %3, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// The erf result has a second use: fusing would have to keep it alive anyway.

// CHECK-LABEL: func.func @erf_second_use(
// CHECK-NOT: nunc.gelu
// CHECK: %[[E:.*]] = nunc.erf
// CHECK: nunc.add %[[E]]
// CHECK: nunc.mul
// CHECK: %[[R:.*]] = nunc.mul
// CHECK: return %[[R]], %[[E]]
func.func @erf_second_use(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = nunc.erf %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = nunc.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = nunc.mul %x, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = nunc.mul %3, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The inner product x * (1 + erf) has a second use.

// CHECK-LABEL: func.func @product_second_use(
// CHECK-NOT: nunc.gelu
// CHECK: nunc.erf
// CHECK: %[[P:.*]] = nunc.mul
// CHECK: %[[R:.*]] = nunc.mul %[[P]]
// CHECK: return %[[R]], %[[P]]
func.func @product_second_use(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = nunc.erf %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = nunc.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = nunc.mul %x, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = nunc.mul %3, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// erf of a different tensor: y * 0.5 * (1 + erf(x / sqrt 2)) is not GELU.

// CHECK-LABEL: func.func @different_operand(
// CHECK-NOT: nunc.gelu
// CHECK: nunc.erf
// CHECK: return
func.func @different_operand(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = nunc.erf %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = nunc.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = nunc.mul %y, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = nunc.mul %3, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// Tanh form with x^2 instead of x^3, and with 0.05 instead of 0.044715.

// CHECK-LABEL: func.func @tanh_wrong_constants(
// CHECK-NOT: nunc.gelu
// CHECK: nunc.pow
// CHECK: nunc.tanh
// CHECK: nunc.pow
// CHECK: nunc.tanh
// CHECK-NOT: nunc.gelu
// CHECK: return
func.func @tanh_wrong_constants(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %two = nunc.constant dense<2.0> : tensor<f32>
  %three = nunc.constant dense<3.0> : tensor<f32>
  %kappa = nunc.constant dense<0.044715> : tensor<f32>
  %wrongkappa = nunc.constant dense<0.05> : tensor<f32>
  %beta = nunc.constant dense<0.797884583> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.pow %x, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = nunc.mul %0, %kappa : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = nunc.add %x, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = nunc.mul %2, %beta : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = nunc.tanh %3 : tensor<4xf32> -> tensor<4xf32>
  %5 = nunc.add %4, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = nunc.mul %x, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %7 = nunc.mul %6, %5 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %10 = nunc.pow %x, %three : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %11 = nunc.mul %10, %wrongkappa : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %12 = nunc.add %x, %11 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %13 = nunc.mul %12, %beta : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %14 = nunc.tanh %13 : tensor<4xf32> -> tensor<4xf32>
  %15 = nunc.add %14, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %16 = nunc.mul %x, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %17 = nunc.mul %16, %15 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %7, %17 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tanh form where the cubic term is of another tensor: x + 0.044715 * y^3.

// CHECK-LABEL: func.func @tanh_cube_of_other(
// CHECK-NOT: nunc.gelu
// CHECK: nunc.tanh
// CHECK: return
func.func @tanh_cube_of_other(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %three = nunc.constant dense<3.0> : tensor<f32>
  %kappa = nunc.constant dense<0.044715> : tensor<f32>
  %beta = nunc.constant dense<0.797884583> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.pow %y, %three : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = nunc.mul %0, %kappa : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = nunc.add %x, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = nunc.mul %2, %beta : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = nunc.tanh %3 : tensor<4xf32> -> tensor<4xf32>
  %5 = nunc.add %4, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = nunc.mul %x, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %7 = nunc.mul %6, %5 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %7 : tensor<4xf32>
}

// -----

// GELU in a QDQ model (quantize_static): a Q/DQ pair, by now a
// fake_quantize, after the Erf, the Add of 1 and the Mul by x, then the Mul
// by 0.5 (operands swapped here). The pairs become the gelu's grids.

// CHECK-LABEL: func.func @erf_qdq(
// CHECK-SAME: %[[X:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] {erf_quantization = !quant.uniform<u8:f32, 7.812500e-03:128>, product_quantization = !quant.uniform<u8:f32, 6.250000e-02:20>, sum_quantization = !quant.uniform<u8:f32, 7.812500e-03>} : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: return %[[G]] : tensor<2x8xf32>
func.func @erf_qdq(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = nunc.erf %0 : tensor<2x8xf32> -> tensor<2x8xf32>
  %e = nunc.fake_quantize %1 {quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = nunc.add %one, %e : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = nunc.fake_quantize %2 {quantization = !quant.uniform<u8:f32, 0.0078125>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = nunc.mul %s, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %p = nunc.fake_quantize %3 {quantization = !quant.uniform<u8:f32, 0.0625:20>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = nunc.mul %half, %p : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// The same with a dequantized 1 and 0.5 that are not exactly 1 and 0.5:
// quantize_static with symmetric activations quantizes them too (0.99608,
// 0.49804). With grids around them a constant a little off moves values
// across rounding boundaries, so the gelu carries them exactly (`one`,
// `half`).

// CHECK-LABEL: func.func @erf_qdq_quantized_constants(
// CHECK-SAME: %[[X:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[G:.*]] = nunc.gelu %[[X]] {erf_quantization = !quant.uniform<u8:f32, 7.812500e-03:128>, half = 0.498039246 : f32, one = 0.996078491 : f32, product_quantization = !quant.uniform<u8:f32, 6.250000e-02:20>, sum_quantization = !quant.uniform<u8:f32, 7.812500e-03>} : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: return %[[G]] : tensor<2x8xf32>
func.func @erf_qdq_quantized_constants(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<0.996078491> : tensor<f32>
  %half = nunc.constant dense<0.498039246> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = nunc.erf %0 : tensor<2x8xf32> -> tensor<2x8xf32>
  %e = nunc.fake_quantize %1 {quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = nunc.add %e, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %s = nunc.fake_quantize %2 {quantization = !quant.uniform<u8:f32, 0.0078125>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = nunc.mul %s, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %p = nunc.fake_quantize %3 {quantization = !quant.uniform<u8:f32, 0.0625:20>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = nunc.mul %p, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// Constants that are codes of grids (the Add and the Mul that read them
// record the grids, from nunc-constant-folding): the gelu records them for
// onnxruntime's QLinearAdd / QLinearMul steps (one_quantization,
// half_quantization), where erf's argument is a Div by sqrt 2 and the 1 the
// Add's second operand. Not: a Mul by 1 / sqrt 2 (those steps divide), a 1
// as the Add's first operand (QLinearAdd rounds in its operands' order).

// CHECK-LABEL: func.func @erf_qdq_constants_codes(
// CHECK: nunc.gelu %{{.*}} {erf_quantization = !quant.uniform<u8:f32, 7.812500e-03:128>, half_quantization = !quant.uniform<u8:f32, 0.0019{{[0-9]*}}>, one_quantization = !quant.uniform<u8:f32, 0.0039{{[0-9]*}}>, product_quantization
// CHECK: nunc.gelu %{{.*}} {erf_quantization = !quant.uniform<u8:f32, 7.812500e-03:128>, product_quantization
// CHECK: nunc.gelu %{{.*}} {erf_quantization = !quant.uniform<u8:f32, 7.812500e-03:128>, product_quantization
func.func @erf_qdq_constants_codes(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %rsqrt2 = nunc.constant dense<0.707106769> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = nunc.erf %0 : tensor<2x8xf32> -> tensor<2x8xf32>
  %e = nunc.fake_quantize %1 {quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = nunc.add %e, %one {nunc.rhs_codes_grid = !quant.uniform<u8:f32, 0.0039215689>} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %s = nunc.fake_quantize %2 {quantization = !quant.uniform<u8:f32, 0.0078125>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = nunc.mul %s, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %p = nunc.fake_quantize %3 {quantization = !quant.uniform<u8:f32, 0.0625:20>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = nunc.mul %half, %p {nunc.lhs_codes_grid = !quant.uniform<u8:f32, 0.0019607844>} : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %m0 = nunc.mul %x, %rsqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %m1 = nunc.erf %m0 : tensor<2x8xf32> -> tensor<2x8xf32>
  %me = nunc.fake_quantize %m1 {quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %m2 = nunc.add %me, %one {nunc.rhs_codes_grid = !quant.uniform<u8:f32, 0.0039215689>} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %ms = nunc.fake_quantize %m2 {quantization = !quant.uniform<u8:f32, 0.0078125>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %m3 = nunc.mul %ms, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %mp = nunc.fake_quantize %m3 {quantization = !quant.uniform<u8:f32, 0.0625:20>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %m4 = nunc.mul %half, %mp {nunc.lhs_codes_grid = !quant.uniform<u8:f32, 0.0019607844>} : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %f0 = nunc.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %f1 = nunc.erf %f0 : tensor<2x8xf32> -> tensor<2x8xf32>
  %fe = nunc.fake_quantize %f1 {quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %f2 = nunc.add %one, %fe {nunc.lhs_codes_grid = !quant.uniform<u8:f32, 0.0039215689>} : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %fs = nunc.fake_quantize %f2 {quantization = !quant.uniform<u8:f32, 0.0078125>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %f3 = nunc.mul %fs, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %fp = nunc.fake_quantize %f3 {quantization = !quant.uniform<u8:f32, 0.0625:20>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %f4 = nunc.mul %half, %fp {nunc.lhs_codes_grid = !quant.uniform<u8:f32, 0.0019607844>} : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %4, %m4, %f4 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Constants further than 1 % from 1 and 0.5 are not GELU's: nothing fuses.

// CHECK-LABEL: func.func @erf_qdq_other_constant(
// CHECK-NOT: nunc.gelu
// CHECK: nunc.erf
func.func @erf_qdq_other_constant(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = nunc.constant dense<1.41421354> : tensor<f32>
  %one = nunc.constant dense<0.98> : tensor<f32>
  %half = nunc.constant dense<0.5> : tensor<f32>
  %0 = nunc.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = nunc.erf %0 : tensor<2x8xf32> -> tensor<2x8xf32>
  %e = nunc.fake_quantize %1 {quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = nunc.add %one, %e : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = nunc.fake_quantize %2 {quantization = !quant.uniform<u8:f32, 0.0078125>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = nunc.mul %s, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %p = nunc.fake_quantize %3 {quantization = !quant.uniform<u8:f32, 0.0625:20>} : tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = nunc.mul %half, %p : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}
