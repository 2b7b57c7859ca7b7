// RUN: nunc-opt %s -split-input-file -verify-diagnostics --nunc-constant-folding | FileCheck %s
// RUN: nunc-opt %s -split-input-file -verify-diagnostics --nunc-constant-folding=max-elements=4 | FileCheck %s --check-prefix=LIMIT
// RUN: nunc-opt %s -split-input-file -verify-diagnostics --nunc-constant-folding=keep-quantized-weights=false | FileCheck %s --check-prefix=NOKEEP
// RUN: nunc-opt %s -split-input-file -verify-diagnostics --nunc-constant-folding=keep-conv-weights=false | FileCheck %s --check-prefix=NOCONV
// RUN: nunc-opt %s -split-input-file -verify-diagnostics --nunc-constant-folding --canonicalize | FileCheck %s --check-prefix=UNIQUED

// Expected values follow ONNX (numpy) semantics. Result types declared less
// precisely than the operands allow are refined before folding, and the
// function's result types follow.

// CHECK-LABEL: func.func @elementwise()
// CHECK-SAME: -> (tensor<3xf32>, tensor<4xi32>, tensor<2x2xf32>, tensor<2xf32>, tensor<3xi1>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<4xi32>, tensor<2xi32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xui8>)
func.func @elementwise() -> (tensor<*xf32>, tensor<4xi32>, tensor<2x2xf32>, tensor<2xf32>, tensor<3xi1>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<4xi32>, tensor<2xi32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xui8>) {
  // CHECK-NEXT: %[[SUB:.*]] = nunc.constant dense<[1.000000e+00, -6.000000e+00, 4.500000e+00]> : tensor<3xf32>
  %a = nunc.constant dense<[1.5, -2.0, 3.25]> : tensor<3xf32>
  %b = nunc.constant dense<[0.5, 4.0, -1.25]> : tensor<3xf32>
  %0 = nunc.sub %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  // Integer division truncates toward zero.
  // CHECK-NEXT: %[[DIV:.*]] = nunc.constant dense<[-3, -3, -2, 3]> : tensor<4xi32>
  %n = nunc.constant dense<[-7, 7, -8, 9]> : tensor<4xi32>
  %d = nunc.constant dense<[2, -2, 3, 3]> : tensor<4xi32>
  %1 = nunc.div %n, %d : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // Broadcasting along the last dim.
  // CHECK-NEXT: %[[MUL:.*]] = nunc.constant dense<{{\[}}[1.000000e+01, 2.000000e+02], [3.000000e+01, 4.000000e+02]]> : tensor<2x2xf32>
  %m = nunc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = nunc.constant dense<[10.0, 100.0]> : tensor<2xf32>
  %2 = nunc.mul %m, %r : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  // Pow with an integer exponent keeps the base's type.
  // CHECK-NEXT: %[[POW:.*]] = nunc.constant dense<[8.000000e+00, -2.700000e+01]> : tensor<2xf32>
  %p = nunc.constant dense<[2.0, -3.0]> : tensor<2xf32>
  %e = nunc.constant dense<3> : tensor<i64>
  %3 = nunc.pow %p, %e : (tensor<2xf32>, tensor<i64>) -> tensor<2xf32>
  // CHECK-NEXT: %[[EQ:.*]] = nunc.constant dense<[true, false, true]> : tensor<3xi1>
  %i = nunc.constant dense<[1, 5, -2]> : tensor<3xi64>
  %j = nunc.constant dense<[1, 4, -2]> : tensor<3xi64>
  %4 = nunc.equal %i, %j : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  // CHECK-NEXT: %[[RELU:.*]] = nunc.constant dense<[0.000000e+00, 0.000000e+00, 2.500000e+00]> : tensor<3xf32>
  %x = nunc.constant dense<[-1.5, 0.0, 2.5]> : tensor<3xf32>
  %5 = nunc.relu %x : tensor<3xf32> -> tensor<3xf32>
  // CHECK-NEXT: %[[SQRT:.*]] = nunc.constant dense<[2.000000e+00, 5.000000e-01, 0.000000e+00]> : tensor<3xf32>
  %q = nunc.constant dense<[4.0, 0.25, 0.0]> : tensor<3xf32>
  %6 = nunc.sqrt %q : tensor<3xf32> -> tensor<3xf32>
  // Float to integer truncates toward zero.
  // CHECK-NEXT: %[[CASTI:.*]] = nunc.constant dense<[1, -1, 2]> : tensor<3xi32>
  %c = nunc.constant dense<[1.7, -1.7, 2.5]> : tensor<3xf32>
  %7 = nunc.cast %c {to = i32} : tensor<3xf32> -> tensor<3xi32>
  // Non-zero is true.
  // CHECK-NEXT: %[[CASTB:.*]] = nunc.constant dense<[false, true, true]> : tensor<3xi1>
  %z = nunc.constant dense<[0.0, -2.0, 0.5]> : tensor<3xf32>
  %8 = nunc.cast %z {to = i1} : tensor<3xf32> -> tensor<3xi1>
  // CHECK-NEXT: %[[CLIP:.*]] = nunc.constant dense<[0, 0, 5, 6]> : tensor<4xi32>
  %ci = nunc.constant dense<[-5, 0, 5, 10]> : tensor<4xi32>
  %lo = nunc.constant dense<0> : tensor<i32>
  %hi = nunc.constant dense<6> : tensor<i32>
  %9 = nunc.clip %ci min %lo : tensor<i32> max %hi : tensor<i32> : tensor<4xi32> -> tensor<4xi32>
  // CHECK-NEXT: %[[IPOW:.*]] = nunc.constant dense<[8, 27]> : tensor<2xi32>
  %ip = nunc.constant dense<[2, 3]> : tensor<2xi32>
  %10 = nunc.pow %ip, %e : (tensor<2xi32>, tensor<i64>) -> tensor<2xi32>
  // The condition broadcasts along the columns.
  // CHECK-NEXT: %[[WHERE:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 0.000000e+00], [3.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>
  %cond = nunc.constant dense<[true, false]> : tensor<2xi1>
  %zero = nunc.constant dense<0.0> : tensor<f32>
  %11 = nunc.where %cond, %m, %zero : (tensor<2xi1>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  // Float division by zero is IEEE: +inf and -inf, no error.
  // CHECK-NEXT: %[[FDIV:.*]] = nunc.constant dense<[0x7F800000, 0xFF800000]> : tensor<2xf32>
  %f1 = nunc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %f0 = nunc.constant dense<[0.0, 0.0]> : tensor<2xf32>
  %12 = nunc.div %f1, %f0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK-NEXT: %[[SIG:.*]] = nunc.constant dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf32>
  %s0 = nunc.constant dense<[0.0, 100.0]> : tensor<2xf32>
  %13 = nunc.sigmoid %s0 : tensor<2xf32> -> tensor<2xf32>
  // Unsigned arithmetic wraps: 250 + 10 = 4 (mod 256).
  // CHECK-NEXT: %[[U8:.*]] = nunc.constant dense<[4, 8, 130]> : tensor<3xui8>
  %u = nunc.constant dense<[250, 3, 128]> : tensor<3xui8>
  %u2 = nunc.constant dense<[10, 5, 2]> : tensor<3xui8>
  %14 = nunc.add %u, %u2 : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  // The operands of the folded ops are dead and erased.
  // CHECK-NEXT: return %[[SUB]], %[[DIV]], %[[MUL]], %[[POW]], %[[EQ]], %[[RELU]], %[[SQRT]], %[[CASTI]], %[[CASTB]], %[[CLIP]], %[[IPOW]], %[[WHERE]], %[[FDIV]], %[[SIG]], %[[U8]] :
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14 : tensor<*xf32>, tensor<4xi32>, tensor<2x2xf32>, tensor<2xf32>, tensor<3xi1>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi1>, tensor<4xi32>, tensor<2xi32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xui8>
}

// -----

// 16-bit floats and dense_resource operands.

// CHECK-LABEL: func.func @other_element_types()
func.func @other_element_types() -> (tensor<4xi32>, tensor<2xf16>, tensor<2xbf16>) {
  // CHECK-NEXT: %[[R:.*]] = nunc.constant dense<[11, 22, 33, 44]> : tensor<4xi32>
  %w = nunc.constant dense_resource<weights> : tensor<4xi32>
  %b = nunc.constant dense<[10, 20, 30, 40]> : tensor<4xi32>
  %0 = nunc.add %w, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK-NEXT: %[[H:.*]] = nunc.constant dense<[2.000000e+00, 2.500000e+00]> : tensor<2xf16>
  %h = nunc.constant dense<[1.5, 2.25]> : tensor<2xf16>
  %h2 = nunc.constant dense<[0.5, 0.25]> : tensor<2xf16>
  %1 = nunc.add %h, %h2 : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  // CHECK-NEXT: %[[G:.*]] = nunc.constant dense<[2.250000e+00, 9.000000e+00]> : tensor<2xbf16>
  %g = nunc.constant dense<[1.5, -3.0]> : tensor<2xbf16>
  %2 = nunc.mul %g, %g : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  // CHECK-NEXT: return %[[R]], %[[H]], %[[G]] :
  return %0, %1, %2 : tensor<4xi32>, tensor<2xf16>, tensor<2xbf16>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x0400000001000000020000000300000004000000"
    }
  }
