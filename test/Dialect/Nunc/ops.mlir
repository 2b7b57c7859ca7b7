// Round-trip test of every op of the nunc dialect: the custom form must print
// what was parsed (second RUN line: printing is stable), and the generic form
// must parse back to the same custom form (third RUN line: properties survive),
// and so must bytecode (fourth RUN line).
// RUN: nunc-opt %s | FileCheck %s
// RUN: nunc-opt %s | nunc-opt | FileCheck %s
// RUN: nunc-opt %s -mlir-print-op-generic | nunc-opt | FileCheck %s
// RUN: nunc-opt %s -emit-bytecode | nunc-opt | FileCheck %s

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  // CHECK: nunc.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = nunc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: nunc.equal {{.*}} -> tensor<2x3xi1>
  %1 = nunc.equal %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %1 : tensor<2x3xi1>
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constants(
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<?xi64>)
// CHECK-SAME: -> (tensor<2x2xf32>, tensor<i64>, tensor<3xi8>, tensor<2xi1>, tensor<*xf32>, tensor<2x0x3xi32>, tensor<0xf32>)
func.func @constants(%s: tensor<?xi64>) -> (tensor<2x2xf32>, tensor<i64>, tensor<3xi8>, tensor<2xi1>, tensor<*xf32>, tensor<2x0x3xi32>, tensor<0xf32>) {
  // CHECK-NEXT: %[[C0:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, -2.500000e+00], [0.000000e+00, 3.000000e+00]]> : tensor<2x2xf32>
  %0 = nunc.constant dense<[[1.0, -2.5], [0.0, 3.0]]> : tensor<2x2xf32>
  // CHECK-NEXT: %[[C1:.*]] = nunc.constant {nunc.name = "k"} dense<-7> : tensor<i64>
  %1 = nunc.constant {nunc.name = "k"} dense<-7> : tensor<i64>
  // CHECK-NEXT: %[[C2:.*]] = nunc.constant dense_resource<weights> : tensor<3xi8>
  %2 = nunc.constant dense_resource<weights> : tensor<3xi8>
  // CHECK-NEXT: %[[C3:.*]] = nunc.constant dense<[true, false]> : tensor<2xi1>
  %3 = nunc.constant dense<[true, false]> : tensor<2xi1>
  // CHECK-NEXT: %[[C4:.*]] = nunc.constant_of_shape %[[S]] {value = dense<1.500000e+00> : tensor<1xf32>} : tensor<?xi64> -> tensor<*xf32>
  %4 = nunc.constant_of_shape %s {value = dense<1.5> : tensor<1xf32>} : tensor<?xi64> -> tensor<*xf32>
  // CHECK-NEXT: %[[SHAPE:.*]] = nunc.constant dense<[2, 0, 3]> : tensor<3xi64>
  %shape = nunc.constant dense<[2, 0, 3]> : tensor<3xi64>
  // CHECK-NEXT: %[[C5:.*]] = nunc.constant_of_shape %[[SHAPE]] {value = dense<4> : tensor<1xi32>} : tensor<3xi64> -> tensor<2x0x3xi32>
  %5 = nunc.constant_of_shape %shape {value = dense<4> : tensor<1xi32>} : tensor<3xi64> -> tensor<2x0x3xi32>
  // CHECK-NEXT: %[[C6:.*]] = nunc.constant dense<> : tensor<0xf32>
  %6 = nunc.constant dense<> : tensor<0xf32>
  // CHECK-NEXT: %[[E:.*]] = nunc.constant dense<> : tensor<0xi64>
  %empty = nunc.constant dense<> : tensor<0xi64>
  // A rank-0 result from an empty shape.
  // CHECK-NEXT: nunc.constant_of_shape %[[E]] {value = dense<true> : tensor<1xi1>} : tensor<0xi64> -> tensor<i1>
  %7 = nunc.constant_of_shape %empty {value = dense<true> : tensor<1xi1>} : tensor<0xi64> -> tensor<i1>
  // CHECK-NEXT: return %[[C0]], %[[C1]], %[[C2]], %[[C3]], %[[C4]], %[[C5]], %[[C6]] :
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x2xf32>, tensor<i64>, tensor<3xi8>, tensor<2xi1>, tensor<*xf32>, tensor<2x0x3xi32>, tensor<0xf32>
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x3xf32>, %[[U:[a-z0-9]+]]: tensor<*xf16>, %[[S:[a-z0-9]+]]: tensor<f64>, %[[I:[a-z0-9]+]]: tensor<4xi32>)
func.func @unary(%x: tensor<?x3xf32>, %u: tensor<*xf16>, %s: tensor<f64>, %i: tensor<4xi32>) {
  // CHECK-NEXT: nunc.sqrt %[[X]] : tensor<?x3xf32> -> tensor<?x3xf32>
  %0 = nunc.sqrt %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: nunc.erf %[[U]] : tensor<*xf16> -> tensor<*xf16>
  %1 = nunc.erf %u : tensor<*xf16> -> tensor<*xf16>
  // CHECK-NEXT: nunc.tanh %[[S]] : tensor<f64> -> tensor<f64>
  %2 = nunc.tanh %s : tensor<f64> -> tensor<f64>
  // CHECK-NEXT: nunc.relu %[[I]] : tensor<4xi32> -> tensor<4xi32>
  %3 = nunc.relu %i : tensor<4xi32> -> tensor<4xi32>
  // CHECK-NEXT: nunc.sigmoid %[[X]] : tensor<?x3xf32> -> tensor<?x3xf32>
  %4 = nunc.sigmoid %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: nunc.identity %[[U]] : tensor<*xf16> -> tensor<*xf16>
  %5 = nunc.identity %u : tensor<*xf16> -> tensor<*xf16>
  // CHECK-NEXT: nunc.floor %[[X]] : tensor<?x3xf32> -> tensor<?x3xf32>
  %f = nunc.floor %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: nunc.ceil %[[U]] : tensor<*xf16> -> tensor<*xf16>
  %c = nunc.ceil %u : tensor<*xf16> -> tensor<*xf16>
  // CHECK-NEXT: nunc.round %[[S]] : tensor<f64> -> tensor<f64>
  %r = nunc.round %s : tensor<f64> -> tensor<f64>
  // A declared type may be less precise than the inferred one.
  // CHECK-NEXT: nunc.identity %[[X]] : tensor<?x3xf32> -> tensor<*xf32>
  %6 = nunc.identity %x : tensor<?x3xf32> -> tensor<*xf32>
  // The default approximation is not printed, explicit or not.
  // CHECK-NEXT: nunc.gelu %[[X]] : tensor<?x3xf32> -> tensor<?x3xf32>
  %7 = nunc.gelu %x : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: nunc.gelu %[[X]] : tensor<?x3xf32> -> tensor<?x3xf32>
  %8 = nunc.gelu %x {approximate = "none"} : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: nunc.gelu %[[X]] {approximate = "tanh"} : tensor<?x3xf32> -> tensor<?x3xf32>
  %9 = nunc.gelu %x {approximate = "tanh"} : tensor<?x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: nunc.cast %[[X]] {to = i64} : tensor<?x3xf32> -> tensor<?x3xi64>
  %10 = nunc.cast %x {to = i64} : tensor<?x3xf32> -> tensor<?x3xi64>
  // CHECK-NEXT: nunc.cast %[[U]] {saturate = 0 : i64, to = ui8} : tensor<*xf16> -> tensor<*xui8>
  %11 = nunc.cast %u {saturate = 0 : i64, to = ui8} : tensor<*xf16> -> tensor<*xui8>
  // CHECK-NEXT: nunc.cast %[[I]] {to = i1} : tensor<4xi32> -> tensor<4xi1>
  %12 = nunc.cast %i {to = i1, saturate = 1 : i64} : tensor<4xi32> -> tensor<4xi1>
  // CHECK-NEXT: nunc.cast %[[S]] {to = bf16} : tensor<f64> -> tensor<bf16>
  %13 = nunc.cast %s {to = bf16} : tensor<f64> -> tensor<bf16>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @clip(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x4xf32>, %[[LO:[a-z0-9]+]]: tensor<f32>, %[[HI:[a-z0-9]+]]: tensor<1xf32>, %[[I:[a-z0-9]+]]: tensor<*xi8>, %[[ILO:[a-z0-9]+]]: tensor<i8>)
func.func @clip(%x: tensor<?x4xf32>, %lo: tensor<f32>, %hi: tensor<1xf32>, %i: tensor<*xi8>, %ilo: tensor<i8>) {
  // CHECK-NEXT: nunc.clip %[[X]] min %[[LO]] : tensor<f32> max %[[HI]] : tensor<1xf32> : tensor<?x4xf32> -> tensor<?x4xf32>
  %0 = nunc.clip %x min %lo : tensor<f32> max %hi : tensor<1xf32> : tensor<?x4xf32> -> tensor<?x4xf32>
  // CHECK-NEXT: nunc.clip %[[X]] : tensor<?x4xf32> -> tensor<?x4xf32>
  %1 = nunc.clip %x : tensor<?x4xf32> -> tensor<?x4xf32>
  // CHECK-NEXT: nunc.clip %[[I]] min %[[ILO]] : tensor<i8> : tensor<*xi8> -> tensor<*xi8>
  %2 = nunc.clip %i min %ilo : tensor<i8> : tensor<*xi8> -> tensor<*xi8>
  // CHECK-NEXT: nunc.clip %[[X]] max %[[HI]] : tensor<1xf32> : tensor<?x4xf32> -> tensor<?x4xf32>
  %3 = nunc.clip %x max %hi : tensor<1xf32> : tensor<?x4xf32> -> tensor<?x4xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @broadcasting(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<?x1x3xf32>, %[[B:[a-z0-9]+]]: tensor<5x1xf32>, %[[S:[a-z0-9]+]]: tensor<f32>, %[[U:[a-z0-9]+]]: tensor<*xf32>, %[[E:[a-z0-9]+]]: tensor<i32>, %[[I:[a-z0-9]+]]: tensor<2xi64>, %[[C:[a-z0-9]+]]: tensor<5x1xi1>)
func.func @broadcasting(%a: tensor<?x1x3xf32>, %b: tensor<5x1xf32>, %s: tensor<f32>, %u: tensor<*xf32>, %e: tensor<i32>, %i: tensor<2xi64>, %c: tensor<5x1xi1>) {
  // Discardable attributes survive the custom form.
  // CHECK-NEXT: nunc.add %[[A]], %[[B]] {foo} : (tensor<?x1x3xf32>, tensor<5x1xf32>) -> tensor<?x5x3xf32>
  %0 = nunc.add %a, %b {foo} : (tensor<?x1x3xf32>, tensor<5x1xf32>) -> tensor<?x5x3xf32>
  // CHECK-NEXT: nunc.sub %[[S]], %[[A]] : (tensor<f32>, tensor<?x1x3xf32>) -> tensor<?x1x3xf32>
  %1 = nunc.sub %s, %a : (tensor<f32>, tensor<?x1x3xf32>) -> tensor<?x1x3xf32>
  // CHECK-NEXT: nunc.mul %[[U]], %[[S]] : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  %2 = nunc.mul %u, %s : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  // CHECK-NEXT: nunc.div %[[I]], %[[I]] : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %3 = nunc.div %i, %i : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  // Pow's exponent may have another element type.
  // CHECK-NEXT: nunc.pow %[[A]], %[[E]] : (tensor<?x1x3xf32>, tensor<i32>) -> tensor<?x1x3xf32>
  %4 = nunc.pow %a, %e : (tensor<?x1x3xf32>, tensor<i32>) -> tensor<?x1x3xf32>
  // CHECK-NEXT: nunc.equal %[[B]], %[[S]] : (tensor<5x1xf32>, tensor<f32>) -> tensor<5x1xi1>
  %5 = nunc.equal %b, %s : (tensor<5x1xf32>, tensor<f32>) -> tensor<5x1xi1>
  // CHECK-NEXT: nunc.where %[[C]], %[[A]], %[[S]] : (tensor<5x1xi1>, tensor<?x1x3xf32>, tensor<f32>) -> tensor<?x5x3xf32>
  %6 = nunc.where %c, %a, %s : (tensor<5x1xi1>, tensor<?x1x3xf32>, tensor<f32>) -> tensor<?x5x3xf32>
  // CHECK-NEXT: nunc.add %[[A]], %[[B]] : (tensor<?x1x3xf32>, tensor<5x1xf32>) -> tensor<*xf32>
  %7 = nunc.add %a, %b : (tensor<?x1x3xf32>, tensor<5x1xf32>) -> tensor<*xf32>
  // CHECK-NEXT: nunc.equal %[[C]], %[[C]] : (tensor<5x1xi1>, tensor<5x1xi1>) -> tensor<5x1xi1>
  %8 = nunc.equal %c, %c : (tensor<5x1xi1>, tensor<5x1xi1>) -> tensor<5x1xi1>
  // CHECK-NEXT: return
  return
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @linalg(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x?x3x4xf32>, %[[B:[a-z0-9]+]]: tensor<?x4x5xf32>, %[[V:[a-z0-9]+]]: tensor<4xf32>, %[[M:[a-z0-9]+]]: tensor<3x4xf32>, %[[N:[a-z0-9]+]]: tensor<5x4xf32>, %[[C:[a-z0-9]+]]: tensor<5xf32>, %[[U:[a-z0-9]+]]: tensor<*xf32>)
func.func @linalg(%a: tensor<2x?x3x4xf32>, %b: tensor<?x4x5xf32>, %v: tensor<4xf32>, %m: tensor<3x4xf32>, %n: tensor<5x4xf32>, %c: tensor<5xf32>, %u: tensor<*xf32>) {
  // CHECK-NEXT: nunc.matmul %[[A]], %[[B]] : (tensor<2x?x3x4xf32>, tensor<?x4x5xf32>) -> tensor<2x?x3x5xf32>
  %0 = nunc.matmul %a, %b : (tensor<2x?x3x4xf32>, tensor<?x4x5xf32>) -> tensor<2x?x3x5xf32>
  // CHECK-NEXT: nunc.matmul %[[V]], %[[V]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %1 = nunc.matmul %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  // CHECK-NEXT: nunc.matmul %[[U]], %[[V]] : (tensor<*xf32>, tensor<4xf32>) -> tensor<*xf32>
  %2 = nunc.matmul %u, %v : (tensor<*xf32>, tensor<4xf32>) -> tensor<*xf32>
  // CHECK-NEXT: nunc.gemm %[[M]], %[[N]], %[[C]] : tensor<5xf32> {alpha = 5.000000e-01 : f32, transB = 1 : i64} : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<3x5xf32>
  %3 = nunc.gemm %m, %n, %c : tensor<5xf32> {alpha = 5.000000e-01 : f32, transB = 1 : i64} : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<3x5xf32>
  // CHECK-NEXT: nunc.gemm %[[M]], %[[M]] {beta = 0.000000e+00 : f32, transA = 1 : i64} : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<4x4xf32>
  %4 = nunc.gemm %m, %m {transA = 1 : i64, beta = 0.0 : f32, alpha = 1.0 : f32} : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<4x4xf32>
  // CHECK-NEXT: nunc.gemm %[[U]], %[[M]] : tensor<*xf32>, tensor<3x4xf32> -> tensor<?x4xf32>
  %5 = nunc.gemm %u, %m : tensor<*xf32>, tensor<3x4xf32> -> tensor<?x4xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @quantized_linalg(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<?x3x4xi8>, %[[B:[a-z0-9]+]]: tensor<4x2xui8>, %[[AZP:[a-z0-9]+]]: tensor<i8>, %[[BZP:[a-z0-9]+]]: tensor<2xui8>, %[[AS:[a-z0-9]+]]: tensor<f32>, %[[BS:[a-z0-9]+]]: tensor<2xf32>, %[[YS:[a-z0-9]+]]: tensor<f32>, %[[YZP:[a-z0-9]+]]: tensor<ui8>, %[[QA:[a-z0-9]+]]: tensor<3x4xi8>)
func.func @quantized_linalg(%a: tensor<?x3x4xi8>, %b: tensor<4x2xui8>, %azp: tensor<i8>, %bzp: tensor<2xui8>, %as: tensor<f32>, %bs: tensor<2xf32>, %ys: tensor<f32>, %yzp: tensor<ui8>, %qa: tensor<3x4xi8>) {
  // CHECK-NEXT: nunc.matmul_integer %[[A]], %[[B]] : tensor<?x3x4xi8>, tensor<4x2xui8> -> tensor<?x3x2xi32>
  %0 = nunc.matmul_integer %a, %b : tensor<?x3x4xi8>, tensor<4x2xui8> -> tensor<?x3x2xi32>
  // CHECK-NEXT: nunc.matmul_integer %[[A]], %[[B]] a_zero_point %[[AZP]] : tensor<i8> b_zero_point %[[BZP]] : tensor<2xui8> : tensor<?x3x4xi8>, tensor<4x2xui8> -> tensor<?x3x2xi32>
  %1 = nunc.matmul_integer %a, %b a_zero_point %azp : tensor<i8> b_zero_point %bzp : tensor<2xui8> : tensor<?x3x4xi8>, tensor<4x2xui8> -> tensor<?x3x2xi32>
  // CHECK-NEXT: nunc.matmul_integer %[[A]], %[[B]] b_zero_point %[[BZP]] : tensor<2xui8> : tensor<?x3x4xi8>, tensor<4x2xui8> -> tensor<?x3x2xi32>
  %2 = nunc.matmul_integer %a, %b b_zero_point %bzp : tensor<2xui8> : tensor<?x3x4xi8>, tensor<4x2xui8> -> tensor<?x3x2xi32>
  // CHECK-NEXT: nunc.matmul_integer %[[QA]], %[[B]] a_zero_point %[[AZP]] : tensor<i8> : tensor<3x4xi8>, tensor<4x2xui8> -> tensor<3x2xi32>
  %3 = nunc.matmul_integer %qa, %b a_zero_point %azp : tensor<i8> : tensor<3x4xi8>, tensor<4x2xui8> -> tensor<3x2xi32>
  // CHECK-NEXT: nunc.qlinear_matmul %[[QA]], %[[AS]], %[[AZP]], %[[B]], %[[BS]], %[[BZP]], %[[YS]], %[[YZP]] : (tensor<3x4xi8>, tensor<f32>, tensor<i8>, tensor<4x2xui8>, tensor<2xf32>, tensor<2xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x2xui8>
  %4 = nunc.qlinear_matmul %qa, %as, %azp, %b, %bs, %bzp, %ys, %yzp : (tensor<3x4xi8>, tensor<f32>, tensor<i8>, tensor<4x2xui8>, tensor<2xf32>, tensor<2xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x2xui8>
  // CHECK-NEXT: return
  return
}

//===----------------------------------------------------------------------===//
// Reductions and normalization
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x?x4xf32>, %[[AXES:[a-z0-9]+]]: tensor<2xi64>, %[[DYN:[a-z0-9]+]]: tensor<?xi64>, %[[U:[a-z0-9]+]]: tensor<*xf32>)
func.func @reduce(%x: tensor<2x?x4xf32>, %axes: tensor<2xi64>, %dyn: tensor<?xi64>, %u: tensor<*xf32>) {
  // CHECK-NEXT: %[[C:.*]] = nunc.constant dense<[0, -1]> : tensor<2xi64>
  %c = nunc.constant dense<[0, -1]> : tensor<2xi64>
  // CHECK-NEXT: nunc.reduce_mean %[[X]] axes %[[C]] : tensor<2xi64> : tensor<2x?x4xf32> -> tensor<1x?x1xf32>
  %0 = nunc.reduce_mean %x axes %c : tensor<2xi64> : tensor<2x?x4xf32> -> tensor<1x?x1xf32>
  // CHECK-NEXT: nunc.reduce_sum %[[X]] axes %[[C]] : tensor<2xi64> {keepdims = 0 : i64} : tensor<2x?x4xf32> -> tensor<?xf32>
  %1 = nunc.reduce_sum %x axes %c : tensor<2xi64> {keepdims = 0 : i64} : tensor<2x?x4xf32> -> tensor<?xf32>
  // CHECK-NEXT: nunc.reduce_sum %[[X]] : tensor<2x?x4xf32> -> tensor<1x1x1xf32>
  %2 = nunc.reduce_sum %x : tensor<2x?x4xf32> -> tensor<1x1x1xf32>
  // CHECK-NEXT: nunc.reduce_mean %[[X]] {keepdims = 0 : i64} : tensor<2x?x4xf32> -> tensor<f32>
  %3 = nunc.reduce_mean %x {keepdims = 0 : i64} : tensor<2x?x4xf32> -> tensor<f32>
  // CHECK-NEXT: nunc.reduce_sum %[[X]] {noop_with_empty_axes = 1 : i64} : tensor<2x?x4xf32> -> tensor<2x?x4xf32>
  %4 = nunc.reduce_sum %x {noop_with_empty_axes = 1 : i64} : tensor<2x?x4xf32> -> tensor<2x?x4xf32>
  // CHECK-NEXT: nunc.reduce_mean %[[X]] axes %[[DYN]] : tensor<?xi64> : tensor<2x?x4xf32> -> tensor<?x?x?xf32>
  %5 = nunc.reduce_mean %x axes %dyn : tensor<?xi64> : tensor<2x?x4xf32> -> tensor<?x?x?xf32>
  // CHECK-NEXT: nunc.reduce_sum %[[X]] axes %[[DYN]] : tensor<?xi64> {keepdims = 0 : i64} : tensor<2x?x4xf32> -> tensor<*xf32>
  %6 = nunc.reduce_sum %x axes %dyn : tensor<?xi64> {keepdims = 0 : i64} : tensor<2x?x4xf32> -> tensor<*xf32>
  // CHECK-NEXT: nunc.reduce_mean %[[U]] axes %[[AXES]] : tensor<2xi64> : tensor<*xf32> -> tensor<*xf32>
  %7 = nunc.reduce_mean %u axes %axes : tensor<2xi64> : tensor<*xf32> -> tensor<*xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @norm(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x?x8xf16>, %[[S:[a-z0-9]+]]: tensor<8xf16>, %[[B:[a-z0-9]+]]: tensor<8xf16>, %[[IMG:[a-z0-9]+]]: tensor<?x3x5x5xf32>, %[[P:[a-z0-9]+]]: tensor<3xf32>, %[[U:[a-z0-9]+]]: tensor<*xbf16>, %[[US:[a-z0-9]+]]: tensor<*xbf16>)
func.func @norm(%x: tensor<2x?x8xf16>, %s: tensor<8xf16>, %b: tensor<8xf16>, %img: tensor<?x3x5x5xf32>, %p: tensor<3xf32>, %u: tensor<*xbf16>, %us: tensor<*xbf16>) {
  // CHECK-NEXT: nunc.softmax %[[X]] : tensor<2x?x8xf16> -> tensor<2x?x8xf16>
  %0 = nunc.softmax %x : tensor<2x?x8xf16> -> tensor<2x?x8xf16>
  // CHECK-NEXT: nunc.softmax %[[X]] {axis = 0 : i64} : tensor<2x?x8xf16> -> tensor<2x?x8xf16>
  %1 = nunc.softmax %x {axis = 0 : i64} : tensor<2x?x8xf16> -> tensor<2x?x8xf16>
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[S]], %[[B]] : tensor<8xf16> : tensor<2x?x8xf16>, tensor<8xf16> -> tensor<2x?x8xf16>, tensor<2x?x1xf32>, tensor<2x?x1xf32>
  %2:3 = nunc.layer_norm %x, %s, %b : tensor<8xf16> : tensor<2x?x8xf16>, tensor<8xf16> -> tensor<2x?x8xf16>, tensor<2x?x1xf32>, tensor<2x?x1xf32>
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = nunc.layer_norm %[[X]], %[[S]] {axis = 1 : i64, epsilon = 1.000000e-03 : f32, stash_type = 0 : i64} : tensor<2x?x8xf16>, tensor<8xf16> -> tensor<2x?x8xf16>, tensor<2x1x1xf16>, tensor<2x1x1xf16>
  %3:3 = nunc.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.000000e-03 : f32, stash_type = 0 : i64} : tensor<2x?x8xf16>, tensor<8xf16> -> tensor<2x?x8xf16>, tensor<2x1x1xf16>, tensor<2x1x1xf16>
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = nunc.layer_norm %[[U]], %[[US]] : tensor<*xbf16>, tensor<*xbf16> -> tensor<*xbf16>, tensor<*xf32>, tensor<*xf32>
  %4:3 = nunc.layer_norm %u, %us : tensor<*xbf16>, tensor<*xbf16> -> tensor<*xbf16>, tensor<*xf32>, tensor<*xf32>
  // CHECK-NEXT: nunc.batch_norm %[[IMG]], %[[P]], %[[P]], %[[P]], %[[P]] {epsilon = 1.000000e-03 : f32} : (tensor<?x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x5x5xf32>
  %5 = nunc.batch_norm %img, %p, %p, %p, %p {epsilon = 1.000000e-03 : f32} : (tensor<?x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x5x5xf32>
  // CHECK-NEXT: nunc.batch_norm %[[IMG]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<?x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x5x5xf32>
  %6 = nunc.batch_norm %img, %p, %p, %p, %p : (tensor<?x3x5x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x5x5xf32>
  // CHECK-NEXT: return
  return
}

//===----------------------------------------------------------------------===//
// Data movement and shapes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @gather(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<5x?x3xf32>, %[[I:[a-z0-9]+]]: tensor<2x2xi64>, %[[J:[a-z0-9]+]]: tensor<i32>, %[[U:[a-z0-9]+]]: tensor<*xf32>)
func.func @gather(%x: tensor<5x?x3xf32>, %i: tensor<2x2xi64>, %j: tensor<i32>, %u: tensor<*xf32>) {
  // CHECK-NEXT: nunc.gather %[[X]], %[[I]] : (tensor<5x?x3xf32>, tensor<2x2xi64>) -> tensor<2x2x?x3xf32>
  %0 = nunc.gather %x, %i : (tensor<5x?x3xf32>, tensor<2x2xi64>) -> tensor<2x2x?x3xf32>
  // CHECK-NEXT: nunc.gather %[[X]], %[[J]] {axis = -1 : i64} : (tensor<5x?x3xf32>, tensor<i32>) -> tensor<5x?xf32>
  %1 = nunc.gather %x, %j {axis = -1 : i64} : (tensor<5x?x3xf32>, tensor<i32>) -> tensor<5x?xf32>
  // CHECK-NEXT: nunc.gather %[[U]], %[[I]] {axis = 1 : i64} : (tensor<*xf32>, tensor<2x2xi64>) -> tensor<*xf32>
  %2 = nunc.gather %u, %i {axis = 1 : i64} : (tensor<*xf32>, tensor<2x2xi64>) -> tensor<*xf32>
  // Constant indices at both ends of the valid range [-5, 4].
  // CHECK-NEXT: %[[C:.*]] = nunc.constant dense<[-5, 4]> : tensor<2xi64>
  %c = nunc.constant dense<[-5, 4]> : tensor<2xi64>
  // CHECK-NEXT: nunc.gather %[[X]], %[[C]] : (tensor<5x?x3xf32>, tensor<2xi64>) -> tensor<2x?x3xf32>
  %3 = nunc.gather %x, %c : (tensor<5x?x3xf32>, tensor<2xi64>) -> tensor<2x?x3xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @reshape_flatten_transpose(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x?x6xf32>, %[[S:[a-z0-9]+]]: tensor<3xi64>, %[[D:[a-z0-9]+]]: tensor<?xi64>, %[[U:[a-z0-9]+]]: tensor<*xi8>)
func.func @reshape_flatten_transpose(%x: tensor<2x?x6xf32>, %s: tensor<3xi64>, %d: tensor<?xi64>, %u: tensor<*xi8>) {
  // CHECK-NEXT: %[[C:.*]] = nunc.constant dense<[0, -1, 3]> : tensor<3xi64>
  %c = nunc.constant dense<[0, -1, 3]> : tensor<3xi64>
  // CHECK-NEXT: nunc.reshape %[[X]], %[[C]] : (tensor<2x?x6xf32>, tensor<3xi64>) -> tensor<2x?x3xf32>
  %0 = nunc.reshape %x, %c : (tensor<2x?x6xf32>, tensor<3xi64>) -> tensor<2x?x3xf32>
  // CHECK-NEXT: nunc.reshape %[[X]], %[[S]] : (tensor<2x?x6xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %1 = nunc.reshape %x, %s : (tensor<2x?x6xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  // CHECK-NEXT: nunc.reshape %[[X]], %[[D]] : (tensor<2x?x6xf32>, tensor<?xi64>) -> tensor<*xf32>
  %2 = nunc.reshape %x, %d : (tensor<2x?x6xf32>, tensor<?xi64>) -> tensor<*xf32>
  // CHECK-NEXT: %[[Z:.*]] = nunc.constant dense<[0, 4]> : tensor<2xi64>
  %z = nunc.constant dense<[0, 4]> : tensor<2xi64>
  // CHECK-NEXT: nunc.reshape %[[U]], %[[Z]] {allowzero = 1 : i64} : (tensor<*xi8>, tensor<2xi64>) -> tensor<0x4xi8>
  %3 = nunc.reshape %u, %z {allowzero = 1 : i64} : (tensor<*xi8>, tensor<2xi64>) -> tensor<0x4xi8>
  // CHECK-NEXT: %[[E:.*]] = nunc.constant dense<> : tensor<0xi64>
  %e = nunc.constant dense<> : tensor<0xi64>
  // CHECK-NEXT: %[[ONE:.*]] = nunc.constant dense<7.000000e+00> : tensor<1x1xf32>
  %one = nunc.constant dense<7.0> : tensor<1x1xf32>
  // CHECK-NEXT: nunc.reshape %[[ONE]], %[[E]] : (tensor<1x1xf32>, tensor<0xi64>) -> tensor<f32>
  %4 = nunc.reshape %one, %e : (tensor<1x1xf32>, tensor<0xi64>) -> tensor<f32>
  // CHECK-NEXT: nunc.flatten %[[X]] : tensor<2x?x6xf32> -> tensor<2x?xf32>
  %5 = nunc.flatten %x : tensor<2x?x6xf32> -> tensor<2x?xf32>
  // CHECK-NEXT: nunc.flatten %[[X]] {axis = 0 : i64} : tensor<2x?x6xf32> -> tensor<1x?xf32>
  %6 = nunc.flatten %x {axis = 0 : i64} : tensor<2x?x6xf32> -> tensor<1x?xf32>
  // CHECK-NEXT: nunc.flatten %[[X]] {axis = -1 : i64} : tensor<2x?x6xf32> -> tensor<?x6xf32>
  %7 = nunc.flatten %x {axis = -1 : i64} : tensor<2x?x6xf32> -> tensor<?x6xf32>
  // CHECK-NEXT: nunc.flatten %[[X]] {axis = 3 : i64} : tensor<2x?x6xf32> -> tensor<?x1xf32>
  %8 = nunc.flatten %x {axis = 3 : i64} : tensor<2x?x6xf32> -> tensor<?x1xf32>
  // CHECK-NEXT: nunc.flatten %[[U]] {axis = 3 : i64} : tensor<*xi8> -> tensor<?x?xi8>
  %9 = nunc.flatten %u {axis = 3 : i64} : tensor<*xi8> -> tensor<?x?xi8>
  // CHECK-NEXT: nunc.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : tensor<2x?x6xf32> -> tensor<6x2x?xf32>
  %10 = nunc.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x?x6xf32> -> tensor<6x2x?xf32>
  // CHECK-NEXT: nunc.transpose %[[U]] {perm = array<i64: 1, 0>} : tensor<*xi8> -> tensor<?x?xi8>
  %11 = nunc.transpose %u {perm = array<i64: 1, 0>} : tensor<*xi8> -> tensor<?x?xi8>
  // CHECK-NEXT: %[[F:.*]] = nunc.constant dense<5.000000e+00> : tensor<f32>
  %f = nunc.constant dense<5.0> : tensor<f32>
  // CHECK-NEXT: nunc.transpose %[[F]] {perm = array<i64>} : tensor<f32> -> tensor<f32>
  %12 = nunc.transpose %f {perm = array<i64>} : tensor<f32> -> tensor<f32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @squeeze_unsqueeze(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x?x1x3xf32>, %[[A:[a-z0-9]+]]: tensor<2xi64>, %[[S:[a-z0-9]+]]: tensor<f32>)
func.func @squeeze_unsqueeze(%x: tensor<1x?x1x3xf32>, %a: tensor<2xi64>, %s: tensor<f32>) {
  // CHECK-NEXT: %[[C:.*]] = nunc.constant dense<[0, -1]> : tensor<2xi64>
  %c = nunc.constant dense<[0, -1]> : tensor<2xi64>
  // CHECK-NEXT: nunc.unsqueeze %[[X]], %[[C]] : (tensor<1x?x1x3xf32>, tensor<2xi64>) -> tensor<1x1x?x1x3x1xf32>
  %0 = nunc.unsqueeze %x, %c : (tensor<1x?x1x3xf32>, tensor<2xi64>) -> tensor<1x1x?x1x3x1xf32>
  // CHECK-NEXT: nunc.unsqueeze %[[X]], %[[A]] : (tensor<1x?x1x3xf32>, tensor<2xi64>) -> tensor<?x?x?x?x?x?xf32>
  %1 = nunc.unsqueeze %x, %a : (tensor<1x?x1x3xf32>, tensor<2xi64>) -> tensor<?x?x?x?x?x?xf32>
  // CHECK-NEXT: %[[Z:.*]] = nunc.constant dense<0> : tensor<1xi64>
  %z = nunc.constant dense<0> : tensor<1xi64>
  // CHECK-NEXT: nunc.unsqueeze %[[S]], %[[Z]] : (tensor<f32>, tensor<1xi64>) -> tensor<1xf32>
  %2 = nunc.unsqueeze %s, %z : (tensor<f32>, tensor<1xi64>) -> tensor<1xf32>
  // CHECK-NEXT: %[[Q:.*]] = nunc.constant dense<[2, 0]> : tensor<2xi64>
  %q = nunc.constant dense<[2, 0]> : tensor<2xi64>
  // CHECK-NEXT: nunc.squeeze %[[X]] axes %[[Q]] : tensor<2xi64> : tensor<1x?x1x3xf32> -> tensor<?x3xf32>
  %3 = nunc.squeeze %x axes %q : tensor<2xi64> : tensor<1x?x1x3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: nunc.squeeze %[[X]] axes %[[A]] : tensor<2xi64> : tensor<1x?x1x3xf32> -> tensor<*xf32>
  %4 = nunc.squeeze %x axes %a : tensor<2xi64> : tensor<1x?x1x3xf32> -> tensor<*xf32>
  // CHECK-NEXT: %[[ST:.*]] = nunc.constant dense<1.000000e+00> : tensor<1x3x1xf32>
  %st = nunc.constant dense<1.0> : tensor<1x3x1xf32>
  // CHECK-NEXT: nunc.squeeze %[[ST]] : tensor<1x3x1xf32> -> tensor<3xf32>
  %5 = nunc.squeeze %st : tensor<1x3x1xf32> -> tensor<3xf32>
  // CHECK-NEXT: nunc.squeeze %[[X]] : tensor<1x?x1x3xf32> -> tensor<*xf32>
  %6 = nunc.squeeze %x : tensor<1x?x1x3xf32> -> tensor<*xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x?xf32>, %[[B:[a-z0-9]+]]: tensor<?x3xf32>, %[[U:[a-z0-9]+]]: tensor<*xf32>, %[[V:[a-z0-9]+]]: tensor<4xi64>)
func.func @concat(%a: tensor<2x?xf32>, %b: tensor<?x3xf32>, %u: tensor<*xf32>, %v: tensor<4xi64>) -> tensor<4xi64> {
  // CHECK-NEXT: nunc.concat %[[A]], %[[B]] {axis = 0 : i64} : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %0 = nunc.concat %a, %b {axis = 0 : i64} : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  // CHECK-NEXT: nunc.concat %[[A]], %[[A]] {axis = -1 : i64} : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = nunc.concat %a, %a {axis = -1 : i64} : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK-NEXT: nunc.concat %[[A]], %[[U]] {axis = 1 : i64} : (tensor<2x?xf32>, tensor<*xf32>) -> tensor<?x?xf32>
  %2 = nunc.concat %a, %u {axis = 1 : i64} : (tensor<2x?xf32>, tensor<*xf32>) -> tensor<?x?xf32>
  // CHECK-NEXT: %[[R:.*]] = nunc.concat %[[V]] {axis = 0 : i64} : (tensor<4xi64>) -> tensor<4xi64>
  %3 = nunc.concat %v {axis = 0 : i64} : (tensor<4xi64>) -> tensor<4xi64>
  // CHECK-NEXT: return %[[R]] : tensor<4xi64>
  return %3 : tensor<4xi64>
}

// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<10x?x8xf32>, %[[ST:[a-z0-9]+]]: tensor<1xi32>, %[[U:[a-z0-9]+]]: tensor<*xf32>)
func.func @slice(%x: tensor<10x?x8xf32>, %st: tensor<1xi32>, %u: tensor<*xf32>) {
  // CHECK-NEXT: %[[S:.*]] = nunc.constant dense<[1, -3]> : tensor<2xi64>
  %s = nunc.constant dense<[1, -3]> : tensor<2xi64>
  // CHECK-NEXT: %[[E:.*]] = nunc.constant dense<[9223372036854775807, 100]> : tensor<2xi64>
  %e = nunc.constant dense<[9223372036854775807, 100]> : tensor<2xi64>
  // CHECK-NEXT: nunc.slice %[[X]][%[[S]] : tensor<2xi64>, %[[E]] : tensor<2xi64>] : tensor<10x?x8xf32> -> tensor<9x?x8xf32>
  %0 = nunc.slice %x[%s : tensor<2xi64>, %e : tensor<2xi64>] : tensor<10x?x8xf32> -> tensor<9x?x8xf32>
  // CHECK-NEXT: %[[AX:.*]] = nunc.constant dense<[2, 0]> : tensor<2xi64>
  %ax = nunc.constant dense<[2, 0]> : tensor<2xi64>
  // CHECK-NEXT: %[[SP:.*]] = nunc.constant dense<[-2, 3]> : tensor<2xi64>
  %sp = nunc.constant dense<[-2, 3]> : tensor<2xi64>
  // CHECK-NEXT: %[[E2:.*]] = nunc.constant dense<[0, 10]> : tensor<2xi64>
  %e2 = nunc.constant dense<[0, 10]> : tensor<2xi64>
  // CHECK-NEXT: %[[S2:.*]] = nunc.constant dense<[-1, 1]> : tensor<2xi64>
  %s2 = nunc.constant dense<[-1, 1]> : tensor<2xi64>
  // Axis 2: 7, 5, 3, 1; axis 0: 1, 4, 7.
  // CHECK-NEXT: nunc.slice %[[X]][%[[S2]] : tensor<2xi64>, %[[E2]] : tensor<2xi64> axes %[[AX]] : tensor<2xi64> steps %[[SP]] : tensor<2xi64>] : tensor<10x?x8xf32> -> tensor<3x?x4xf32>
  %1 = nunc.slice %x[%s2 : tensor<2xi64>, %e2 : tensor<2xi64> axes %ax : tensor<2xi64> steps %sp : tensor<2xi64>] : tensor<10x?x8xf32> -> tensor<3x?x4xf32>
  // CHECK-NEXT: nunc.slice %[[X]][%[[ST]] : tensor<1xi32>, %[[ST]] : tensor<1xi32> axes %[[ST]] : tensor<1xi32>] : tensor<10x?x8xf32> -> tensor<?x?x?xf32>
  %2 = nunc.slice %x[%st : tensor<1xi32>, %st : tensor<1xi32> axes %st : tensor<1xi32>] : tensor<10x?x8xf32> -> tensor<?x?x?xf32>
  // CHECK-NEXT: nunc.slice %[[U]][%[[ST]] : tensor<1xi32>, %[[ST]] : tensor<1xi32> steps %[[ST]] : tensor<1xi32>] : tensor<*xf32> -> tensor<*xf32>
  %3 = nunc.slice %u[%st : tensor<1xi32>, %st : tensor<1xi32> steps %st : tensor<1xi32>] : tensor<*xf32> -> tensor<*xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @expand_shape(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<3x1xf32>, %[[S:[a-z0-9]+]]: tensor<?xi64>, %[[U:[a-z0-9]+]]: tensor<*xf32>)
func.func @expand_shape(%x: tensor<3x1xf32>, %s: tensor<?xi64>, %u: tensor<*xf32>) {
  // CHECK-NEXT: %[[C:.*]] = nunc.constant dense<[2, 1, 4]> : tensor<3xi64>
  %c = nunc.constant dense<[2, 1, 4]> : tensor<3xi64>
  // CHECK-NEXT: nunc.expand %[[X]], %[[C]] : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %0 = nunc.expand %x, %c : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: nunc.expand %[[X]], %[[S]] : (tensor<3x1xf32>, tensor<?xi64>) -> tensor<*xf32>
  %1 = nunc.expand %x, %s : (tensor<3x1xf32>, tensor<?xi64>) -> tensor<*xf32>
  // CHECK-NEXT: nunc.shape %[[X]] : tensor<3x1xf32> -> tensor<2xi64>
  %2 = nunc.shape %x : tensor<3x1xf32> -> tensor<2xi64>
  // CHECK-NEXT: nunc.shape %[[U]] {start = 1 : i64} : tensor<*xf32> -> tensor<?xi64>
  %3 = nunc.shape %u {start = 1 : i64} : tensor<*xf32> -> tensor<?xi64>
  // Out-of-range start and end are clamped: dims [0, 1).
  // CHECK-NEXT: nunc.shape %[[X]] {end = -1 : i64, start = -5 : i64} : tensor<3x1xf32> -> tensor<1xi64>
  %4 = nunc.shape %x {start = -5 : i64, end = -1 : i64} : tensor<3x1xf32> -> tensor<1xi64>
  // CHECK-NEXT: nunc.shape %[[X]] {end = 0 : i64, start = 1 : i64} : tensor<3x1xf32> -> tensor<0xi64>
  %5 = nunc.shape %x {end = 0 : i64, start = 1 : i64} : tensor<3x1xf32> -> tensor<0xi64>
  // CHECK-NEXT: nunc.shape %[[X]] {end = 7 : i64} : tensor<3x1xf32> -> tensor<2xi64>
  %6 = nunc.shape %x {end = 7 : i64, start = 0 : i64} : tensor<3x1xf32> -> tensor<2xi64>
  // CHECK-NEXT: return
  return
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @conv(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x4x7x?xf32>, %[[W:[a-z0-9]+]]: tensor<6x2x3x3xf32>, %[[B:[a-z0-9]+]]: tensor<6xf32>, %[[U:[a-z0-9]+]]: tensor<*xf32>, %[[X1:[a-z0-9]+]]: tensor<1x2x5xf16>, %[[W1:[a-z0-9]+]]: tensor<3x2x2xf16>)
func.func @conv(%x: tensor<?x4x7x?xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>, %u: tensor<*xf32>, %x1: tensor<1x2x5xf16>, %w1: tensor<3x2x2xf16>) {
  // H: (7 + 1 + 1 - 3) / 2 + 1 = 4.
  // CHECK-NEXT: nunc.conv %[[X]], %[[W]], %[[B]] : tensor<6xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 1>} : tensor<?x4x7x?xf32>, tensor<6x2x3x3xf32> -> tensor<?x6x4x?xf32>
  %0 = nunc.conv %x, %w, %b : tensor<6xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 1>} : tensor<?x4x7x?xf32>, tensor<6x2x3x3xf32> -> tensor<?x6x4x?xf32>
  // SAME_UPPER: ceil(5 / 2) = 3.
  // CHECK-NEXT: nunc.conv %[[X1]], %[[W1]] {auto_pad = "SAME_UPPER", dilations = array<i64: 2>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : tensor<1x2x5xf16>, tensor<3x2x2xf16> -> tensor<1x3x3xf16>
  %1 = nunc.conv %x1, %w1 {auto_pad = "SAME_UPPER", dilations = array<i64: 2>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : tensor<1x2x5xf16>, tensor<3x2x2xf16> -> tensor<1x3x3xf16>
  // CHECK-NEXT: nunc.conv %[[U]], %[[W]] {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<*xf32>, tensor<6x2x3x3xf32> -> tensor<?x?x?x?xf32>
  %2 = nunc.conv %u, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<*xf32>, tensor<6x2x3x3xf32> -> tensor<?x?x?x?xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @resample(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x4x5x6xf32>, %[[W:[a-z0-9]+]]: tensor<4x3x3x3xf32>, %[[B:[a-z0-9]+]]: tensor<6xf32>, %[[C:[a-z0-9]+]]: tensor<2x12x6xf32>, %[[Q:[a-z0-9]+]]: tensor<1x2x3x3xui8>)
func.func @resample(%x: tensor<1x4x5x6xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>, %c: tensor<2x12x6xf32>, %q: tensor<1x2x3x3xui8>) {
  // H: 2 (5 - 1) + 1 + 3 - 2 = 10, W: 2 (6 - 1) + 3 - 2 = 11.
  // CHECK-NEXT: nunc.conv_transpose %[[X]], %[[W]], %[[B]] : tensor<6xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, output_padding = array<i64: 1, 0>, output_shape = array<i64>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x4x5x6xf32>, tensor<4x3x3x3xf32> -> tensor<1x6x10x11xf32>
  %0 = nunc.conv_transpose %x, %w, %b : tensor<6xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 3, 3>, output_padding = array<i64: 1, 0>, output_shape = array<i64>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x4x5x6xf32>, tensor<4x3x3x3xf32> -> tensor<1x6x10x11xf32>
  // CHECK-NEXT: %[[IMG:.*]] = nunc.constant dense<[3, 4]> : tensor<2xi64>
  %image = nunc.constant dense<[3, 4]> : tensor<2xi64>
  // CHECK-NEXT: %[[BLK:.*]] = nunc.constant dense<2> : tensor<2xi64>
  %block = nunc.constant dense<2> : tensor<2xi64>
  // CHECK-NEXT: nunc.col2im %[[C]], %[[IMG]], %[[BLK]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x12x6xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3x3x4xf32>
  %1 = nunc.col2im %c, %image, %block {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x12x6xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3x3x4xf32>
  // CHECK-NEXT: %[[SC:.*]] = nunc.constant dense<[1.000000e+00, 1.000000e+00, 2.000000e+00, 1.500000e+00]> : tensor<4xf32>
  %scales = nunc.constant dense<[1.0, 1.0, 2.0, 1.5]> : tensor<4xf32>
  // CHECK-NEXT: nunc.resize %[[Q]] scales %[[SC]] : tensor<4xf32> {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : tensor<1x2x3x3xui8> -> tensor<1x2x6x4xui8>
  %2 = nunc.resize %q scales %scales : tensor<4xf32> {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : tensor<1x2x3x3xui8> -> tensor<1x2x6x4xui8>
  // CHECK-NEXT: %[[ROI:.*]] = nunc.constant
  %roi = nunc.constant dense<[0.1, 0.2, 0.9, 0.8]> : tensor<4xf32>
  // CHECK-NEXT: %[[SZ:.*]] = nunc.constant dense<[7, 3]> : tensor<2xi64>
  %sizes = nunc.constant dense<[7, 3]> : tensor<2xi64>
  // CHECK-NEXT: nunc.resize %[[X]] roi %[[ROI]] : tensor<4xf32> sizes %[[SZ]] : tensor<2xi64> {antialias = 1 : i64, axes = array<i64: 2, 3>, coordinate_transformation_mode = "tf_crop_and_resize", cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = 1 : i64, extrapolation_value = 2.000000e+00 : f32, mode = "cubic"} : tensor<1x4x5x6xf32> -> tensor<1x4x7x3xf32>
  %3 = nunc.resize %x roi %roi : tensor<4xf32> sizes %sizes : tensor<2xi64> {antialias = 1 : i64, axes = array<i64: 2, 3>, coordinate_transformation_mode = "tf_crop_and_resize", cubic_coeff_a = -0.5 : f32, exclude_outside = 1 : i64, extrapolation_value = 2.0 : f32, keep_aspect_ratio_policy = "stretch", mode = "cubic"} : tensor<1x4x5x6xf32> -> tensor<1x4x7x3xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @pool(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x8x8xf32>, %[[I:[a-z0-9]+]]: tensor<1x1x5xi8>, %[[U:[a-z0-9]+]]: tensor<*xf32>)
func.func @pool(%x: tensor<2x3x8x8xf32>, %i: tensor<1x1x5xi8>, %u: tensor<*xf32>) {
  // ceil((8 - 3) / 2) + 1 = 4.
  // CHECK-NEXT: nunc.max_pool %[[X]] {ceil_mode = 1 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  %0 = nunc.max_pool %x {ceil_mode = 1 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  // CHECK-NEXT: nunc.max_pool %[[I]] {auto_pad = "VALID", dilations = array<i64: 2>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<1x1x5xi8> -> tensor<1x1x3xi8>
  %1 = nunc.max_pool %i {auto_pad = "VALID", dilations = array<i64: 2>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<1x1x5xi8> -> tensor<1x1x3xi8>
  // CHECK-NEXT: nunc.average_pool %[[X]] {count_include_pad = 1 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x5x5xf32>
  %2 = nunc.average_pool %x {count_include_pad = 1 : i64, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x5x5xf32>
  // CHECK-NEXT: nunc.average_pool %[[U]] {auto_pad = "SAME_LOWER", dilations = array<i64: 1>, kernel_shape = array<i64: 3>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<*xf32> -> tensor<?x?x?xf32>
  %3 = nunc.average_pool %u {auto_pad = "SAME_LOWER", dilations = array<i64: 1>, kernel_shape = array<i64: 3>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : tensor<*xf32> -> tensor<?x?x?xf32>
  // CHECK-NEXT: nunc.global_average_pool %[[X]] : tensor<2x3x8x8xf32> -> tensor<2x3x1x1xf32>
  %4 = nunc.global_average_pool %x : tensor<2x3x8x8xf32> -> tensor<2x3x1x1xf32>
  // CHECK-NEXT: nunc.global_average_pool %[[U]] : tensor<*xf32> -> tensor<*xf32>
  %5 = nunc.global_average_pool %u : tensor<*xf32> -> tensor<*xf32>
  // CHECK-NEXT: return
  return
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @quant(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x3xf32>, %[[S:[a-z0-9]+]]: tensor<f32>, %[[ZP:[a-z0-9]+]]: tensor<ui8>, %[[CS:[a-z0-9]+]]: tensor<3xf32>, %[[CZP:[a-z0-9]+]]: tensor<3xi8>, %[[Q:[a-z0-9]+]]: tensor<?x3xi8>, %[[Q32:[a-z0-9]+]]: tensor<4xi32>, %[[U:[a-z0-9]+]]: tensor<*xf32>)
func.func @quant(%x: tensor<?x3xf32>, %s: tensor<f32>, %zp: tensor<ui8>, %cs: tensor<3xf32>, %czp: tensor<3xi8>, %q: tensor<?x3xi8>, %q32: tensor<4xi32>, %u: tensor<*xf32>) {
  // CHECK-NEXT: nunc.quantize_linear %[[X]], %[[S]], %[[ZP]] : tensor<ui8> {output_element_type = ui8} : tensor<?x3xf32>, tensor<f32> -> tensor<?x3xui8>
  %0 = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<?x3xf32>, tensor<f32> -> tensor<?x3xui8>
  // axis = 1 is the default and is not printed.
  // CHECK-NEXT: nunc.quantize_linear %[[X]], %[[CS]] {output_element_type = i8} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi8>
  %1 = nunc.quantize_linear %x, %cs {axis = 1 : i64, output_element_type = i8} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi8>
  // CHECK-NEXT: nunc.quantize_linear %[[U]], %[[S]] {output_element_type = i8} : tensor<*xf32>, tensor<f32> -> tensor<*xi8>
  %2 = nunc.quantize_linear %u, %s {output_element_type = i8} : tensor<*xf32>, tensor<f32> -> tensor<*xi8>
  // CHECK-NEXT: nunc.dequantize_linear %[[Q]], %[[CS]], %[[CZP]] : tensor<3xi8> {axis = -1 : i64} : tensor<?x3xi8>, tensor<3xf32> -> tensor<?x3xf32>
  %3 = nunc.dequantize_linear %q, %cs, %czp : tensor<3xi8> {axis = -1 : i64} : tensor<?x3xi8>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: nunc.dequantize_linear %[[Q32]], %[[S]] : tensor<4xi32>, tensor<f32> -> tensor<4xf32>
  %4 = nunc.dequantize_linear %q32, %s : tensor<4xi32>, tensor<f32> -> tensor<4xf32>
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = nunc.dynamic_quantize_linear %[[X]] : tensor<?x3xf32> -> tensor<?x3xui8>, tensor<f32>, tensor<ui8>
  %5:3 = nunc.dynamic_quantize_linear %x : tensor<?x3xf32> -> tensor<?x3xui8>, tensor<f32>, tensor<ui8>
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = nunc.dynamic_quantize_linear %[[U]] : tensor<*xf32> -> tensor<*xui8>, tensor<f32>, tensor<ui8>
  %6:3 = nunc.dynamic_quantize_linear %u : tensor<*xf32> -> tensor<*xui8>, tensor<f32>, tensor<ui8>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @quant16(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x3xf32>, %[[S:[a-z0-9]+]]: tensor<3xf32>, %[[ZP:[a-z0-9]+]]: tensor<3xui16>)
func.func @quant16(%x: tensor<?x3xf32>, %s: tensor<3xf32>, %zp: tensor<3xui16>) {
  // CHECK-NEXT: %[[Q:.*]] = nunc.quantize_linear %[[X]], %[[S]], %[[ZP]] : tensor<3xui16> {axis = -1 : i64, output_element_type = ui16} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xui16>
  %0 = nunc.quantize_linear %x, %s, %zp : tensor<3xui16> {axis = -1 : i64, output_element_type = ui16} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xui16>
  // CHECK-NEXT: nunc.dequantize_linear %[[Q]], %[[S]], %[[ZP]] : tensor<3xui16> : tensor<?x3xui16>, tensor<3xf32> -> tensor<?x3xf32>
  %1 = nunc.dequantize_linear %0, %s, %zp : tensor<3xui16> : tensor<?x3xui16>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: %[[Q2:.*]] = nunc.quantize_linear %[[X]], %[[S]] {output_element_type = i16} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi16>
  %2 = nunc.quantize_linear %x, %s {output_element_type = i16} : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xi16>
  // CHECK-NEXT: nunc.dequantize_linear %[[Q2]], %[[S]] : tensor<?x3xi16>, tensor<3xf32> -> tensor<?x3xf32>
  %3 = nunc.dequantize_linear %2, %s : tensor<?x3xi16>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @fake_quantize(
// CHECK-SAME: %[[X:.*]]: tensor<2x?xf32>)
func.func @fake_quantize(%x: tensor<2x?xf32>) {
  // CHECK-NEXT: nunc.fake_quantize %[[X]] {quantization = !quant.uniform<u8:f32, 2.500000e-01:128>} : tensor<2x?xf32> -> tensor<2x?xf32>
  %0 = nunc.fake_quantize %x {quantization = !quant.uniform<u8:f32, 0.25:128>} : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK-NEXT: nunc.fake_quantize %[[X]] {quantization = !quant.uniform<i16:f32, 1.000000e-03>} : tensor<2x?xf32> -> tensor<2x?xf32>
  %1 = nunc.fake_quantize %x {quantization = !quant.uniform<i16:f32, 0.001>} : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK-NEXT: return
  return
}

// The blob of the dense_resource constant survives printing.
// CHECK: dialect_resources
// CHECK: weights: "0x01000000010203"
{-#
  dialect_resources: {
    builtin: {
      weights: "0x01000000010203"
    }
  }
#-}
