// RUN: nunc-opt %s -split-input-file --nunc-fuse-activations | FileCheck %s

// ONNX's HardSigmoid as the importer spells it (Mul, Add, Clip to [0, 1])
// and HardSwish (x times that) become nunc.hard_sigmoid / nunc.hard_swish
// with the model's alpha and beta.

// CHECK-LABEL: func.func @onnx_forms(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x5xf32>)
// CHECK-NEXT: %[[S:.*]] = nunc.hard_sigmoid %[[X]] {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : tensor<2x5xf32> -> tensor<2x5xf32>
// CHECK-NEXT: %[[W:.*]] = nunc.hard_swish %[[X]] {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32} : tensor<2x5xf32> -> tensor<2x5xf32>
// CHECK-NEXT: return %[[S]], %[[W]]
func.func @onnx_forms(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %a = nunc.constant dense<0.2> : tensor<f32>
  %b = nunc.constant dense<0.5> : tensor<f32>
  %a6 = nunc.constant dense<0.166666672> : tensor<f32>
  %zero = nunc.constant dense<0.0> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %0 = nunc.mul %x, %a : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x5xf32>
  %1 = nunc.add %0, %b : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x5xf32>
  %2 = nunc.clip %1 min %zero : tensor<f32> max %one : tensor<f32> : tensor<2x5xf32> -> tensor<2x5xf32>
  %3 = nunc.mul %a6, %x : (tensor<f32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %4 = nunc.add %b, %3 : (tensor<f32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %5 = nunc.clip %4 min %zero : tensor<f32> max %one : tensor<f32> : tensor<2x5xf32> -> tensor<2x5xf32>
  %6 = nunc.mul %5, %x : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  return %2, %6 : tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// The exporters' relu6(x + 3) / 6: as a hard sigmoid (Div, or Mul by 1/6),
// and paddle2onnx's hardswish x * clip(x + 3, 0, 6) / 6 (the division after
// the product), with the constants as [1] tensors as paddle writes them.

// CHECK-LABEL: func.func @relu6_forms(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x4x3x3xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.hard_sigmoid %[[X]] {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32}
// CHECK-NEXT: %[[B:.*]] = nunc.hard_sigmoid %[[X]] {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32}
// CHECK-NEXT: %[[C:.*]] = nunc.hard_swish %[[X]] {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32}
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
func.func @relu6_forms(%x: tensor<1x4x3x3xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) {
  %three = nunc.constant dense<3.0> : tensor<1xf32>
  %six = nunc.constant dense<6.0> : tensor<1xf32>
  %sixth = nunc.constant dense<0.166666672> : tensor<1xf32>
  %zero = nunc.constant dense<0.0> : tensor<f32>
  %six0 = nunc.constant dense<6.0> : tensor<f32>
  %0 = nunc.add %x, %three : (tensor<1x4x3x3xf32>, tensor<1xf32>) -> tensor<1x4x3x3xf32>
  %1 = nunc.clip %0 min %zero : tensor<f32> max %six0 : tensor<f32> : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  %2 = nunc.div %1, %six : (tensor<1x4x3x3xf32>, tensor<1xf32>) -> tensor<1x4x3x3xf32>
  %3 = nunc.add %x, %three : (tensor<1x4x3x3xf32>, tensor<1xf32>) -> tensor<1x4x3x3xf32>
  %4 = nunc.clip %3 min %zero : tensor<f32> max %six0 : tensor<f32> : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  %5 = nunc.mul %4, %sixth : (tensor<1x4x3x3xf32>, tensor<1xf32>) -> tensor<1x4x3x3xf32>
  %6 = nunc.add %x, %three : (tensor<1x4x3x3xf32>, tensor<1xf32>) -> tensor<1x4x3x3xf32>
  %7 = nunc.clip %6 min %zero : tensor<f32> max %six0 : tensor<f32> : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  %8 = nunc.mul %x, %7 : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %9 = nunc.div %8, %six : (tensor<1x4x3x3xf32>, tensor<1xf32>) -> tensor<1x4x3x3xf32>
  return %2, %5, %9 : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>
}

// -----

// What stays: a clamp to other bounds than [0, 1] (or [0, d] divided by
// another d), an intermediate another op also reads (the Mul, returned),
// f16, and d divided by the clamp (or its product) rather than by d.

// CHECK-LABEL: func.func @not_hard(
// CHECK-NOT: nunc.hard_
// CHECK: return
func.func @not_hard(%x: tensor<8xf32>, %h: tensor<8xf16>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>) {
  %a = nunc.constant dense<0.2> : tensor<f32>
  %b = nunc.constant dense<0.5> : tensor<f32>
  %zero = nunc.constant dense<0.0> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %three = nunc.constant dense<3.0> : tensor<f32>
  %six = nunc.constant dense<6.0> : tensor<f32>
  %five = nunc.constant dense<5.0> : tensor<f32>
  %0 = nunc.mul %x, %a : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = nunc.add %0, %b : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %2 = nunc.clip %1 min %zero : tensor<f32> max %two : tensor<f32> : tensor<8xf32> -> tensor<8xf32>
  %3 = nunc.add %x, %three : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %4 = nunc.clip %3 min %zero : tensor<f32> max %six : tensor<f32> : tensor<8xf32> -> tensor<8xf32>
  %5 = nunc.div %4, %five : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %6 = nunc.mul %x, %a : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %7 = nunc.add %6, %b : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %8 = nunc.clip %7 min %zero : tensor<f32> max %one : tensor<f32> : tensor<8xf32> -> tensor<8xf32>
  %ha = nunc.constant dense<0.2> : tensor<f16>
  %hb = nunc.constant dense<0.5> : tensor<f16>
  %h0 = nunc.constant dense<0.0> : tensor<f16>
  %h1 = nunc.constant dense<1.0> : tensor<f16>
  %10 = nunc.mul %h, %ha : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
  %11 = nunc.add %10, %hb : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
  %12 = nunc.clip %11 min %h0 : tensor<f16> max %h1 : tensor<f16> : tensor<8xf16> -> tensor<8xf16>
  %13 = nunc.add %x, %three : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %14 = nunc.clip %13 min %zero : tensor<f32> max %six : tensor<f32> : tensor<8xf32> -> tensor<8xf32>
  %15 = nunc.div %six, %14 : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %16 = nunc.add %x, %three : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %17 = nunc.clip %16 min %zero : tensor<f32> max %six : tensor<f32> : tensor<8xf32> -> tensor<8xf32>
  %18 = nunc.mul %x, %17 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %19 = nunc.div %six, %18 : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  return %2, %5, %8, %6, %12, %15, %19 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A NaN or infinite shift or scale keeps the model's ops: the fused op's
// clamp would make a bound of clip(x + NaN)'s NaN, and x = -inf would meet
// +inf inside alpha * x + beta where the model adds it to x + 3 only.

// CHECK-LABEL: func.func @not_finite(
// CHECK-NOT: nunc.hard_
// CHECK: return
func.func @not_finite(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %nan = nunc.constant dense<0x7FC00000> : tensor<f32>
  %inf = nunc.constant dense<0x7F800000> : tensor<f32>
  %b = nunc.constant dense<0.5> : tensor<f32>
  %zero = nunc.constant dense<0.0> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %six = nunc.constant dense<6.0> : tensor<f32>
  %0 = nunc.add %x, %nan : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = nunc.clip %0 min %zero : tensor<f32> max %six : tensor<f32> : tensor<8xf32> -> tensor<8xf32>
  %2 = nunc.mul %x, %1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = nunc.div %2, %six : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %4 = nunc.add %x, %inf : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %5 = nunc.clip %4 min %zero : tensor<f32> max %six : tensor<f32> : tensor<8xf32> -> tensor<8xf32>
  %6 = nunc.div %5, %six : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %7 = nunc.mul %x, %nan : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %8 = nunc.add %7, %b : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %9 = nunc.clip %8 min %zero : tensor<f32> max %one : tensor<f32> : tensor<8xf32> -> tensor<8xf32>
  return %3, %6, %9 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// y * hard_sigmoid(x) is no hard swish: the sigmoid alone fuses.

// CHECK-LABEL: func.func @other_factor(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8xf32>, %[[Y:[^:]*]]: tensor<8xf32>)
// CHECK-NEXT: %[[S:.*]] = nunc.hard_sigmoid %[[X]]
// CHECK-NEXT: %[[P:.*]] = nunc.mul %[[Y]], %[[S]]
// CHECK-NEXT: return %[[P]]
func.func @other_factor(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %a = nunc.constant dense<0.2> : tensor<f32>
  %b = nunc.constant dense<0.5> : tensor<f32>
  %zero = nunc.constant dense<0.0> : tensor<f32>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %0 = nunc.mul %x, %a : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = nunc.add %0, %b : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %2 = nunc.clip %1 min %zero : tensor<f32> max %one : tensor<f32> : tensor<8xf32> -> tensor<8xf32>
  %3 = nunc.mul %y, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %3 : tensor<8xf32>
}

// -----

// SiLU: x * sigmoid(x) in either order; a Mul by 1 (paddle's Swish beta)
// folds away first. A sigmoid another op reads too stays.

// CHECK-LABEL: func.func @silu(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8xf32>
// CHECK-NEXT: %[[A:.*]] = nunc.silu %[[X]] : tensor<8xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[S:.*]] = nunc.sigmoid %[[X]]
// CHECK-NEXT: %[[B:.*]] = nunc.mul %[[S]], %[[X]]
// CHECK-NEXT: return %[[A]], %[[B]], %[[S]]
func.func @silu(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %one = nunc.constant dense<1.0> : tensor<1xf32>
  %0 = nunc.mul %x, %one : (tensor<8xf32>, tensor<1xf32>) -> tensor<8xf32>
  %1 = nunc.sigmoid %0 : tensor<8xf32> -> tensor<8xf32>
  %2 = nunc.mul %1, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = nunc.sigmoid %x : tensor<8xf32> -> tensor<8xf32>
  %4 = nunc.mul %3, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %2, %4, %3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