#-}

// -----

// Linear algebra, reductions, data movement and quantization on constants.

// CHECK-LABEL: func.func @other_ops()
// CHECK-SAME: -> (tensor<2x2xf32>, tensor<3x3xf32>, tensor<2xf32>, tensor<1x1xi32>, tensor<3x2xf32>, tensor<2x1x2xi64>, tensor<2x2xf32>, tensor<2x6xf32>, tensor<2x2x2xf32>, tensor<2x2xi8>, tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<5xui8>, tensor<3xf32>, tensor<6x4xf32>, tensor<2x2xf32>, tensor<2x2xi32>)
func.func @other_ops() -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi32>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi8>, tensor<*xui8>, tensor<f32>, tensor<ui8>, tensor<*xui8>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi32>) {
  %a = nunc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = nunc.constant dense<[[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]]> : tensor<3x2xf32>
  // CHECK-NEXT: %[[MM:.*]] = nunc.constant dense<{{\[}}[7.000000e+00, -1.000000e+00], [1.600000e+01, -1.000000e+00]]> : tensor<2x2xf32>
  %0 = nunc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<*xf32>
  // 2 * A^T A + 4 * C, C broadcast over the rows.
  // CHECK-NEXT: %[[GEMM:.*]] = nunc.constant dense<{{\[}}[3.800000e+01, 4.000000e+01, 5.600000e+01], [4.800000e+01, 5.400000e+01, 7.400000e+01], [5.800000e+01, 6.800000e+01, 9.200000e+01]]> : tensor<3x3xf32>
  %c = nunc.constant dense<[1.0, -1.0, 0.5]> : tensor<3xf32>
  %1 = nunc.gemm %a, %a, %c : tensor<3xf32> {alpha = 2.0 : f32, beta = 4.0 : f32, transA = 1 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<*xf32>
  // CHECK-NEXT: %[[MEAN:.*]] = nunc.constant dense<[2.000000e+00, 5.000000e+00]> : tensor<2xf32>
  %ax = nunc.constant dense<[1]> : tensor<1xi64>
  %2 = nunc.reduce_mean %a axes %ax : tensor<1xi64> {keepdims = 0 : i64} : tensor<2x3xf32> -> tensor<*xf32>
  // Mean of integers: 13 / 4 truncated.
  // CHECK-NEXT: %[[IMEAN:.*]] = nunc.constant dense<3> : tensor<1x1xi32>
  %ia = nunc.constant dense<[[1, 2], [4, 6]]> : tensor<2x2xi32>
  %3 = nunc.reduce_mean %ia : tensor<2x2xi32> -> tensor<*xi32>
  // CHECK-NEXT: %[[TR:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
  %4 = nunc.transpose %a {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<*xf32>
  // CHECK-NEXT: %[[GATHER:.*]] = nunc.constant dense<{{\[}}{{\[}}[12, 10]], {{\[}}[15, 13]]]> : tensor<2x1x2xi64>
  %g = nunc.constant dense<[[10, 11, 12], [13, 14, 15]]> : tensor<2x3xi64>
  %gi = nunc.constant dense<[[-1, 0]]> : tensor<1x2xi64>
  %5 = nunc.gather %g, %gi {axis = 1 : i64} : (tensor<2x3xi64>, tensor<1x2xi64>) -> tensor<*xi64>
  // Columns 2 and 0 (start -1, step -2, end clamped).
  // CHECK-NEXT: %[[SLICE:.*]] = nunc.constant dense<{{\[}}[3.000000e+00, 1.000000e+00], [6.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %st = nunc.constant dense<[-1]> : tensor<1xi64>
  %en = nunc.constant dense<[-100]> : tensor<1xi64>
  %sp = nunc.constant dense<[-2]> : tensor<1xi64>
  %sa = nunc.constant dense<[1]> : tensor<1xi64>
  %6 = nunc.slice %a[%st : tensor<1xi64>, %en : tensor<1xi64> axes %sa : tensor<1xi64> steps %sp : tensor<1xi64>] : tensor<2x3xf32> -> tensor<*xf32>
  // CHECK-NEXT: %[[CONCAT:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 1.000000e+00, 0.000000e+00, 2.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 0.000000e+00, 1.000000e+00, -1.000000e+00]]> : tensor<2x6xf32>
  %bt = nunc.transpose %b {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  %7 = nunc.concat %a, %bt {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  // CHECK-NEXT: %[[EXPAND:.*]] = nunc.constant dense<{{\[}}{{\[}}[1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00]], {{\[}}[1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00]]]> : tensor<2x2x2xf32>
  %es = nunc.constant dense<[2, 1, 2]> : tensor<3xi64>
  %ec = nunc.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %8 = nunc.expand %ec, %es : (tensor<2x1xf32>, tensor<3xi64>) -> tensor<*xf32>
  // CHECK-NEXT: %[[COS:.*]] = nunc.constant dense<-3> : tensor<2x2xi8>
  %cs = nunc.constant dense<[2, 2]> : tensor<2xi64>
  %9 = nunc.constant_of_shape %cs {value = dense<-3> : tensor<1xi8>} : tensor<2xi64> -> tensor<*xi8>
  // Range [-51, 204]: scale 1, zero point 51; 1.4 rounds to 1.
  // CHECK-NEXT: %[[DQL:.*]] = nunc.constant dense<[0, 51, 255, 52]> : tensor<4xui8>
  // CHECK-NEXT: %[[DQLS:.*]] = nunc.constant dense<1.000000e+00> : tensor<f32>
  // CHECK-NEXT: %[[DQLZ:.*]] = nunc.constant dense<51> : tensor<ui8>
  %dq = nunc.constant dense<[-51.0, 0.0, 204.0, 1.4]> : tensor<4xf32>
  %10:3 = nunc.dynamic_quantize_linear %dq : tensor<4xf32> -> tensor<*xui8>, tensor<f32>, tensor<ui8>
  // x / 0.5 = [-20, 0.5, 1.5, 2.5, 400], rounded half to even, + 10, saturated.
  // CHECK-NEXT: %[[QL:.*]] = nunc.constant dense<[0, 10, 12, 12, 255]> : tensor<5xui8>
  %qs = nunc.constant dense<0.5> : tensor<f32>
  %qz = nunc.constant dense<10> : tensor<ui8>
  %qx = nunc.constant dense<[-10.0, 0.25, 0.75, 1.25, 200.0]> : tensor<5xf32>
  %11 = nunc.quantize_linear %qx, %qs, %qz : tensor<ui8> {output_element_type = ui8} : tensor<5xf32>, tensor<f32> -> tensor<*xui8>
  // CHECK-NEXT: %[[DQ:.*]] = nunc.constant dense<[-5.000000e+00, 0.000000e+00, 1.225000e+02]> : tensor<3xf32>
  %dqx = nunc.constant dense<[0, 10, 255]> : tensor<3xui8>
  %12 = nunc.dequantize_linear %dqx, %qs, %qz : tensor<ui8> : tensor<3xui8>, tensor<f32> -> tensor<*xf32>
  // CHECK-NEXT: %[[FLAT:.*]] = nunc.constant dense<1.000000e+00> : tensor<6x4xf32>
  %fl = nunc.constant dense<1.0> : tensor<2x3x4xf32>
  %13 = nunc.flatten %fl {axis = 2 : i64} : tensor<2x3x4xf32> -> tensor<*xf32>
  // CHECK-NEXT: %[[SM:.*]] = nunc.constant dense<5.000000e-01> : tensor<2x2xf32>
  %sm = nunc.constant dense<[[0.0, 0.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %14 = nunc.softmax %sm : tensor<2x2xf32> -> tensor<*xf32>
  // (A - 1) x (B - [5, 6]) = [[0, 1], [2, 3]] x [[0, 0], [2, 2]].
  // CHECK-NEXT: %[[MMI:.*]] = nunc.constant dense<{{\[}}[2, 2], [6, 6]]> : tensor<2x2xi32>
  %mi_a = nunc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %mi_b = nunc.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xui8>
  %mi_za = nunc.constant dense<1> : tensor<i8>
  %mi_zb = nunc.constant dense<[5, 6]> : tensor<2xui8>
  %15 = nunc.matmul_integer %mi_a, %mi_b a_zero_point %mi_za : tensor<i8> b_zero_point %mi_zb : tensor<2xui8> : tensor<2x2xi8>, tensor<2x2xui8> -> tensor<*xi32>
  // CHECK-NEXT: return %[[MM]], %[[GEMM]], %[[MEAN]], %[[IMEAN]], %[[TR]], %[[GATHER]], %[[SLICE]], %[[CONCAT]], %[[EXPAND]], %[[COS]], %[[DQL]], %[[DQLS]], %[[DQLZ]], %[[QL]], %[[DQ]], %[[FLAT]], %[[SM]], %[[MMI]] :
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10#0, %10#1, %10#2, %11, %12, %13, %14, %15 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi32>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi8>, tensor<*xui8>, tensor<f32>, tensor<ui8>, tensor<*xui8>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi32>
}

// -----

// The whole shape subgraph of a static input collapses in one run: Shape
// folds (its input is static though not constant), then Gather, Unsqueeze and
// Concat are evaluated, and the Reshape gets a constant target and a static type.

// CHECK-LABEL: func.func @shape_subgraph(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x8x16xf32>) -> tensor<2x32x4xf32>
// CHECK-NEXT: %[[T:.*]] = nunc.constant dense<[2, -1, 4]> : tensor<3xi64>
// CHECK-NEXT: %[[R:.*]] = nunc.reshape %[[X]], %[[T]] : (tensor<2x8x16xf32>, tensor<3xi64>) -> tensor<2x32x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x32x4xf32>
// CHECK-NEXT: }
// LIMIT-LABEL: func.func @shape_subgraph(
// LIMIT-NEXT: nunc.constant dense<[2, -1, 4]> : tensor<3xi64>
// LIMIT-NEXT: nunc.reshape {{.*}} -> tensor<2x32x4xf32>
func.func @shape_subgraph(%x: tensor<2x8x16xf32>) -> tensor<*xf32> {
  %s = nunc.shape %x : tensor<2x8x16xf32> -> tensor<?xi64>
  %i = nunc.constant dense<0> : tensor<i64>
  %b = nunc.gather %s, %i : (tensor<?xi64>, tensor<i64>) -> tensor<*xi64>
  %z = nunc.constant dense<0> : tensor<1xi64>
  %u = nunc.unsqueeze %b, %z : (tensor<*xi64>, tensor<1xi64>) -> tensor<*xi64>
  %k = nunc.constant dense<[-1, 4]> : tensor<2xi64>
  %c = nunc.concat %u, %k {axis = 0 : i64} : (tensor<*xi64>, tensor<2xi64>) -> tensor<?xi64>
  %r = nunc.reshape %x, %c : (tensor<2x8x16xf32>, tensor<?xi64>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

// Shape folds when the dims it reads are static, even if others are not.

// CHECK-LABEL: func.func @shape_of_partly_static(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x3x4xf32>) -> (tensor<2xi64>, tensor<1xi64>, tensor<3xi64>)
func.func @shape_of_partly_static(%x: tensor<?x3x4xf32>) -> (tensor<*xi64>, tensor<1xi64>, tensor<?xi64>) {
  // CHECK-NEXT: %[[TAIL:.*]] = nunc.constant dense<[3, 4]> : tensor<2xi64>
  %0 = nunc.shape %x {start = 1 : i64} : tensor<?x3x4xf32> -> tensor<*xi64>
  // CHECK-NEXT: %[[MID:.*]] = nunc.constant dense<3> : tensor<1xi64>
  %1 = nunc.shape %x {start = -2 : i64, end = -1 : i64} : tensor<?x3x4xf32> -> tensor<1xi64>
  // Dim 0 is dynamic: no folding, but the type is refined.
  // CHECK-NEXT: %[[ALL:.*]] = nunc.shape %[[X]] : tensor<?x3x4xf32> -> tensor<3xi64>
  %2 = nunc.shape %x : tensor<?x3x4xf32> -> tensor<?xi64>
  // CHECK-NEXT: return %[[TAIL]], %[[MID]], %[[ALL]] : tensor<2xi64>, tensor<1xi64>, tensor<3xi64>
  return %0, %1, %2 : tensor<*xi64>, tensor<1xi64>, tensor<?xi64>
}

// -----

// Identity folds away, and so does a Cast to the type it already has.

// CHECK-LABEL: func.func @identity(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf16>)
// CHECK-NEXT: %[[H:.*]] = nunc.cast %[[X]] {to = f16} : tensor<2x3xf32> -> tensor<2x3xf16>
// CHECK-NEXT: return %[[X]], %[[X]], %[[H]] : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf16>
// CHECK-NEXT: }
func.func @identity(%x: tensor<2x3xf32>) -> (tensor<*xf32>, tensor<2x3xf32>, tensor<2x3xf16>) {
  %0 = nunc.identity %x : tensor<2x3xf32> -> tensor<*xf32>
  %1 = nunc.cast %x {to = f32} : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = nunc.cast %1 {to = f16} : tensor<2x3xf32> -> tensor<2x3xf16>
  return %0, %1, %2 : tensor<*xf32>, tensor<2x3xf32>, tensor<2x3xf16>
}

// -----

// Ops with an operand that is not constant stay; their constant operands stay
// with them. Unused constants (and unused ops) are erased.

// CHECK-LABEL: func.func @not_constant(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<3xf32>, %[[Y:[a-z0-9]+]]: tensor<?x4xf32>)
// CHECK-NEXT: %[[C:.*]] = nunc.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: %[[ADD:.*]] = nunc.add %[[X]], %[[C]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[SQ:.*]] = nunc.mul %[[ADD]], %[[ADD]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[S:.*]] = nunc.shape %[[Y]] : tensor<?x4xf32> -> tensor<2xi64>
// CHECK-NEXT: %[[I:.*]] = nunc.constant dense<0> : tensor<i64>
// CHECK-NEXT: %[[B:.*]] = nunc.gather %[[S]], %[[I]] : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
// CHECK-NEXT: return %[[SQ]], %[[B]] : tensor<3xf32>, tensor<i64>
// CHECK-NEXT: }
func.func @not_constant(%x: tensor<3xf32>, %y: tensor<?x4xf32>) -> (tensor<3xf32>, tensor<*xi64>) {
  %unused = nunc.constant dense<42> : tensor<2xi64>
  %c = nunc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = nunc.add %x, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = nunc.mul %0, %0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %dead = nunc.sub %x, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // Shape of a tensor with a dynamic dim is not constant, so neither is the Gather.
  %s = nunc.shape %y : tensor<?x4xf32> -> tensor<?xi64>
  %i = nunc.constant dense<0> : tensor<i64>
  %b = nunc.gather %s, %i : (tensor<?xi64>, tensor<i64>) -> tensor<*xi64>
  return %1, %b : tensor<3xf32>, tensor<*xi64>
}

// -----

// max-elements bounds the size of a folded result: with 4, the 2x2 sum folds
// but the 5- and 6-element results stay.

// CHECK-LABEL: func.func @max_elements()
// CHECK-SAME: -> (tensor<2x2xf32>, tensor<5xf32>, tensor<2x3xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.constant dense<{{\[}}[2.000000e+00, 4.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: %[[B:.*]] = nunc.constant dense<2.000000e+00> : tensor<5xf32>
// CHECK-NEXT: %[[C:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]

// LIMIT-LABEL: func.func @max_elements()
// LIMIT-SAME: -> (tensor<2x2xf32>, tensor<5xf32>, tensor<2x3xf32>)
// LIMIT-NEXT: %[[A:.*]] = nunc.constant dense<{{\[}}[2.000000e+00, 4.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// LIMIT-NEXT: %[[S:.*]] = nunc.constant dense<5> : tensor<1xi64>
// LIMIT-NEXT: %[[B:.*]] = nunc.constant_of_shape %[[S]] {value = dense<2.000000e+00> : tensor<1xf32>} : tensor<1xi64> -> tensor<5xf32>
// LIMIT-NEXT: %[[R:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<1x3xf32>
// LIMIT-NEXT: %[[L:.*]] = nunc.constant dense<{{\[}}[1.000000e+00], [2.000000e+00]]> : tensor<2x1xf32>
// LIMIT-NEXT: %[[C:.*]] = nunc.mul %[[R]], %[[L]] : (tensor<1x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// LIMIT-NEXT: return %[[A]], %[[B]], %[[C]]
func.func @max_elements() -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %a = nunc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = nunc.add %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<*xf32>
  %s = nunc.constant dense<[5]> : tensor<1xi64>
  %1 = nunc.constant_of_shape %s {value = dense<2.0> : tensor<1xf32>} : tensor<1xi64> -> tensor<*xf32>
  %b = nunc.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %c = nunc.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %2 = nunc.mul %b, %c : (tensor<1x3xf32>, tensor<2x1xf32>) -> tensor<*xf32>
  return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Constant data that would make the op fail at run time is reported.

func.func @integer_division_by_zero() -> tensor<3xi32> {
  %a = nunc.constant dense<[6, 7, 8]> : tensor<3xi32>
  %b = nunc.constant dense<[3, 0, 2]> : tensor<3xi32>
  // expected-error @+1 {{integer division by zero}}
  %0 = nunc.div %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @broadcast_division_by_zero() -> tensor<2x2xi64> {
  %a = nunc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %b = nunc.constant dense<0> : tensor<i64>
  // expected-error @+1 {{integer division by zero}}
  %0 = nunc.div %a, %b : (tensor<2x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

// Dequantized weights: an int8 MatMul weight of more than 4096 elements, and
// a Conv weight of any size whose conv takes a dequantized input (a QDQ conv),
// stay behind their DequantizeLinear for nunc-fuse-linear / nunc-fuse-conv
// (unless told otherwise); the weight of a conv on an f32 input folds (so
// FoldBatchNorm sees it), as do all with keep-quantized-weights=false, whatever
// their size (even past max-elements): the f32 kernels need constant weights.
// keep-conv-weights=false (targets without int8 convolutions) folds the QDQ
// conv's too.
// CHECK-LABEL: func.func @dequantized_weights(
// CHECK:         %[[MW:.*]] = nunc.dequantize_linear %{{.*}} : tensor<65x65xi8>, tensor<f32> -> tensor<65x65xf32>
// CHECK:         nunc.matmul %{{.*}}, %[[MW]]
// CHECK:         %[[CW:.*]] = nunc.dequantize_linear %{{.*}} : tensor<65x65x1x1xi8>, tensor<f32> -> tensor<65x65x1x1xf32>
// CHECK:         nunc.conv %{{.*}}, %[[CW]]
// CHECK:         %[[FW:.*]] = nunc.constant dense<1.500000e+00> : tensor<65x65x1x1xf32>
// CHECK:         nunc.conv %arg1, %[[FW]]
// LIMIT-LABEL: func.func @dequantized_weights(
// LIMIT:         nunc.dequantize_linear %{{.*}} : tensor<65x65x1x1xi8>
// NOKEEP-LABEL: func.func @dequantized_weights(
// NOKEEP-NOT:    nunc.dequantize_linear %{{.*}} : tensor<65x65
// NOKEEP:        nunc.matmul %{{.*}}, %{{.*}} : (tensor<2x65xf32>, tensor<65x65xf32>)
// NOCONV-LABEL: func.func @dequantized_weights(
// NOCONV:        nunc.dequantize_linear %{{.*}} : tensor<65x65xi8>
// NOCONV-NOT:    nunc.dequantize_linear %{{.*}} : tensor<65x65x1x1xi8>
func.func @dequantized_weights(%x: tensor<2x65xf32>, %img: tensor<1x65x2x2xf32>) -> (tensor<2x65xf32>, tensor<1x65x2x2xf32>, tensor<1x65x2x2xf32>) {
  %q = nunc.constant dense<3> : tensor<65x65xi8>
  %s = nunc.constant dense<0.5> : tensor<f32>
  %w = nunc.dequantize_linear %q, %s : tensor<65x65xi8>, tensor<f32> -> tensor<65x65xf32>
  %y = nunc.matmul %x, %w : (tensor<2x65xf32>, tensor<65x65xf32>) -> tensor<2x65xf32>
  %zp = nunc.constant dense<10> : tensor<ui8>
  %qi = nunc.quantize_linear %img, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<1x65x2x2xf32>, tensor<f32> -> tensor<1x65x2x2xui8>
  %di = nunc.dequantize_linear %qi, %s, %zp : tensor<ui8> : tensor<1x65x2x2xui8>, tensor<f32> -> tensor<1x65x2x2xf32>
  %qc = nunc.constant dense<3> : tensor<65x65x1x1xi8>
  %wc = nunc.dequantize_linear %qc, %s : tensor<65x65x1x1xi8>, tensor<f32> -> tensor<65x65x1x1xf32>
  %z = nunc.conv %di, %wc {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x65x2x2xf32>, tensor<65x65x1x1xf32> -> tensor<1x65x2x2xf32>
  %qf = nunc.constant dense<3> : tensor<65x65x1x1xi8>
  %wf = nunc.dequantize_linear %qf, %s : tensor<65x65x1x1xi8>, tensor<f32> -> tensor<65x65x1x1xf32>
  %f = nunc.conv %img, %wf {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x65x2x2xf32>, tensor<65x65x1x1xf32> -> tensor<1x65x2x2xf32>
  return %y, %z, %f : tensor<2x65xf32>, tensor<1x65x2x2xf32>, tensor<1x65x2x2xf32>
}

// -----

// A small weight (200 x 2, a classifier's) stays behind its DequantizeLinear
// where the MatMul's or Gemm's A is dequantized too (a QDQ model's, which
// onnxruntime runs as a QGemm on the codes); on an f32 A it folds.
// CHECK-LABEL: func.func @small_weights_behind_pairs(
// CHECK:         %[[MW:.*]] = nunc.dequantize_linear %{{.*}} : tensor<200x2xi8>, tensor<f32> -> tensor<200x2xf32>
// CHECK:         nunc.matmul %{{.*}}, %[[MW]]
// CHECK:         %[[GW:.*]] = nunc.dequantize_linear %{{.*}} : tensor<200x2xi8>, tensor<f32> -> tensor<200x2xf32>
// CHECK:         nunc.gemm %{{.*}}, %[[GW]]
// CHECK:         %[[FW:.*]] = nunc.constant dense<1.500000e+00> : tensor<200x2xf32>
// CHECK:         nunc.matmul %arg0, %[[FW]]
// NOKEEP-LABEL: func.func @small_weights_behind_pairs(
// NOKEEP-NOT:    nunc.dequantize_linear %{{.*}} : tensor<200x2xi8>
func.func @small_weights_behind_pairs(%x: tensor<1x200xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %zp = nunc.constant dense<10> : tensor<ui8>
  %qx = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<1x200xf32>, tensor<f32> -> tensor<1x200xui8>
  %dx = nunc.dequantize_linear %qx, %s, %zp : tensor<ui8> : tensor<1x200xui8>, tensor<f32> -> tensor<1x200xf32>
  %q = nunc.constant dense<3> : tensor<200x2xi8>
  %w = nunc.dequantize_linear %q, %s : tensor<200x2xi8>, tensor<f32> -> tensor<200x2xf32>
  %y = nunc.matmul %dx, %w : (tensor<1x200xf32>, tensor<200x2xf32>) -> tensor<1x2xf32>
  %qg = nunc.constant dense<4> : tensor<200x2xi8>
  %wg = nunc.dequantize_linear %qg, %s : tensor<200x2xi8>, tensor<f32> -> tensor<200x2xf32>
  %g = nunc.gemm %dx, %wg : tensor<1x200xf32>, tensor<200x2xf32> -> tensor<1x2xf32>
  %qf = nunc.constant dense<3> : tensor<200x2xi8>
  %wf = nunc.dequantize_linear %qf, %s : tensor<200x2xi8>, tensor<f32> -> tensor<200x2xf32>
  %f = nunc.matmul %x, %wf : (tensor<1x200xf32>, tensor<200x2xf32>) -> tensor<1x2xf32>
  return %y, %g, %f : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>
}

// -----

// A grouped QDQ conv keeps its dequantized weight where the int8
// convolution takes its groups (input channels a group a multiple of 4),
// and folds it otherwise (2 channels a group; a depthwise conv).
// CHECK-LABEL: func.func @dequantized_grouped_conv_weights(
// CHECK:         %[[GW:.*]] = nunc.dequantize_linear %{{.*}} : tensor<8x4x1x1xi8>, tensor<f32> -> tensor<8x4x1x1xf32>
// CHECK:         nunc.conv %{{.*}}, %[[GW]] {{.*}}group = 2 : i64
// CHECK-NOT:     nunc.dequantize_linear %{{.*}} : tensor<8x2x1x1xi8>
// NOCONV-LABEL: func.func @dequantized_grouped_conv_weights(
// NOCONV-NOT:    nunc.dequantize_linear %{{.*}} : tensor<8x4x1x1xi8>
func.func @dequantized_grouped_conv_weights(%img: tensor<1x8x2x2xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x2x2xf32>) {
  %s = nunc.constant dense<0.5> : tensor<f32>
  %zp = nunc.constant dense<10> : tensor<ui8>
  %qi = nunc.quantize_linear %img, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<1x8x2x2xf32>, tensor<f32> -> tensor<1x8x2x2xui8>
  %di = nunc.dequantize_linear %qi, %s, %zp : tensor<ui8> : tensor<1x8x2x2xui8>, tensor<f32> -> tensor<1x8x2x2xf32>
  %q4 = nunc.constant dense<3> : tensor<8x4x1x1xi8>
  %w4 = nunc.dequantize_linear %q4, %s : tensor<8x4x1x1xi8>, tensor<f32> -> tensor<8x4x1x1xf32>
  %a = nunc.conv %di, %w4 {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x2x2xf32>, tensor<8x4x1x1xf32> -> tensor<1x8x2x2xf32>
  %q2 = nunc.constant dense<3> : tensor<8x2x1x1xi8>
  %w2 = nunc.dequantize_linear %q2, %s : tensor<8x2x1x1xi8>, tensor<f32> -> tensor<8x2x1x1xf32>
  %b = nunc.conv %di, %w2 {dilations = array<i64: 1, 1>, group = 4 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x2x2xf32>, tensor<8x2x1x1xf32> -> tensor<1x8x2x2xf32>
  return %a, %b : tensor<1x8x2x2xf32>, tensor<1x8x2x2xf32>
}

// -----

// A depthwise conv's dequantized filter folds, and the conv keeps the
// model's grid as weight_quantization: per channel (s8, axis 0), or per
// tensor (u8 with its zero point), the axis also counted from the end. A
// grid along another axis or with a zero scale leaves no attribute.
// CHECK-LABEL: func.func @depthwise_weight_grid(
// CHECK:         nunc.conv %arg0, %{{.*}} {{.*}}weight_quantization = !quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>}
// CHECK:         nunc.conv %arg0, %{{.*}} {{.*}}weight_quantization = !quant.uniform<u8:f32, 1.250000e-01:128>}
// CHECK:         nunc.conv %arg0, %{{.*}} {dilations
// CHECK-NOT:     weight_quantization
// CHECK:         nunc.conv %arg0, %{{.*}} {{.*}}weight_quantization = !quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>}
// CHECK:         nunc.conv %arg0, %{{.*}} {dilations
// CHECK-NOT:     weight_quantization
// CHECK:         return
func.func @depthwise_weight_grid(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %q = nunc.constant dense<[[[[3, -1, 2], [0, 1, -5], [7, 2, 1]]], [[[-128, 127, 0], [1, 1, 1], [2, 3, 4]]]]> : tensor<2x1x3x3xi8>
  %s = nunc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %w = nunc.dequantize_linear %q, %s {axis = 0 : i64} : tensor<2x1x3x3xi8>, tensor<2xf32> -> tensor<2x1x3x3xf32>
  %y = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  %qu = nunc.constant dense<[[[[130, 128, 2], [0, 1, 255], [7, 2, 1]]], [[[128, 127, 0], [1, 1, 1], [2, 3, 4]]]]> : tensor<2x1x3x3xui8>
  %su = nunc.constant dense<0.125> : tensor<f32>
  %zu = nunc.constant dense<128> : tensor<ui8>
  %wu = nunc.dequantize_linear %qu, %su, %zu : tensor<ui8> : tensor<2x1x3x3xui8>, tensor<f32> -> tensor<2x1x3x3xf32>
  %u = nunc.conv %x, %wu {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  %s3 = nunc.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %q3 = nunc.constant dense<2> : tensor<2x1x3x3xi8>
  %w3 = nunc.dequantize_linear %q3, %s3 {axis = 3 : i64} : tensor<2x1x3x3xi8>, tensor<3xf32> -> tensor<2x1x3x3xf32>
  %a = nunc.conv %x, %w3 {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  // The axis counted from the end; a zero scale (no grid).
  %wn = nunc.dequantize_linear %q, %s {axis = -4 : i64} : tensor<2x1x3x3xi8>, tensor<2xf32> -> tensor<2x1x3x3xf32>
  %n = nunc.conv %x, %wn {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  %s0 = nunc.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %w0 = nunc.dequantize_linear %q, %s0 {axis = 0 : i64} : tensor<2x1x3x3xi8>, tensor<2xf32> -> tensor<2x1x3x3xf32>
  %z = nunc.conv %x, %w0 {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  return %y, %u, %a, %n, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// 4-bit codes (nunc.four_bit_codes): onnxruntime runs the depthwise conv in
// f32 on the dequantized filter, so the folded filter keeps no grid.
// CHECK-LABEL: func.func @depthwise_four_bit_weights(
// CHECK:         nunc.conv %arg0, %{{.*}} {dilations
// CHECK-NOT:     weight_quantization
// CHECK:         return
func.func @depthwise_four_bit_weights(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %q = nunc.constant {nunc.four_bit_codes} dense<[[[[3, -1, 2], [0, 1, -5], [7, 2, 1]]], [[[-8, 7, 0], [1, 1, 1], [2, 3, 4]]]]> : tensor<2x1x3x3xi8>
  %s = nunc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %w = nunc.dequantize_linear %q, %s {axis = 0 : i64} : tensor<2x1x3x3xi8>, tensor<2xf32> -> tensor<2x1x3x3xf32>
  %y = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A Gemm's B (a classifier's weight in a QDQ model) stays behind its
// DequantizeLinear as a MatMul's weight does, for nunc-fuse-linear; the same
// kind of weight as a Gemm's C folds.
// CHECK-LABEL: func.func @dequantized_gemm_weight(
// CHECK-DAG:     %[[C:.*]] = nunc.constant dense<2.500000e+00> : tensor<65x65xf32>
// CHECK-DAG:     %[[W:.*]] = nunc.dequantize_linear %{{.*}} : tensor<65x65xi8>, tensor<f32> -> tensor<65x65xf32>
// CHECK:         nunc.gemm %arg0, %[[W]] {transB = 1 : i64}
// CHECK:         nunc.gemm %arg0, %arg0, %[[C]]
// NOKEEP-LABEL: func.func @dequantized_gemm_weight(
// NOKEEP-NOT:    nunc.dequantize_linear
func.func @dequantized_gemm_weight(%x: tensor<65x65xf32>) -> (tensor<65x65xf32>, tensor<65x65xf32>) {
  %q = nunc.constant dense<3> : tensor<65x65xi8>
  %q2 = nunc.constant dense<5> : tensor<65x65xi8>
  %s = nunc.constant dense<0.5> : tensor<f32>
  %w = nunc.dequantize_linear %q, %s : tensor<65x65xi8>, tensor<f32> -> tensor<65x65xf32>
  %c = nunc.dequantize_linear %q2, %s : tensor<65x65xi8>, tensor<f32> -> tensor<65x65xf32>
  %y = nunc.gemm %x, %w {transB = 1 : i64} : tensor<65x65xf32>, tensor<65x65xf32> -> tensor<65x65xf32>
  %z = nunc.gemm %x, %x, %c : tensor<65x65xf32> : tensor<65x65xf32>, tensor<65x65xf32> -> tensor<65x65xf32>
  return %y, %z : tensor<65x65xf32>, tensor<65x65xf32>
}

// -----

// Past max-elements, an elementwise or data-movement op folds when its
// result takes no more bytes than an operand only it uses: even with
// max-elements=4, the QuantizeLinear of an f32 weight (a TensorRT-style QDQ
// model's) becomes its integer constant, which stays behind its
// DequantizeLinear for the int8 GEMM, and a weight's Transpose folds. Not
// past it: a constant MatMul (a contraction: its work is not one step per
// result), a Transpose of a constant that something else also uses (both
// copies would stay), a widening Cast (4x the bytes).
// CHECK-LABEL: func.func @no_larger_than_an_operand(
// CHECK:         %[[Q:.*]] = nunc.constant dense<3> : tensor<65x65xi8>
// CHECK:         %[[W:.*]] = nunc.dequantize_linear %[[Q]], %{{.*}} : tensor<65x65xi8>, tensor<f32> -> tensor<65x65xf32>
// CHECK:         nunc.matmul %arg0, %[[W]]
// CHECK-NOT:     nunc.transpose
// CHECK-NOT:     nunc.cast
// CHECK:         return
// LIMIT-LABEL: func.func @no_larger_than_an_operand(
// LIMIT-NOT:     nunc.quantize_linear
// LIMIT:         %[[Q:.*]] = nunc.constant dense<3> : tensor<65x65xi8>
// LIMIT:         nunc.dequantize_linear %[[Q]]
// LIMIT:         %[[T:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// LIMIT:         %[[P:.*]] = nunc.matmul %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
// LIMIT:         %[[U:.*]] = nunc.transpose %[[S:.*]] {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
// LIMIT:         %[[C:.*]] = nunc.cast %{{.*}} {to = f32} : tensor<2x3xi8> -> tensor<2x3xf32>
// LIMIT:         return %{{.*}}, %[[T]], %[[P]], %[[U]], %[[S]], %[[C]]
func.func @no_larger_than_an_operand(%x: tensor<2x65xf32>) -> (tensor<2x65xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %w = nunc.constant dense<1.5> : tensor<65x65xf32>
  %s = nunc.constant dense<0.5> : tensor<f32>
  %zp = nunc.constant dense<0> : tensor<i8>
  %q = nunc.quantize_linear %w, %s, %zp : tensor<i8> {output_element_type = i8} : tensor<65x65xf32>, tensor<f32> -> tensor<65x65xi8>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<i8> : tensor<65x65xi8>, tensor<f32> -> tensor<65x65xf32>
  %y = nunc.matmul %x, %dq : (tensor<2x65xf32>, tensor<65x65xf32>) -> tensor<2x65xf32>
  %m = nunc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = nunc.transpose %m {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %a = nunc.constant dense<1.0> : tensor<3x4xf32>
  %b = nunc.constant dense<2.0> : tensor<4x2xf32>
  %p = nunc.matmul %a, %b : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %shared = nunc.constant dense<[[7.0, 8.0, 9.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf32>
  %u = nunc.transpose %shared {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %i = nunc.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %c = nunc.cast %i {to = f32} : tensor<2x3xi8> -> tensor<2x3xf32>
  return %y, %t, %p, %u, %shared, %c : tensor<2x65xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Past max-elements, the parts of a constant that only Gathers and Slices
// read fold while their sizes add up to at most its own (a bidirectional
// LSTM's weights, one Gather per direction); a constant that a third part
// also reads (parts larger than the whole) stays.
// LIMIT-LABEL: func.func @parts_of_a_constant(
// LIMIT-DAG:     %[[D0:.*]] = nunc.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<5xf32>
// LIMIT-DAG:     %[[D1:.*]] = nunc.constant dense<[6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01]> : tensor<5xf32>
// LIMIT-DAG:     %[[S:.*]] = nunc.constant dense<{{\[}}[1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01]]> : tensor<1x5xf32>
// LIMIT-DAG:     %[[W:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00], [6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01]]> : tensor<2x5xf32>
// LIMIT:         %[[G0:.*]] = nunc.gather %[[W]]
// LIMIT:         %[[G1:.*]] = nunc.gather %[[W]]
// LIMIT:         %[[G2:.*]] = nunc.gather %[[W]]
// LIMIT:         return %[[D0]], %[[D1]], %[[S]], %[[G0]], %[[G1]], %[[G2]]
func.func @parts_of_a_constant() -> (tensor<5xf32>, tensor<5xf32>, tensor<1x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %m = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<3x5xf32>
  %i0 = nunc.constant dense<0> : tensor<i64>
  %i1 = nunc.constant dense<1> : tensor<i64>
  %d0 = nunc.gather %m, %i0 : (tensor<3x5xf32>, tensor<i64>) -> tensor<5xf32>
  %d1 = nunc.gather %m, %i1 : (tensor<3x5xf32>, tensor<i64>) -> tensor<5xf32>
  %st = nunc.constant dense<2> : tensor<1xi64>
  %en = nunc.constant dense<3> : tensor<1xi64>
  %s = nunc.slice %m[%st : tensor<1xi64>, %en : tensor<1xi64>] : tensor<3x5xf32> -> tensor<1x5xf32>
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0]]> : tensor<2x5xf32>
  %g0 = nunc.gather %w, %i0 : (tensor<2x5xf32>, tensor<i64>) -> tensor<5xf32>
  %g1 = nunc.gather %w, %i1 : (tensor<2x5xf32>, tensor<i64>) -> tensor<5xf32>
  %g2 = nunc.gather %w, %i1 : (tensor<2x5xf32>, tensor<i64>) -> tensor<5xf32>
  return %d0, %d1, %s, %g0, %g1, %g2 : tensor<5xf32>, tensor<5xf32>, tensor<1x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}

// -----

// A dequantized constant past the float range (a symmetric int8 grid of a
// -3.4e38 attention mask: scale 2.68e36, code -127) is the model's own
// overflow; it folds, with a warning, and the infinity stays.

// CHECK-LABEL: func.func @dequantized_overflow(
// CHECK:         nunc.constant dense<[0xFF800000, 0.000000e+00, 2.680000e+36]> : tensor<3xf32>
func.func @dequantized_overflow() -> tensor<3xf32> {
  %q = nunc.constant dense<[-127, 0, 1]> : tensor<3xi8>
  %s = nunc.constant dense<2.68e36> : tensor<f32>
  // expected-warning @+1 {{dequantizing this constant gives 1 infinite or NaN value (scale times code past the float range); results that depend on them may be inf or NaN, as in onnxruntime}}
  %dq = nunc.dequantize_linear %q, %s : tensor<3xi8>, tensor<f32> -> tensor<3xf32>
  return %dq : tensor<3xf32>
}

// -----

// Range of constants (what a position-ids arange becomes once the sequence
// length is pinned): its length is known, and it folds; ceil((limit -
// start) / delta) values, none where delta points away from the limit. The
// f16 range is start + i * delta rounded to f16, as ONNX's reference
// evaluator gives it (1.2002 third, where numpy's arange accumulates to
// 1.1992).
// CHECK-LABEL: func.func @range()
// CHECK-NEXT: %[[POS:.*]] = nunc.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
// CHECK-NEXT: %[[DOWN:.*]] = nunc.constant dense<[1.000000e+01, 7.500000e+00, 5.000000e+00, 2.500000e+00]> : tensor<4xf32>
// CHECK-NEXT: %[[NONE:.*]] = nunc.constant dense<> : tensor<0xi32>
// CHECK-NEXT: %[[HALF:.*]] = nunc.constant dense<[1.000000e+00, 1.099610e+00, 1.200200e+00]> : tensor<3xf16>
// CHECK-NEXT: return %[[POS]], %[[DOWN]], %[[NONE]], %[[HALF]]
func.func @range() -> (tensor<?xi64>, tensor<?xf32>, tensor<?xi32>, tensor<?xf16>) {
  %s = nunc.constant dense<0> : tensor<i64>
  %l = nunc.constant dense<5> : tensor<i64>
  %d = nunc.constant dense<1> : tensor<i64>
  %0 = nunc.range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %fs = nunc.constant dense<10.0> : tensor<f32>
  %fl = nunc.constant dense<0.5> : tensor<f32>
  %fd = nunc.constant dense<-2.5> : tensor<f32>
  %1 = nunc.range %fs, %fl, %fd : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  %is = nunc.constant dense<3> : tensor<i32>
  %il = nunc.constant dense<7> : tensor<i32>
  %id = nunc.constant dense<-1> : tensor<i32>
  %2 = nunc.range %is, %il, %id : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  %hs = nunc.constant dense<1.0> : tensor<f16>
  %hl = nunc.constant dense<1.25> : tensor<f16>
  %hd = nunc.constant dense<0.1> : tensor<f16>
  %3 = nunc.range %hs, %hl, %hd : (tensor<f16>, tensor<f16>, tensor<f16>) -> tensor<?xf16>
  return %0, %1, %2, %3 : tensor<?xi64>, tensor<?xf32>, tensor<?xi32>, tensor<?xf16>
}

// -----

// A zero delta has no length: a located error, not a fold.
func.func @range_zero_delta() -> tensor<?xi64> {
  %s = nunc.constant dense<0> : tensor<i64>
  %l = nunc.constant dense<5> : tensor<i64>
  %d = nunc.constant dense<0> : tensor<i64>
  // expected-error @+1 {{Range's delta is 0}}
  %0 = nunc.range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// A QDQ model's bias: a per-tensor u8 or s8 DequantizeLinear an Add reads
// has its grid recorded on the Add (nunc.lhs_codes_grid / rhs_codes_grid:
// onnxruntime adds the codes; u8 or s8 storage as the model's); one no Add
// reads has none.
// CHECK-LABEL: func.func @bias_codes_grid(
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[-5.000000e+00, 0.000000e+00, 1.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[SB:.*]] = nunc.constant dense<[5.000000e-01, 2.000000e+00, 4.000000e+00]> : tensor<3xf32>
// CHECK-DAG: nunc.constant dense<[-6.000000e+00, 0.000000e+00, 5.000000e-01]> : tensor<3xf32>
// CHECK-DAG: nunc.add %[[B]], %{{.*}} {nunc.lhs_codes_grid = !quant.uniform<u8:f32, 5.000000e-01:10>}
// CHECK-DAG: nunc.add %{{.*}}, %[[SB]] {nunc.rhs_codes_grid = !quant.uniform<i8:f32, 5.000000e-01:-3>}
func.func @bias_codes_grid(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>) {
  %codes = nunc.constant dense<[0, 10, 12]> : tensor<3xui8>
  %s = nunc.constant dense<0.5> : tensor<f32>
  %z = nunc.constant dense<10> : tensor<ui8>
  %b = nunc.dequantize_linear %codes, %s, %z : tensor<ui8> : tensor<3xui8>, tensor<f32> -> tensor<3xf32>
  %y = nunc.add %b, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %scodes = nunc.constant dense<[-2, 1, 5]> : tensor<3xi8>
  %sz = nunc.constant dense<-3> : tensor<i8>
  %sb = nunc.dequantize_linear %scodes, %s, %sz : tensor<i8> : tensor<3xi8>, tensor<f32> -> tensor<3xf32>
  %w = nunc.add %x, %sb : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %ucodes = nunc.constant dense<[0, 12, 13]> : tensor<3xui8>
  %z12 = nunc.constant dense<12> : tensor<ui8>
  %ub = nunc.dequantize_linear %ucodes, %s, %z12 : tensor<ui8> : tensor<3xui8>, tensor<f32> -> tensor<3xf32>
  return %y, %w, %ub : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>
}

// -----

// A pair's rounding of a constant an Add reads (a QDQ model's position
// embeddings: a Gather of constant rows, then its Q/DQ pair): the Add
// records the pair's grid for it; its values are that grid's.
// CHECK-LABEL: func.func @rounded_constant_codes_grid(
// CHECK: nunc.constant dense<{{.}}{{.}}-2.500000e-01, 7.500000e-01, 1.000000e+00{{.}}{{.}}> : tensor<1x3xf32>
// CHECK: nunc.add %{{.*}}, %{{.*}} {nunc.rhs_codes_grid = !quant.uniform<u8:f32, 2.500000e-01:128>}
func.func @rounded_constant_codes_grid(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %c = nunc.constant dense<[[-0.3, 0.8, 1.1]]> : tensor<1x3xf32>
  %r = nunc.fake_quantize %c {quantization = !quant.uniform<u8:f32, 0.25:128>} : tensor<1x3xf32> -> tensor<1x3xf32>
  %y = nunc.add %x, %r : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// The greedy rewrite driver merges equal constants (here the canonicalizer;
// every pattern pass does) and keeps one's discardable attributes only: a
// QDQ model's GELU's 1 (codes of a grid, folded from its DequantizeLinear)
// and a mask's plain 1 - m. The grid lives on the Add that reads the codes,
// so it stays, and the Sub's 1 does not take it.
// UNIQUED-LABEL: func.func @codes_constant_merged_with_a_plain_one(
// UNIQUED: %[[ONE:.*]] = nunc.constant dense<1.000000e+00> : tensor<f32>
// UNIQUED-NOT: nunc.constant
// UNIQUED: nunc.sub %[[ONE]], %{{.*}} : (
// UNIQUED: nunc.add %{{.*}}, %[[ONE]] {nunc.rhs_codes_grid = !quant.uniform<u8:f32, 0.0039215688593685627>}
func.func @codes_constant_merged_with_a_plain_one(%x: tensor<2x3xf32>, %m: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %plain = nunc.constant dense<1.0> : tensor<f32>
  %masked = nunc.sub %plain, %m : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %code = nunc.constant dense<255> : tensor<ui8>
  %s = nunc.constant dense<0.0039215689> : tensor<f32>
  %z = nunc.constant dense<0> : tensor<ui8>
  %one = nunc.dequantize_linear %code, %s, %z : tensor<ui8> : tensor<ui8>, tensor<f32> -> tensor<f32>
  %sum = nunc.add %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %masked, %sum : tensor<2x3xf32>, tensor<2x3xf32>
}
