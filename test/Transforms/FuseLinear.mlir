// RUN: nunc-opt %s -split-input-file --nunc-fuse-linear | FileCheck %s

// MatMul/Gemm with a constant weight, then a bias Add, a residual Add and an
// activation, each folded into one nunc.linear (activation(x W + b + r)) with
// W as [K, N]. The weight used throughout:
//   W = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]   ([K, N] = [3, 4])

// MatMul(x, W) + bias + Relu, as torch exports nn.Linear + ReLU at opset >= 9
// on a 3-D input: the bias Add and the Relu disappear into the linear op.

// CHECK-LABEL: func.func @matmul_bias_relu(
// CHECK-SAME: %[[X:.*]]: tensor<2x5x3xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], [9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[5.000000e-01, -5.000000e-01, 1.500000e+00, -1.500000e+00]> : tensor<4xf32>
// CHECK-NOT: nunc.{{(matmul|gemm|transpose|add|relu|gelu|sigmoid|tanh|clip)}}
// CHECK: %[[Y:.*]] = nunc.linear %[[X]], %[[W]] bias %[[B]] : tensor<4xf32> {activation = "relu"} : tensor<2x5x3xf32>, tensor<3x4xf32> -> tensor<2x5x4xf32>
// CHECK-NEXT: return %[[Y]] : tensor<2x5x4xf32>
func.func @matmul_bias_relu(%x: tensor<2x5x3xf32>) -> tensor<2x5x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %b = nunc.constant dense<[0.5, -0.5, 1.5, -1.5]> : tensor<4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x5x3xf32>, tensor<3x4xf32>) -> tensor<2x5x4xf32>
  %1 = nunc.add %0, %b : (tensor<2x5x4xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
  %2 = nunc.relu %1 : tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  return %2 : tensor<2x5x4xf32>
}

// -----

// LeakyRelu folds with its alpha.

// CHECK-LABEL: func.func @matmul_leaky_relu(
// CHECK: %[[Y:.*]] = nunc.linear %arg0, %{{.*}} {activation = "leaky_relu", activation_alpha = 3.000000e-01 : f32} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @matmul_leaky_relu(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<1.0> : tensor<3x4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.leaky_relu %0 {alpha = 0.3 : f32} : tensor<2x4xf32> -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// A plain MatMul with a constant weight, no bias, no activation.

// CHECK-LABEL: func.func @matmul_only(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[W:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], [9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK-NEXT: %[[Y:.*]] = nunc.linear %[[X]], %[[W]] : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @matmul_only(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// The bias Add with the bias first, and the bias as [1, N].

// CHECK-LABEL: func.func @bias_first(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], [9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[1.000000e+00, -1.000000e+00, 2.000000e+00, -2.000000e+00]> : tensor<4xf32>
// CHECK-NOT: nunc.{{(matmul|gemm|transpose|add|relu|gelu|sigmoid|tanh|clip)}}
// CHECK: %[[Y:.*]] = nunc.linear %[[X]], %[[W]] bias %[[B]] : tensor<4xf32> : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @bias_first(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %b = nunc.constant dense<[[1.0, -1.0, 2.0, -2.0]]> : tensor<1x4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.add %b, %0 : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// MatMul(x, Transpose(W^T)): the transpose is folded into the constant, so
// the weight is W again ([3, 4]); the Transpose is gone.

// CHECK-LABEL: func.func @transposed_weight(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[W:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], [9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK-NEXT: %[[Y:.*]] = nunc.linear %[[X]], %[[W]] : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @transposed_weight(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %wt = nunc.constant dense<[[1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0], [4.0, 8.0, 12.0]]> : tensor<4x3xf32>
  %w = nunc.transpose %wt {perm = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Gemm(x, W^T, C) with transB = 1, alpha = 2, beta = 0.5, C = [1, 2, 3, 4]
// (torch's nn.Linear at opset < 9 style, with scaled terms): the weight is
// alpha * W = 2 W as [K, N], the bias beta * C = [0.5, 1, 1.5, 2].

// CHECK-LABEL: func.func @gemm_transb_alpha_beta(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[}}[2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00], [1.000000e+01, 1.200000e+01, 1.400000e+01, 1.600000e+01], [1.800000e+01, 2.000000e+01, 2.200000e+01, 2.400000e+01]]> : tensor<3x4xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-NOT: nunc.{{(matmul|gemm|transpose|add|relu|gelu|sigmoid|tanh|clip)}}
// CHECK: %[[Y:.*]] = nunc.linear %[[X]], %[[W]] bias %[[B]] : tensor<4xf32> : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gemm_transb_alpha_beta(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %wt = nunc.constant dense<[[1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0], [4.0, 8.0, 12.0]]> : tensor<4x3xf32>
  %c = nunc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = nunc.gemm %x, %wt, %c : tensor<4xf32> {alpha = 2.0 : f32, beta = 0.5 : f32, transB = 1 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Gemm without transB, alpha = 0.5, and C as [1, N] with beta = 1.

// CHECK-LABEL: func.func @gemm_alpha_row_c(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[}}[5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00], [2.500000e+00, 3.000000e+00, 3.500000e+00, 4.000000e+00], [4.500000e+00, 5.000000e+00, 5.500000e+00, 6.000000e+00]]> : tensor<3x4xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[1.000000e+00, -1.000000e+00, 2.000000e+00, -2.000000e+00]> : tensor<4xf32>
// CHECK-NOT: nunc.{{(matmul|gemm|transpose|add|relu|gelu|sigmoid|tanh|clip)}}
// CHECK: %[[Y:.*]] = nunc.linear %[[X]], %[[W]] bias %[[B]] : tensor<4xf32> : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gemm_alpha_row_c(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %c = nunc.constant dense<[[1.0, -1.0, 2.0, -2.0]]> : tensor<1x4xf32>
  %0 = nunc.gemm %x, %w, %c : tensor<1x4xf32> {alpha = 0.5 : f32} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Gemm with a scalar C = 3 and beta = 2: the bias is 6 in every column.

// CHECK-LABEL: func.func @gemm_scalar_c(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<6.000000e+00> : tensor<4xf32>
// CHECK-NOT: nunc.{{(matmul|gemm|transpose|add|relu|gelu|sigmoid|tanh|clip)}}
// CHECK: %[[Y:.*]] = nunc.linear %[[X]], %{{.*}} bias %[[B]] : tensor<4xf32> : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gemm_scalar_c(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %c = nunc.constant dense<3.0> : tensor<f32>
  %0 = nunc.gemm %x, %w, %c : tensor<f32> {beta = 2.0 : f32} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Gemm with a full [M, N] C (beta = 1): C is a residual, not a bias. transB
// with a Transpose of W cancels out: the weight is W unchanged.

// CHECK-LABEL: func.func @gemm_full_c_residual(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[W:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], [9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK-NEXT: %[[Y:.*]] = nunc.linear %[[X]], %[[W]] residual %[[C]] : tensor<2x4xf32> : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nunc.
func.func @gemm_full_c_residual(%x: tensor<2x3xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %wt = nunc.transpose %w {perm = array<i64: 1, 0>} : tensor<3x4xf32> -> tensor<4x3xf32>
  %0 = nunc.gemm %x, %wt, %c : tensor<2x4xf32> {transB = 1 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// beta = 0 drops C entirely.

// CHECK-LABEL: func.func @gemm_beta_zero(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[W:.*]] = nunc.constant {{.*}} : tensor<3x4xf32>
// CHECK-NEXT: %[[Y:.*]] = nunc.linear %[[X]], %[[W]] : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gemm_beta_zero(%x: tensor<2x3xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %0 = nunc.gemm %x, %w, %c : tensor<2x4xf32> {beta = 0.0 : f32} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// transA: the linear op reads a transpose of A; alpha and C fold as without.

// CHECK-LABEL: func.func @gemm_transa(
// CHECK-SAME: %[[A:.*]]: tensor<3x2xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[}}[5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00], [2.500000e+00, 3.000000e+00, 3.500000e+00, 4.000000e+00], [4.500000e+00, 5.000000e+00, 5.500000e+00, 6.000000e+00]]> : tensor<3x4xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[1.000000e+00, -1.000000e+00, 2.000000e+00, -2.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[AT:.*]] = nunc.transpose %[[A]] {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
// CHECK-NOT: nunc.{{(matmul|gemm|add|mul)}}
// CHECK: %[[Y:.*]] = nunc.linear %[[AT]], %[[W]] bias %[[B]] : tensor<4xf32> : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gemm_transa(%a: tensor<3x2xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %c = nunc.constant dense<[1.0, -1.0, 2.0, -2.0]> : tensor<4xf32>
  %0 = nunc.gemm %a, %w, %c : tensor<4xf32> {alpha = 0.5 : f32, transA = 1 : i64} : tensor<3x2xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A C of one column ([M, 1]) is no bias vector and, broadcast, no residual:
// the Gemm becomes a linear op, then a Mul by beta and an Add of the
// column (not the generic kernel's scalar dot products).

// CHECK-LABEL: func.func @gemm_column_c(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<2x1xf32>)
// CHECK-DAG: %[[BETA:.*]] = nunc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[L:.*]] = nunc.linear %[[X]], %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-DAG: %[[SC:.*]] = nunc.mul %[[C]], %[[BETA]] : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
// CHECK: %[[Y:.*]] = nunc.add %[[L]], %[[SC]] : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nunc.gemm
func.func @gemm_column_c(%x: tensor<2x3xf32>, %c: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %0 = nunc.gemm %x, %w, %c : tensor<2x1xf32> {beta = 2.0 : f32} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// B computed at run time (transA and transB): transposes, a MatMul, a Mul
// by alpha; a full C with beta = 1 is then added.

// CHECK-LABEL: func.func @gemm_runtime_b(
// CHECK-SAME: %[[A:[^:]*]]: tensor<3x2xf32>, %[[B:[^:]*]]: tensor<4x3xf32>, %[[C:.*]]: tensor<2x4xf32>)
// CHECK-DAG: %[[AT:.*]] = nunc.transpose %[[A]] {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
// CHECK-DAG: %[[BT:.*]] = nunc.transpose %[[B]] {perm = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
// CHECK-DAG: %[[ALPHA:.*]] = nunc.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[P:.*]] = nunc.matmul %[[AT]], %[[BT]] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[S:.*]] = nunc.mul %[[P]], %[[ALPHA]] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK: %[[Y:.*]] = nunc.add %[[S]], %[[C]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nunc.gemm
func.func @gemm_runtime_b(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = nunc.gemm %a, %b, %c : tensor<2x4xf32> {alpha = 0.25 : f32, transA = 1 : i64, transB = 1 : i64} : tensor<3x2xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// MatMul(W, x) with a constant [N, K] W: the linear op of x^T and W^T, then
// its result transposed back (last two dims, over a batch dim here).

// CHECK-LABEL: func.func @constant_first_matmul(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x5xf32>)
// CHECK-DAG: %[[WT:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-DAG: %[[XT:.*]] = nunc.transpose %[[X]] {perm = array<i64: 0, 2, 1>} : tensor<2x3x5xf32> -> tensor<2x5x3xf32>
// CHECK: %[[L:.*]] = nunc.linear %[[XT]], %[[WT]] : tensor<2x5x3xf32>, tensor<3x2xf32> -> tensor<2x5x2xf32>
// CHECK: %[[Y:.*]] = nunc.transpose %[[L]] {perm = array<i64: 0, 2, 1>} : tensor<2x5x2xf32> -> tensor<2x2x5xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nunc.matmul
func.func @constant_first_matmul(%x: tensor<2x3x5xf32>) -> tensor<2x2x5xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = nunc.matmul %w, %x : (tensor<2x3xf32>, tensor<2x3x5xf32>) -> tensor<2x2x5xf32>
  return %0 : tensor<2x2x5xf32>
}

// -----

// MatMul + bias + residual (residual first in its Add) + GELU: one op with
// bias, residual and activation "gelu".

// CHECK-LABEL: func.func @bias_residual_gelu(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32>, %[[R:.*]]: tensor<2x4xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant {{.*}} : tensor<3x4xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[5.000000e-01, -5.000000e-01, 1.500000e+00, -1.500000e+00]> : tensor<4xf32>
// CHECK-NOT: nunc.{{(matmul|gemm|transpose|add|relu|gelu|sigmoid|tanh|clip)}}
// CHECK: %[[Y:.*]] = nunc.linear %[[X]], %[[W]] bias %[[B]] : tensor<4xf32> residual %[[R]] : tensor<2x4xf32> {activation = "gelu"} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @bias_residual_gelu(%x: tensor<2x3xf32>, %r: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %b = nunc.constant dense<[0.5, -0.5, 1.5, -1.5]> : tensor<4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.add %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = nunc.add %r, %1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = nunc.gelu %2 : tensor<2x4xf32> -> tensor<2x4xf32>
  return %3 : tensor<2x4xf32>
}

// -----

// Each activation: GELU tanh, Sigmoid, Tanh, Clip(0, 6) (ReLU6), Clip with
// only a min (max = FLT_MAX), Clip with only a max (min = -FLT_MAX).

// CHECK-LABEL: func.func @activations(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[W:.*]] = nunc.constant {{.*}} : tensor<3x4xf32>
// CHECK-NEXT: %[[A0:.*]] = nunc.linear %[[X]], %[[W]] {activation = "gelu_tanh"} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[A1:.*]] = nunc.linear %[[X]], %[[W]] {activation = "sigmoid"} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[A2:.*]] = nunc.linear %[[X]], %[[W]] {activation = "tanh"} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[A3:.*]] = nunc.linear %[[X]], %[[W]] {activation = "clip", activation_max = 6.000000e+00 : f32} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[A4:.*]] = nunc.linear %[[X]], %[[W]] {activation = "clip", activation_max = 0x7F800000 : f32, activation_min = -1.500000e+00 : f32} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[A5:.*]] = nunc.linear %[[X]], %[[W]] {activation = "clip", activation_max = 2.500000e+00 : f32, activation_min = 0xFF800000 : f32} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[A0]], %[[A1]], %[[A2]], %[[A3]], %[[A4]], %[[A5]]
func.func @activations(%x: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %zero = nunc.constant dense<0.0> : tensor<f32>
  %six = nunc.constant dense<6.0> : tensor<f32>
  %lo = nunc.constant dense<-1.5> : tensor<f32>
  %hi = nunc.constant dense<2.5> : tensor<1xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %a0 = nunc.gelu %0 {approximate = "tanh"} : tensor<2x4xf32> -> tensor<2x4xf32>
  %1 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %a1 = nunc.sigmoid %1 : tensor<2x4xf32> -> tensor<2x4xf32>
  %2 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %a2 = nunc.tanh %2 : tensor<2x4xf32> -> tensor<2x4xf32>
  %3 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %a3 = nunc.clip %3 min %zero : tensor<f32> max %six : tensor<f32> : tensor<2x4xf32> -> tensor<2x4xf32>
  %4 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %a4 = nunc.clip %4 min %lo : tensor<f32> : tensor<2x4xf32> -> tensor<2x4xf32>
  %5 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %a5 = nunc.clip %5 max %hi : tensor<1xf32> : tensor<2x4xf32> -> tensor<2x4xf32>
  return %a0, %a1, %a2, %a3, %a4, %a5 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A constant [M, N] added after the MatMul does not broadcast from [N]: it
// is a residual (a constant one), not a bias.

// CHECK-LABEL: func.func @constant_full_add(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[R:.*]] = nunc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]]> : tensor<2x4xf32>
// CHECK-NOT: nunc.{{(matmul|gemm|transpose|add|relu|gelu|sigmoid|tanh|clip)}}
// CHECK: %[[Y:.*]] = nunc.linear %[[X]], %{{.*}} residual %[[R]] : tensor<2x4xf32> : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @constant_full_add(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %r = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.add %0, %r : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// A [1, 1, N] constant added to a [M, N] result broadcasts the result up to
// [1, M, N]. Whatever the pass does with it, the function must still return
// a [1, M, N] tensor (a linear op's result is [M, N], so folding this Add as
// a bias may not replace it as is).

// CHECK-LABEL: func.func @bias_raises_rank(
// CHECK: return %{{.*}} : tensor<1x2x4xf32>
func.func @bias_raises_rank(%x: tensor<2x3xf32>) -> tensor<1x2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %b = nunc.constant dense<[[[0.5, -0.5, 1.5, -1.5]]]> : tensor<1x1x4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.add %0, %b : (tensor<2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  return %1 : tensor<1x2x4xf32>
}

// -----

// The declared result types are more precise than the operands give (as an
// importer writes them from value_info): x is [?, 3], the MatMul and Gemm
// results [2, 4]. Whatever the pass does, the function must keep returning
// [2, 4] tensors (a linear op inferred from x alone is [?, 4]).

// CHECK-LABEL: func.func @result_more_static(
// CHECK: return %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<2x4xf32>
func.func @result_more_static(%x: tensor<?x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %0 = nunc.matmul %x, %w : (tensor<?x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.gemm %x, %w : tensor<?x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Negative cases
//===----------------------------------------------------------------------===//

// A weight that is not a constant: nothing fuses.

// CHECK-LABEL: func.func @weight_not_constant(
// CHECK-NOT: nunc.linear
// CHECK: nunc.matmul
// CHECK-NEXT: nunc.add
// CHECK-NEXT: nunc.relu
func.func @weight_not_constant(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %b = nunc.constant dense<[0.5, -0.5, 1.5, -1.5]> : tensor<4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.add %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = nunc.relu %1 : tensor<2x4xf32> -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

// -----

// The activation comes before the residual Add: relu(x W) + r is not
// relu(x W + r). The Relu fuses, the Add must stay.

// CHECK-LABEL: func.func @activation_before_residual(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32>, %[[R:.*]]: tensor<2x4xf32>)
// CHECK: %[[L:.*]] = nunc.linear %[[X]], %{{.*}} {activation = "relu"} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[S:.*]] = nunc.add %[[L]], %[[R]]
// CHECK-NEXT: return %[[S]]
func.func @activation_before_residual(%x: tensor<2x3xf32>, %r: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.relu %0 : tensor<2x4xf32> -> tensor<2x4xf32>
  %2 = nunc.add %1, %r : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

// -----

// The activation comes before the bias Add: the Add stays.

// CHECK-LABEL: func.func @activation_before_bias(
// CHECK: %[[L:.*]] = nunc.linear %{{.*}}, %{{.*}} {activation = "tanh"} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[S:.*]] = nunc.add %[[L]], %{{.*}} : (tensor<2x4xf32>, tensor<4xf32>)
// CHECK-NEXT: return %[[S]]
func.func @activation_before_bias(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %b = nunc.constant dense<[0.5, -0.5, 1.5, -1.5]> : tensor<4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.tanh %0 : tensor<2x4xf32> -> tensor<2x4xf32>
  %2 = nunc.add %1, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

// -----

// The MatMul result has a second use: it becomes a linear op, but the bias
// Add is not folded into it.

// CHECK-LABEL: func.func @matmul_second_use(
// CHECK: %[[L:.*]] = nunc.linear %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[S:.*]] = nunc.add %[[L]], %{{.*}} : (tensor<2x4xf32>, tensor<4xf32>)
// CHECK-NEXT: return %[[S]], %[[L]]
func.func @matmul_second_use(%x: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %b = nunc.constant dense<[0.5, -0.5, 1.5, -1.5]> : tensor<4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.add %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %1, %0 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// The biased result has a second use: the Relu is not folded.

// CHECK-LABEL: func.func @biased_second_use(
// CHECK: %[[L:.*]] = nunc.linear %{{.*}}, %{{.*}} bias %{{.*}} : tensor<4xf32> : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[A:.*]] = nunc.relu %[[L]]
// CHECK-NEXT: return %[[A]], %[[L]]
func.func @biased_second_use(%x: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %b = nunc.constant dense<[0.5, -0.5, 1.5, -1.5]> : tensor<4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.add %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = nunc.relu %1 : tensor<2x4xf32> -> tensor<2x4xf32>
  return %2, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A run-time [N] vector is not a constant bias, nor a same-shaped residual.

// CHECK-LABEL: func.func @bias_not_constant(
// CHECK: %[[L:.*]] = nunc.linear %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[S:.*]] = nunc.add %[[L]], %{{.*}} : (tensor<2x4xf32>, tensor<4xf32>)
// CHECK-NEXT: return %[[S]]
func.func @bias_not_constant(%x: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.add %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// Clip with a run-time bound is not a constant-bound activation.

// CHECK-LABEL: func.func @clip_bound_not_constant(
// CHECK: %[[L:.*]] = nunc.linear %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[C:.*]] = nunc.clip %[[L]] min
// CHECK-NEXT: return %[[C]]
func.func @clip_bound_not_constant(%x: tensor<2x3xf32>, %lo: tensor<f32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %six = nunc.constant dense<6.0> : tensor<f32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.clip %0 min %lo : tensor<f32> max %six : tensor<f32> : tensor<2x4xf32> -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// A second activation after the first one stays.

// CHECK-LABEL: func.func @two_activations(
// CHECK: %[[L:.*]] = nunc.linear %{{.*}}, %{{.*}} {activation = "relu"}
// CHECK-NEXT: %[[S:.*]] = nunc.sigmoid %[[L]]
// CHECK-NEXT: return %[[S]]
func.func @two_activations(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %0 = nunc.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.relu %0 : tensor<2x4xf32> -> tensor<2x4xf32>
  %2 = nunc.sigmoid %1 : tensor<2x4xf32> -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

// -----

// Non-f32: an f16 MatMul with an f16 weight, and an f64 one, stay as they are.

// CHECK-LABEL: func.func @not_f32(
// CHECK-NOT: nunc.linear
// CHECK: nunc.matmul {{.*}} -> tensor<2x2xf16>
// CHECK: nunc.add
// CHECK: nunc.matmul {{.*}} -> tensor<2x2xf64>
// CHECK-NOT: nunc.linear
func.func @not_f32(%x: tensor<2x2xf16>, %y: tensor<2x2xf64>) -> (tensor<2x2xf16>, tensor<2x2xf64>) {
  %w = nunc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %b = nunc.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %v = nunc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %0 = nunc.matmul %x, %w : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
  %1 = nunc.add %0, %b : (tensor<2x2xf16>, tensor<2xf16>) -> tensor<2x2xf16>
  %2 = nunc.matmul %y, %v : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  return %1, %2 : tensor<2x2xf16>, tensor<2x2xf64>
}

// -----

// A full C scaled by beta = 2: beta C (a Mul) becomes the residual.

// CHECK-LABEL: func.func @gemm_full_c_beta(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<2x4xf32>)
// CHECK-DAG: %[[BETA:.*]] = nunc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[SC:.*]] = nunc.mul %[[C]], %[[BETA]] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK: %[[Y:.*]] = nunc.linear %[[X]], %{{.*}} residual %[[SC]] : tensor<2x4xf32> : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nunc.gemm
func.func @gemm_full_c_beta(%x: tensor<2x3xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %0 = nunc.gemm %x, %w, %c : tensor<2x4xf32> {beta = 2.0 : f32} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// onnxruntime's quantize_dynamic MatMul: DynamicQuantizeLinear, MatMulInteger
// with a constant s8 weight of zero point 0, Cast, Mul by the scale product;
// then its bias Add and a Relu. One quantized_linear with the weight's scale
// in its type and per-tensor dynamic activations.

// CHECK-LABEL: func.func @quantize_dynamic_matmul(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[W:.*]] = nunc.constant dense<{{\[}}[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
// CHECK: %[[Q:.*]] = quant.scast %[[W]] : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK: %[[Y:.*]] = nunc.quantized_linear %[[X]], %[[Q]] bias %{{.*}} : tensor<2xf32> {activation = "relu", activation_quantization = "dynamic_per_tensor"}
// CHECK-NOT: nunc.matmul_integer
// CHECK-NOT: nunc.dynamic_quantize_linear
// CHECK: return %[[Y]]
func.func @quantize_dynamic_matmul(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %wzp = nunc.constant dense<0> : tensor<i8>
  %ws = nunc.constant dense<0.25> : tensor<f32>
  %b = nunc.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<2x3xf32> -> tensor<2x3xui8>, tensor<f32>, tensor<ui8>
  %scale = nunc.mul %s, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %acc = nunc.matmul_integer %q, %w a_zero_point %zp : tensor<ui8> b_zero_point %wzp : tensor<i8> : tensor<2x3xui8>, tensor<3x2xi8> -> tensor<2x2xi32>
  %f = nunc.cast %acc {to = f32} : tensor<2x2xi32> -> tensor<2x2xf32>
  %m = nunc.mul %f, %scale : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %a = nunc.add %b, %m : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = nunc.relu %a : tensor<2x2xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Per-column weight scales give a per-axis type.

// CHECK-LABEL: func.func @quantize_dynamic_per_channel(
// CHECK: quant.scast %{{.*}} : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32:1, {2.500000e-01,5.000000e-01}>>
// CHECK: nunc.quantized_linear
func.func @quantize_dynamic_per_channel(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %wzp = nunc.constant dense<0> : tensor<2xi8>
  %ws = nunc.constant dense<[0.25, 0.5]> : tensor<2xf32>
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<2x3xf32> -> tensor<2x3xui8>, tensor<f32>, tensor<ui8>
  %scale = nunc.mul %s, %ws : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %acc = nunc.matmul_integer %q, %w a_zero_point %zp : tensor<ui8> b_zero_point %wzp : tensor<2xi8> : tensor<2x3xui8>, tensor<3x2xi8> -> tensor<2x2xi32>
  %f = nunc.cast %acc {to = f32} : tensor<2x2xi32> -> tensor<2x2xf32>
  %y = nunc.mul %f, %scale : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A weight zero point other than 0 (asymmetric weights) is not what the VNNI
// kernel computes: the product becomes a MatMul of the dequantized
// activations and weights (the weight's DequantizeLinear folds after
// fusion, the MatMul then an f32 linear), not generic integer loops.

// CHECK-LABEL: func.func @quantize_dynamic_asymmetric_weight(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[W:.*]] = nunc.constant dense<{{\[}}[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
// CHECK: %[[WZ:.*]] = nunc.constant dense<3> : tensor<i8>
// CHECK: %[[WS:.*]] = nunc.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NOT: dynamic_quantize_linear
// CHECK-DAG: %[[DX:.*]] = nunc.dynamic_fake_quantize %[[X]] : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-DAG: %[[DW:.*]] = nunc.dequantize_linear %[[W]], %[[WS]], %[[WZ]] : tensor<i8> : tensor<3x2xi8>, tensor<f32> -> tensor<3x2xf32>
// CHECK: %[[Y:.*]] = nunc.matmul %[[DX]], %[[DW]]
// CHECK-NOT: matmul_integer
// CHECK: return %[[Y]]
func.func @quantize_dynamic_asymmetric_weight(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %wzp = nunc.constant dense<3> : tensor<i8>
  %ws = nunc.constant dense<0.25> : tensor<f32>
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<2x3xf32> -> tensor<2x3xui8>, tensor<f32>, tensor<ui8>
  %scale = nunc.mul %s, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %acc = nunc.matmul_integer %q, %w a_zero_point %zp : tensor<ui8> b_zero_point %wzp : tensor<i8> : tensor<2x3xui8>, tensor<3x2xi8> -> tensor<2x2xi32>
  %f = nunc.cast %acc {to = f32} : tensor<2x2xi32> -> tensor<2x2xf32>
  %y = nunc.mul %f, %scale : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// u8 weights (quantize_dynamic with weight_type QUInt8), zero points and
// scales per column: the same, DequantizeLinear along the columns.

// CHECK-LABEL: func.func @quantize_dynamic_u8_weight(
// CHECK: %[[DW:.*]] = nunc.dequantize_linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<2xui8> : tensor<3x2xui8>, tensor<2xf32> -> tensor<3x2xf32>
// CHECK: nunc.matmul %{{.*}}, %[[DW]]
// CHECK-NOT: matmul_integer
func.func @quantize_dynamic_u8_weight(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = nunc.constant dense<[[1, 200], [30, 4], [255, 0]]> : tensor<3x2xui8>
  %wzp = nunc.constant dense<[120, 131]> : tensor<2xui8>
  %ws = nunc.constant dense<[0.25, 0.5]> : tensor<2xf32>
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<2x3xf32> -> tensor<2x3xui8>, tensor<f32>, tensor<ui8>
  %scale = nunc.mul %s, %ws : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %acc = nunc.matmul_integer %q, %w a_zero_point %zp : tensor<ui8> b_zero_point %wzp : tensor<2xui8> : tensor<2x3xui8>, tensor<3x2xui8> -> tensor<2x2xi32>
  %f = nunc.cast %acc {to = f32} : tensor<2x2xi32> -> tensor<2x2xf32>
  %y = nunc.mul %f, %scale : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A QDQ MatMul (onnxruntime quantize_static, QDQ format): Q/DQ of the u8
// activation with one scale and zero point, DQ of a constant s8 weight with
// zero point 0 -> quantized_linear with the activation's quantization as a
// static !quant.uniform type. An s8 activation becomes u8 with the zero
// point 128 higher.

// CHECK-LABEL: func.func @qdq_matmul(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3xf32>)
// CHECK: %[[W:.*]] = quant.scast %{{.*}} : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK: nunc.quantized_linear %[[X]], %[[W]] {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 1.250000e-01:10>}
// CHECK: nunc.quantized_linear %[[Y]], %{{.*}} {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 1.250000e-01:125>}
// CHECK-NOT: nunc.matmul
func.func @qdq_matmul(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %wzp = nunc.constant dense<0> : tensor<i8>
  %ws = nunc.constant dense<0.25> : tensor<f32>
  %s = nunc.constant dense<0.125> : tensor<f32>
  %zp = nunc.constant dense<10> : tensor<ui8>
  %zps = nunc.constant dense<-3> : tensor<i8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xui8>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<2x3xui8>, tensor<f32> -> tensor<2x3xf32>
  %dw = nunc.dequantize_linear %w, %ws, %wzp : tensor<i8> : tensor<3x2xi8>, tensor<f32> -> tensor<3x2xf32>
  %m = nunc.matmul %dq, %dw : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %qs = nunc.quantize_linear %y, %s, %zps : tensor<i8> {output_element_type = i8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi8>
  %dqs = nunc.dequantize_linear %qs, %s, %zps : tensor<i8> : tensor<2x3xi8>, tensor<f32> -> tensor<2x3xf32>
  %m2 = nunc.matmul %dqs, %dw : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %m, %m2 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A QDQ Gemm (a classifier's Linear as PyTorch exports it: transB, an s8
// weight [N, K] with one scale per row, an f32 bias C) -> quantized_linear
// with the weight transposed to [K, N] at compile time, its scales per
// column, and C (times beta) as the bias. Without transB the weight stays
// as it is. alpha != 1 has no int8 form here: that Gemm stays.
// CHECK-LABEL: func.func @qdq_gemm(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[WT:.*]] = nunc.constant dense<{{\[}}[1, -5], [-2, 6], [3, 7]]> : tensor<3x2xi8>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[B2:.*]] = nunc.constant dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK: %[[W:.*]] = quant.scast %[[WT]] : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32:1, {2.500000e-01,5.000000e-01}>>
// CHECK: nunc.quantized_linear %[[X]], %[[W]] bias %[[B]] : tensor<2xf32> {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 1.250000e-01:10>}
// CHECK: %[[W2:.*]] = quant.scast %{{.*}} : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK: nunc.quantized_linear %[[X]], %[[W2]] bias %[[B2]] : tensor<2xf32> {activation_quantization = "static"
// CHECK: nunc.gemm
// CHECK-NOT: nunc.gemm
// CHECK-LABEL: func.func @qdq_gemm_refused(
// CHECK-NOT: quantized_linear
// CHECK-NOT: tensor<3x2xi8>
// CHECK: nunc.gemm
func.func @qdq_gemm(%x: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %w = nunc.constant dense<[[1, -2, 3], [-5, 6, 7]]> : tensor<2x3xi8>
  %ws = nunc.constant dense<[0.25, 0.5]> : tensor<2xf32>
  %wzp = nunc.constant dense<0> : tensor<2xi8>
  %wkn = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %wsk = nunc.constant dense<0.25> : tensor<f32>
  %b = nunc.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %s = nunc.constant dense<0.125> : tensor<f32>
  %zp = nunc.constant dense<10> : tensor<ui8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xui8>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<2x3xui8>, tensor<f32> -> tensor<2x3xf32>
  %dw = nunc.dequantize_linear %w, %ws, %wzp : tensor<2xi8> {axis = 0 : i64} : tensor<2x3xi8>, tensor<2xf32> -> tensor<2x3xf32>
  %y = nunc.gemm %dq, %dw, %b : tensor<2xf32> {transB = 1 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
  %dwkn = nunc.dequantize_linear %wkn, %wsk : tensor<3x2xi8>, tensor<f32> -> tensor<3x2xf32>
  %z = nunc.gemm %dq, %dwkn, %b : tensor<2xf32> {beta = 5.000000e-01 : f32} : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %u = nunc.gemm %dq, %dwkn, %b : tensor<2xf32> {alpha = 2.000000e+00 : f32} : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  return %y, %z, %u : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// A transB QDQ Gemm whose weight has a nonzero zero point has no int8 form:
// it stays a Gemm, with no transposed copy of its weight left behind, and
// the pass succeeds.
func.func @qdq_gemm_refused(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = nunc.constant dense<[[1, -2, 3], [-5, 6, 7]]> : tensor<2x3xi8>
  %ws = nunc.constant dense<[0.25, 0.5]> : tensor<2xf32>
  %wzp = nunc.constant dense<[0, 3]> : tensor<2xi8>
  %b = nunc.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %s = nunc.constant dense<0.125> : tensor<f32>
  %zp = nunc.constant dense<10> : tensor<ui8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xui8>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<2x3xui8>, tensor<f32> -> tensor<2x3xf32>
  %dw = nunc.dequantize_linear %w, %ws, %wzp : tensor<2xi8> {axis = 0 : i64} : tensor<2x3xi8>, tensor<2xf32> -> tensor<2x3xf32>
  %y = nunc.gemm %dq, %dw, %b : tensor<2xf32> {transB = 1 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A QDQ MatMul whose weight is dequantized per row (axis 0: one scale per k,
// not per output column) has no int8 form: it stays a MatMul, and the pass
// succeeds.
// CHECK-LABEL: func.func @qdq_matmul_rows_axis(
// CHECK: nunc.matmul
// CHECK-NOT: quantized_linear
func.func @qdq_matmul_rows_axis(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %ws = nunc.constant dense<[0.25, 0.5, 0.125]> : tensor<3xf32>
  %s = nunc.constant dense<0.125> : tensor<f32>
  %zp = nunc.constant dense<10> : tensor<ui8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xui8>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<2x3xui8>, tensor<f32> -> tensor<2x3xf32>
  %dw = nunc.dequantize_linear %w, %ws {axis = 0 : i64} : tensor<3x2xi8>, tensor<3xf32> -> tensor<3x2xf32>
  %m = nunc.matmul %dq, %dw : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

// -----

// ONNX QLinearMatMul with a constant s8 weight (zero point 0, one scale per
// column) and a u8 input that is itself QuantizeLinear(x) on the same grid:
// the GEMM quantizes x directly (the DQ(Q(x)) round trip drops), and the
// result is quantized to y's grid by a QuantizeLinear. A weight with a
// nonzero zero point stays a QLinearMatMul.

// CHECK-LABEL: func.func @qlinear_matmul(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>, %[[A:.*]]: tensor<2x3xui8>)
// CHECK: %[[W:.*]] = quant.scast %{{.*}} : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32:1, {2.500000e-01,5.000000e-01}>>
// CHECK: %[[L:.*]] = nunc.quantized_linear %[[X]], %[[W]] {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 1.250000e-01:10>}
// CHECK: nunc.quantize_linear %[[L]], %{{.*}}, %{{.*}} : tensor<ui8> {output_element_type = ui8}
// CHECK: nunc.qlinear_matmul %[[A]]
func.func @qlinear_matmul(%x: tensor<2x3xf32>, %a: tensor<2x3xui8>) -> (tensor<2x2xui8>, tensor<2x2xui8>) {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %wzp = nunc.constant dense<0> : tensor<2xi8>
  %wzp1 = nunc.constant dense<1> : tensor<2xi8>
  %ws = nunc.constant dense<[0.25, 0.5]> : tensor<2xf32>
  %s = nunc.constant dense<0.125> : tensor<f32>
  %zp = nunc.constant dense<10> : tensor<ui8>
  %ys = nunc.constant dense<0.0625> : tensor<f32>
  %yzp = nunc.constant dense<7> : tensor<ui8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xui8>
  %y = nunc.qlinear_matmul %q, %s, %zp, %w, %ws, %wzp, %ys, %yzp : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x2xi8>, tensor<2xf32>, tensor<2xi8>, tensor<f32>, tensor<ui8>) -> tensor<2x2xui8>
  %z = nunc.qlinear_matmul %a, %s, %zp, %w, %ws, %wzp1, %ys, %yzp : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x2xi8>, tensor<2xf32>, tensor<2xi8>, tensor<f32>, tensor<ui8>) -> tensor<2x2xui8>
  return %y, %z : tensor<2x2xui8>, tensor<2x2xui8>
}

// -----

// A QDQ model's GELU after a quantized_linear's output grid: its grids and
// the grids of its constants' codes (one_quantization, half_quantization)
// go with it into the epilogue (gelu_one / gelu_half_quantization).
// CHECK-LABEL: func.func @gelu_constants_codes(
// CHECK: nunc.quantized_linear %{{.*}} {activation = "gelu", activation_input_quantization = !quant.uniform<u8:f32, 5.000000e-01:3>, gelu_erf_quantization = !quant.uniform<u8:f32, 7.812500e-03:128>, gelu_half_quantization = !quant.uniform<u8:f32, 0.0019{{[0-9]*}}>, gelu_one_quantization = !quant.uniform<u8:f32, 0.0039{{[0-9]*}}>, gelu_product_quantization = !quant.uniform<u8:f32, 6.250000e-02:20>, gelu_sum_quantization = !quant.uniform<u8:f32, 7.812500e-03>} :
// CHECK-NOT: nunc.gelu
func.func @gelu_constants_codes(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2xf32> {
  %0 = nunc.quantized_linear %x, %w {output_quantization = !quant.uniform<u8:f32, 0.5:3>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  %1 = nunc.gelu %0 {erf_quantization = !quant.uniform<u8:f32, 0.0078125:128>, half_quantization = !quant.uniform<u8:f32, 0.0019607844>, one_quantization = !quant.uniform<u8:f32, 0.0039215689>, product_quantization = !quant.uniform<u8:f32, 0.0625:20>, sum_quantization = !quant.uniform<u8:f32, 0.0078125>} : tensor<2x2xf32> -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// A GELU with a QDQ model's grids stays after an f32 linear (its epilogue
// has no grids); a Relu after a quantized_linear's output grid folds in
// after that grid.
// CHECK-LABEL: func.func @activation_after_the_output_grid(
// CHECK: nunc.linear
// CHECK-NEXT: nunc.gelu {{.*}}erf_quantization
// CHECK-NEXT: nunc.quantized_linear %{{.*}} {activation = "relu", activation_input_quantization = !quant.uniform<u8:f32, 5.000000e-01:3>} :
// CHECK-NOT: nunc.relu
func.func @activation_after_the_output_grid(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> (tensor<2x4xf32>, tensor<2x2xf32>) {
  %c = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %0 = nunc.matmul %x, %c : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = nunc.gelu %0 {erf_quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<2x4xf32> -> tensor<2x4xf32>
  %2 = nunc.quantized_linear %x, %w {output_quantization = !quant.uniform<u8:f32, 0.5:3>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.5>> -> tensor<2x2xf32>
  %3 = nunc.relu %2 : tensor<2x2xf32> -> tensor<2x2xf32>
  return %1, %3 : tensor<2x4xf32>, tensor<2x2xf32>
}

// -----

// A QDQ model's bias (its codes' grid from constant folding,
// nunc.lhs_codes_grid / rhs_codes_grid on the Add): the quantized_linear's bias_codes_quantization, and
// bias_first where it was the Add's first operand (onnxruntime's
// QLinearAdd rounds in that order); a residual from an Add's first
// operand: residual_first.
// CHECK-LABEL: func.func @bias_codes_grid(
// CHECK: nunc.quantized_linear %{{.*}}, %{{.*}} bias %{{.*}} : tensor<2xf32> residual %{{.*}} : tensor<2x2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 5.000000e-01:10>, bias_first, input_quantization = !quant.uniform<u8:f32, 1.250000e-01:10>, residual_first}
// CHECK: nunc.quantized_linear %{{.*}}, %{{.*}} bias %{{.*}} : tensor<2xf32> residual %{{.*}} : tensor<2x2xf32> {activation_quantization = "static", bias_codes_quantization = !quant.uniform<u8:f32, 5.000000e-01:10>, input_quantization = !quant.uniform<u8:f32, 1.250000e-01:10>}
func.func @bias_codes_grid(%x: tensor<2x3xf32>, %r: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %w = nunc.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %qw = quant.scast %w : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01>>
  %b = nunc.constant dense<[-5.0, 1.0]> : tensor<2xf32>
  %l = nunc.quantized_linear %x, %qw {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 1.250000e-01:10>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01>> -> tensor<2x2xf32>
  %y = nunc.add %b, %l {nunc.lhs_codes_grid = !quant.uniform<u8:f32, 0.5:10>} : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %z = nunc.add %r, %y : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %l2 = nunc.quantized_linear %x, %qw {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 1.250000e-01:10>} : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01>> -> tensor<2x2xf32>
  %y2 = nunc.add %l2, %b {nunc.rhs_codes_grid = !quant.uniform<u8:f32, 0.5:10>} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %z2 = nunc.add %y2, %r : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %z, %z2 : tensor<2x2xf32>, tensor<2x2xf32>
}
