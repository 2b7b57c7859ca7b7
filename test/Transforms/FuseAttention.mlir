// RUN: nunc-opt %s -split-input-file --nunc-fuse-attention | FileCheck %s

// Multi-head attention as torch exports it: Q, K, V each Reshape [B,S,E] ->
// [B,S,H,D] and Transpose to heads (K straight to K^T), MatMul, scaling,
// an optional additive mask, Softmax over the last axis, MatMul with V,
// Transpose [0,2,1,3] and Reshape back to [B,S,E]. It becomes one
// nunc.attention on the unsplit Q, K, V with num_heads = H and the scale as a
// multiplier; every op of the subgraph (and its shape constants) is gone.

// Div by 2 (sqrt of head dim 4) -> scale 0.5; a [B,1,1,T] padding mask;
// K^T as one Transpose [0,2,3,1]; key length 5 differs from query length 4.

// CHECK-LABEL: func.func @div_mask(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x8xf32>, %[[K:[^:]*]]: tensor<1x5x8xf32>, %[[V:[^:]*]]: tensor<1x5x8xf32>, %[[M:.*]]: tensor<1x1x1x5xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<1x1x1x5xf32> {num_heads = 2 : i64, scale = 5.000000e-01 : f32, scale_divisor = 2.000000e+00 : f32} : tensor<1x4x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32> -> tensor<1x4x8xf32>
// CHECK-NEXT: return %[[A]] : tensor<1x4x8xf32>
// CHECK-NOT: nunc.
func.func @div_mask(%q: tensor<1x4x8xf32>, %k: tensor<1x5x8xf32>, %v: tensor<1x5x8xf32>, %mask: tensor<1x1x1x5xf32>) -> tensor<1x4x8xf32> {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %c = nunc.constant dense<2.0> : tensor<f32>
  %scaled = nunc.div %scores, %c : (tensor<1x2x4x5xf32>, tensor<f32>) -> tensor<1x2x4x5xf32>
  %logits = nunc.add %scaled, %mask : (tensor<1x2x4x5xf32>, tensor<1x1x1x5xf32>) -> tensor<1x2x4x5xf32>
  %probs = nunc.softmax %logits : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x4x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  return %out : tensor<1x4x8xf32>
}

// -----

// Scaling by Mul (constant first), no mask, K^T written as two transposes
// ([0,2,1,3] to heads, then [0,1,3,2]); batch 2, 4 heads of 2.

// CHECK-LABEL: func.func @mul_two_transposes(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x3x8xf32>, %[[K:[^:]*]]: tensor<2x3x8xf32>, %[[V:[^:]*]]: tensor<2x3x8xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] {num_heads = 4 : i64, scale = 2.500000e-01 : f32} : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<2x3x8xf32>
// CHECK-NEXT: return %[[A]] : tensor<2x3x8xf32>
// CHECK-NOT: nunc.
func.func @mul_two_transposes(%q: tensor<2x3x8xf32>, %k: tensor<2x3x8xf32>, %v: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %sq = nunc.constant dense<[2, 3, 4, 2]> : tensor<4xi64>
  %sk = nunc.constant dense<[2, 3, 4, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[2, 3, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<2x3x8xf32>, tensor<4xi64>) -> tensor<2x3x4x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x2xf32> -> tensor<2x4x3x2xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<2x3x8xf32>, tensor<4xi64>) -> tensor<2x3x4x2xf32>
  %kh = nunc.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x2xf32> -> tensor<2x4x3x2xf32>
  %kt = nunc.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x3x2xf32> -> tensor<2x4x2x3xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<2x3x8xf32>, tensor<4xi64>) -> tensor<2x3x4x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x2xf32> -> tensor<2x4x3x2xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<2x4x3x2xf32>, tensor<2x4x2x3xf32>) -> tensor<2x4x3x3xf32>
  %c = nunc.constant dense<0.25> : tensor<f32>
  %scaled = nunc.mul %c, %scores : (tensor<f32>, tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  %probs = nunc.softmax %scaled : tensor<2x4x3x3xf32> -> tensor<2x4x3x3xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<2x4x3x3xf32>, tensor<2x4x3x2xf32>) -> tensor<2x4x3x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x3x2xf32> -> tensor<2x3x4x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<2x3x4x2xf32>, tensor<3xi64>) -> tensor<2x3x8xf32>
  return %out : tensor<2x3x8xf32>
}

// -----

// Two attentions of one key and value (ai.onnx Attention nodes after CSE):
// the head splits and K^T's second transpose are shared, and each
// attention still fuses, reading the sources.

// CHECK-LABEL: func.func @shared_key_transposes(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x3x8xf32>, %[[Q2:[^:]*]]: tensor<1x3x8xf32>, %[[K:[^:]*]]: tensor<1x3x8xf32>, %[[V:[^:]*]]: tensor<1x3x8xf32>)
// CHECK-DAG: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] {num_heads = 4 : i64, scale = 2.500000e-01 : f32}
// CHECK-DAG: %[[B:.*]] = nunc.attention %[[Q2]], %[[K]], %[[V]] {num_heads = 4 : i64, scale = 2.500000e-01 : f32}
// CHECK: return %[[A]], %[[B]]
// CHECK-NOT: nunc.matmul
func.func @shared_key_transposes(%q: tensor<1x3x8xf32>, %q2: tensor<1x3x8xf32>, %k: tensor<1x3x8xf32>, %v: tensor<1x3x8xf32>) -> (tensor<1x3x8xf32>, tensor<1x3x8xf32>) {
  %s = nunc.constant dense<[1, 3, 4, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 3, 8]> : tensor<3xi64>
  %c = nunc.constant dense<0.25> : tensor<f32>
  %k4 = nunc.reshape %k, %s : (tensor<1x3x8xf32>, tensor<4xi64>) -> tensor<1x3x4x2xf32>
  %kh = nunc.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x2xf32> -> tensor<1x4x3x2xf32>
  %kt = nunc.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x3x2xf32> -> tensor<1x4x2x3xf32>
  %v4 = nunc.reshape %v, %s : (tensor<1x3x8xf32>, tensor<4xi64>) -> tensor<1x3x4x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x2xf32> -> tensor<1x4x3x2xf32>
  %q4 = nunc.reshape %q, %s : (tensor<1x3x8xf32>, tensor<4xi64>) -> tensor<1x3x4x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x2xf32> -> tensor<1x4x3x2xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x4x3x2xf32>, tensor<1x4x2x3xf32>) -> tensor<1x4x3x3xf32>
  %scaled = nunc.mul %scores, %c : (tensor<1x4x3x3xf32>, tensor<f32>) -> tensor<1x4x3x3xf32>
  %probs = nunc.softmax %scaled : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x4x3x3xf32>, tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x3x2xf32> -> tensor<1x3x4x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x3x4x2xf32>, tensor<3xi64>) -> tensor<1x3x8xf32>
  %q24 = nunc.reshape %q2, %s : (tensor<1x3x8xf32>, tensor<4xi64>) -> tensor<1x3x4x2xf32>
  %q2h = nunc.transpose %q24 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x2xf32> -> tensor<1x4x3x2xf32>
  %scores2 = nunc.matmul %q2h, %kt : (tensor<1x4x3x2xf32>, tensor<1x4x2x3xf32>) -> tensor<1x4x3x3xf32>
  %scaled2 = nunc.mul %scores2, %c : (tensor<1x4x3x3xf32>, tensor<f32>) -> tensor<1x4x3x3xf32>
  %probs2 = nunc.softmax %scaled2 : tensor<1x4x3x3xf32> -> tensor<1x4x3x3xf32>
  %ctx2 = nunc.matmul %probs2, %vh : (tensor<1x4x3x3xf32>, tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  %ctx2t = nunc.transpose %ctx2 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x3x2xf32> -> tensor<1x3x4x2xf32>
  %out2 = nunc.reshape %ctx2t, %so : (tensor<1x3x4x2xf32>, tensor<3xi64>) -> tensor<1x3x8xf32>
  return %out, %out2 : tensor<1x3x8xf32>, tensor<1x3x8xf32>
}

// -----

// Div by sqrt(8) = 2.828427 (head dim 8): the scale is the f32 nearest to
// 1/2.828427 = 0.35355338, and scale_divisor keeps the divisor (x / c and
// x * (1 / c) round apart; onnxruntime divides). The mask is [B,1,S,T] and
// comes first in the Add.

// CHECK-LABEL: func.func @div_sqrt8_mask_first(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x16xf32>, %[[K:[^:]*]]: tensor<1x4x16xf32>, %[[V:[^:]*]]: tensor<1x4x16xf32>, %[[M:.*]]: tensor<1x1x4x4xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<1x1x4x4xf32> {num_heads = 2 : i64, scale = 0.353553385 : f32, scale_divisor = 2.82842708 : f32} : tensor<1x4x16xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32> -> tensor<1x4x16xf32>
// CHECK-NEXT: return %[[A]]
// CHECK-NOT: nunc.
func.func @div_sqrt8_mask_first(%q: tensor<1x4x16xf32>, %k: tensor<1x4x16xf32>, %v: tensor<1x4x16xf32>, %mask: tensor<1x1x4x4xf32>) -> tensor<1x4x16xf32> {
  %sq = nunc.constant dense<[1, 4, 2, 8]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 4, 2, 8]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 16]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x16xf32>, tensor<4xi64>) -> tensor<1x4x2x8xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x8xf32> -> tensor<1x2x4x8xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x4x16xf32>, tensor<4xi64>) -> tensor<1x4x2x8xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x4x2x8xf32> -> tensor<1x2x8x4xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x4x16xf32>, tensor<4xi64>) -> tensor<1x4x2x8xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x8xf32> -> tensor<1x2x4x8xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %c = nunc.constant dense<2.82842708> : tensor<f32>
  %scaled = nunc.div %scores, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %logits = nunc.add %mask, %scaled : (tensor<1x1x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %probs = nunc.softmax %logits : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x8xf32> -> tensor<1x4x2x8xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x4x2x8xf32>, tensor<3xi64>) -> tensor<1x4x16xf32>
  return %out : tensor<1x4x16xf32>
}

// -----

// No scaling at all (scale 1), Softmax with axis = 3 (the last of 4), and a
// rank-1 [T] mask.

// CHECK-LABEL: func.func @no_scale_axis3(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x4xf32>, %[[K:[^:]*]]: tensor<1x3x4xf32>, %[[V:[^:]*]]: tensor<1x3x4xf32>, %[[M:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<3xf32> {num_heads = 2 : i64, scale = 1.000000e+00 : f32} : tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32> -> tensor<1x2x4xf32>
// CHECK-NEXT: return %[[A]]
// CHECK-NOT: nunc.
func.func @no_scale_axis3(%q: tensor<1x2x4xf32>, %k: tensor<1x3x4xf32>, %v: tensor<1x3x4xf32>, %mask: tensor<3xf32>) -> tensor<1x2x4xf32> {
  %sq = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 3, 2, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 4]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x3x4xf32>, tensor<4xi64>) -> tensor<1x3x2x2xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x2x2xf32> -> tensor<1x2x2x3xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x3x4xf32>, tensor<4xi64>) -> tensor<1x3x2x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x2x2xf32> -> tensor<1x2x3x2xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x2x2xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  %logits = nunc.add %scores, %mask : (tensor<1x2x2x3xf32>, tensor<3xf32>) -> tensor<1x2x2x3xf32>
  %probs = nunc.softmax %logits {axis = 3 : i64} : tensor<1x2x2x3xf32> -> tensor<1x2x2x3xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x2x3xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x2x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x2x2xf32>, tensor<3xi64>) -> tensor<1x2x4xf32>
  return %out : tensor<1x2x4xf32>
}

// -----

// One head; Mul with the constant on the right.

// CHECK-LABEL: func.func @mul_rhs(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x4xf32>, %[[K:[^:]*]]: tensor<1x2x4xf32>, %[[V:[^:]*]]: tensor<1x2x4xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] {num_heads = 1 : i64, scale = 5.000000e-01 : f32} : tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32> -> tensor<1x2x4xf32>
// CHECK-NEXT: return %[[A]]
// CHECK-NOT: nunc.
func.func @mul_rhs(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %v: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %sq = nunc.constant dense<[1, 2, 1, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 2, 1, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 4]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x1x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x1x4xf32> -> tensor<1x1x2x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x1x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x1x4xf32> -> tensor<1x1x4x2xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x1x4xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x1x4xf32> -> tensor<1x1x2x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %c = nunc.constant dense<0.5> : tensor<f32>
  %scaled = nunc.mul %scores, %c : (tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  %probs = nunc.softmax %scaled : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x4xf32> -> tensor<1x2x1x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x1x4xf32>, tensor<3xi64>) -> tensor<1x2x4xf32>
  return %out : tensor<1x2x4xf32>
}

// -----

// BERT's extended mask (1 - m) * -10000 is itself a Mul; here it is the
// first operand of the Add. It is the mask, not the scaled scores.

// CHECK-LABEL: func.func @computed_mask_first(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x8xf32>, %[[K:[^:]*]]: tensor<1x5x8xf32>, %[[V:[^:]*]]: tensor<1x5x8xf32>, %{{[^:]*}}: tensor<1x1x1x5xf32>, %[[MM:.*]]: tensor<1x1x1x5xf32>)
// CHECK: %[[SUB:.*]] = nunc.sub %{{.*}}, %[[MM]]
// CHECK-NEXT: %[[EXT:.*]] = nunc.mul %[[SUB]], %{{.*}}
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] mask %[[EXT]] : tensor<1x1x1x5xf32> {num_heads = 2 : i64, scale = 5.000000e-01 : f32, scale_divisor = 2.000000e+00 : f32} : tensor<1x4x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32> -> tensor<1x4x8xf32>
// CHECK-NEXT: return %[[A]]
// CHECK-NOT: nunc.
func.func @computed_mask_first(%q: tensor<1x4x8xf32>, %k: tensor<1x5x8xf32>, %v: tensor<1x5x8xf32>, %mask: tensor<1x1x1x5xf32>, %m: tensor<1x1x1x5xf32>) -> tensor<1x4x8xf32> {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 8]> : tensor<3xi64>
  %one = nunc.constant dense<1.0> : tensor<f32>
  %big = nunc.constant dense<-10000.0> : tensor<f32>
  %inv = nunc.sub %one, %m : (tensor<f32>, tensor<1x1x1x5xf32>) -> tensor<1x1x1x5xf32>
  %ext = nunc.mul %inv, %big : (tensor<1x1x1x5xf32>, tensor<f32>) -> tensor<1x1x1x5xf32>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %c = nunc.constant dense<2.0> : tensor<f32>
  %scaled = nunc.div %scores, %c : (tensor<1x2x4x5xf32>, tensor<f32>) -> tensor<1x2x4x5xf32>
  %logits = nunc.add %ext, %scaled : (tensor<1x1x1x5xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %probs = nunc.softmax %logits : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x4x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  return %out : tensor<1x4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Negative cases: no nunc.attention, the exported ops stay.
//===----------------------------------------------------------------------===//

// Softmax over axis 2 (the query positions), not the last axis.

// CHECK-LABEL: func.func @softmax_axis_2(
// CHECK-NOT: nunc.attention
// CHECK: nunc.matmul
// CHECK: nunc.softmax %{{.*}} {axis = 2 : i64}
// CHECK: nunc.matmul
// CHECK: nunc.reshape
// CHECK-NEXT: return
func.func @softmax_axis_2(%q: tensor<1x4x8xf32>, %k: tensor<1x4x8xf32>, %v: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = nunc.constant dense<2.0> : tensor<f32>
  %scaled = nunc.div %scores, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %probs = nunc.softmax %scaled {axis = 2 : i64} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  return %out : tensor<1x4x8xf32>
}

// -----

// Softmax over the heads axis.

// CHECK-LABEL: func.func @softmax_axis_1(
// CHECK-NOT: nunc.attention
// CHECK: nunc.softmax %{{.*}} {axis = 1 : i64}
// CHECK: return
func.func @softmax_axis_1(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %v: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %sq = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 4]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = nunc.constant dense<2.0> : tensor<f32>
  %scaled = nunc.div %scores, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %probs = nunc.softmax %scaled {axis = 1 : i64} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x2x2xf32>, tensor<3xi64>) -> tensor<1x2x4xf32>
  return %out : tensor<1x2x4xf32>
}

// -----

// A [2,1,1,T] mask on batch 1: the Add broadcasts the scores up to batch 2,
// which attention(q, k, v, mask) cannot express.

// CHECK-LABEL: func.func @mask_does_not_broadcast(
// CHECK-NOT: nunc.attention
// CHECK: nunc.add {{.*}} -> tensor<2x2x4x5xf32>
// CHECK: nunc.softmax
// CHECK: nunc.reshape {{.*}} -> tensor<2x4x8xf32>
// CHECK-NEXT: return
func.func @mask_does_not_broadcast(%q: tensor<1x4x8xf32>, %k: tensor<1x5x8xf32>, %v: tensor<1x5x8xf32>, %mask: tensor<2x1x1x5xf32>) -> tensor<2x4x8xf32> {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[2, 4, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %c = nunc.constant dense<2.0> : tensor<f32>
  %scaled = nunc.div %scores, %c : (tensor<1x2x4x5xf32>, tensor<f32>) -> tensor<1x2x4x5xf32>
  %logits = nunc.add %scaled, %mask : (tensor<1x2x4x5xf32>, tensor<2x1x1x5xf32>) -> tensor<2x2x4x5xf32>
  %probs = nunc.softmax %logits : tensor<2x2x4x5xf32> -> tensor<2x2x4x5xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<2x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<2x2x4x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<2x4x2x4xf32>, tensor<3xi64>) -> tensor<2x4x8xf32>
  return %out : tensor<2x4x8xf32>
}

// -----

// The scaled scores are also returned.

// CHECK-LABEL: func.func @logits_second_use(
// CHECK-NOT: nunc.attention
// CHECK: %[[S:.*]] = nunc.div
// CHECK: nunc.softmax
// CHECK: %[[O:.*]] = nunc.reshape
// CHECK-NEXT: return %[[O]], %[[S]]
func.func @logits_second_use(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %v: tensor<1x2x4xf32>, %mask: tensor<1x1x1x2xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x2x2xf32>) {
  %sq = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 4]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = nunc.constant dense<1.41421354> : tensor<f32>
  %scaled = nunc.div %scores, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %logits = nunc.add %scaled, %mask : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32>
  %probs = nunc.softmax %logits : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x2x2xf32>, tensor<3xi64>) -> tensor<1x2x4xf32>
  return %out, %scaled : tensor<1x2x4xf32>, tensor<1x2x2x2xf32>
}

// -----

// Division by a run-time value.

// CHECK-LABEL: func.func @scale_not_constant(
// CHECK-NOT: nunc.attention
// CHECK: nunc.div
// CHECK: nunc.softmax
// CHECK: return
func.func @scale_not_constant(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %v: tensor<1x2x4xf32>, %c: tensor<f32>) -> tensor<1x2x4xf32> {
  %sq = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 4]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %scaled = nunc.div %scores, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %probs = nunc.softmax %scaled : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x2x2xf32>, tensor<3xi64>) -> tensor<1x2x4xf32>
  return %out : tensor<1x2x4xf32>
}

// -----

// A NaN scale (here torch's sqrt(scale) on Q) stays unfused: the graph's
// ops make every score NaN, which the kernel's row maxima would step over.

// CHECK-LABEL: func.func @nan_scale(
// CHECK-NOT: nunc.attention
// CHECK: nunc.softmax
// CHECK: return
func.func @nan_scale(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %v: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %sq = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 4]> : tensor<3xi64>
  %c = nunc.constant dense<0x7FC00000> : tensor<f32>
  %q4 = nunc.reshape %q, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %qs = nunc.mul %qh, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %scores = nunc.matmul %qs, %kt : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %probs = nunc.softmax %scores : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x2x2xf32>, tensor<3xi64>) -> tensor<1x2x4xf32>
  return %out : tensor<1x2x4xf32>
}

// -----

// A different scale per head is not one scale.

// CHECK-LABEL: func.func @per_head_scale(
// CHECK-NOT: nunc.attention
// CHECK: nunc.mul
// CHECK: nunc.softmax
// CHECK: return
func.func @per_head_scale(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %v: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %sq = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 4]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = nunc.constant dense<[[[0.5]], [[0.25]]]> : tensor<2x1x1xf32>
  %scaled = nunc.mul %scores, %c : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %probs = nunc.softmax %scaled : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x2x2xf32>, tensor<3xi64>) -> tensor<1x2x4xf32>
  return %out : tensor<1x2x4xf32>
}

// -----

// The heads are not merged back with Transpose [0,2,1,3] (an identity
// transpose instead): the attention's result stays heads first, and the
// identity transpose and reshape stay after it.

// CHECK-LABEL: func.func @wrong_merge(
// CHECK: %[[A:.*]] = nunc.attention %{{.*}}, %{{.*}}, %{{.*}} {heads_major = array<i1: false, false, false, true>, num_heads = 2 : i64, scale = 5.000000e-01 : f32, scale_divisor = 2.000000e+00 : f32} : tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32> -> tensor<1x2x2x2xf32>
// CHECK-NOT: nunc.softmax
// CHECK: nunc.transpose %[[A]] {perm = array<i64: 0, 1, 2, 3>}
// CHECK: return
func.func @wrong_merge(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %v: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %sq = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 4]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = nunc.constant dense<2.0> : tensor<f32>
  %scaled = nunc.div %scores, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %probs = nunc.softmax %scaled : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 1, 2, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x2x2xf32>, tensor<3xi64>) -> tensor<1x2x4xf32>
  return %out : tensor<1x2x4xf32>
}

// -----

// V comes in already split into heads (no Reshape/Transpose to match): the
// attention reads it heads first.

// CHECK-LABEL: func.func @value_not_split(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x4xf32>, %[[K:[^:]*]]: tensor<1x2x4xf32>, %[[V:[^:]*]]: tensor<1x2x2x2xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] {heads_major = array<i1: false, false, true, false>, num_heads = 2 : i64, scale = 1.000000e+00 : f32} : tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x2x2xf32> -> tensor<1x2x4xf32>
// CHECK-NEXT: return %[[A]]
func.func @value_not_split(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %vh: tensor<1x2x2x2xf32>) -> tensor<1x2x4xf32> {
  %sq = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 4]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %k4 = nunc.reshape %k, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %probs = nunc.softmax %scores : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x2x2xf32>, tensor<3xi64>) -> tensor<1x2x4xf32>
  return %out : tensor<1x2x4xf32>
}

// -----

// K is only split into heads ([0,2,1,3]) and never transposed: with
// S = T = D the MatMul still type-checks, but it computes Q K, not Q K^T.

// CHECK-LABEL: func.func @key_not_transposed(
// CHECK-NOT: nunc.attention
// CHECK: nunc.softmax
// CHECK: return
func.func @key_not_transposed(%q: tensor<1x2x4xf32>, %k: tensor<1x2x4xf32>, %v: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %sq = nunc.constant dense<[1, 2, 2, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 4]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %k4 = nunc.reshape %k, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %kh = nunc.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %scores = nunc.matmul %qh, %kh : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %probs = nunc.softmax %scores : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %v4 = nunc.reshape %v, %sq : (tensor<1x2x4xf32>, tensor<4xi64>) -> tensor<1x2x2x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x2x2xf32>, tensor<3xi64>) -> tensor<1x2x4xf32>
  return %out : tensor<1x2x4xf32>
}

// -----

// Dynamic batch: the pattern needs static shapes.

// CHECK-LABEL: func.func @dynamic_batch(
// CHECK-NOT: nunc.attention
// CHECK: nunc.softmax
// CHECK: return
func.func @dynamic_batch(%q: tensor<?x2x4xf32>, %k: tensor<?x2x4xf32>, %v: tensor<?x2x4xf32>) -> tensor<?x2x4xf32> {
  %sq = nunc.constant dense<[0, 2, 2, 2]> : tensor<4xi64>
  %so = nunc.constant dense<[0, 2, 4]> : tensor<3xi64>
  %c = nunc.constant dense<2.0> : tensor<f32>
  %q4 = nunc.reshape %q, %sq : (tensor<?x2x4xf32>, tensor<4xi64>) -> tensor<?x2x2x2xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<?x2x2x2xf32> -> tensor<?x2x2x2xf32>
  %k4 = nunc.reshape %k, %sq : (tensor<?x2x4xf32>, tensor<4xi64>) -> tensor<?x2x2x2xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<?x2x2x2xf32> -> tensor<?x2x2x2xf32>
  %v4 = nunc.reshape %v, %sq : (tensor<?x2x4xf32>, tensor<4xi64>) -> tensor<?x2x2x2xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<?x2x2x2xf32> -> tensor<?x2x2x2xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<?x2x2x2xf32>, tensor<?x2x2x2xf32>) -> tensor<?x2x2x2xf32>
  %scaled = nunc.div %scores, %c : (tensor<?x2x2x2xf32>, tensor<f32>) -> tensor<?x2x2x2xf32>
  %probs = nunc.softmax %scaled : tensor<?x2x2x2xf32> -> tensor<?x2x2x2xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<?x2x2x2xf32>, tensor<?x2x2x2xf32>) -> tensor<?x2x2x2xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<?x2x2x2xf32> -> tensor<?x2x2x2xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<?x2x2x2xf32>, tensor<3xi64>) -> tensor<?x2x4xf32>
  return %out : tensor<?x2x4xf32>
}

// -----

// A QDQ model's attention (onnxruntime's quantize_static): a
// fake_quantize (a fused Q/DQ pair) after Q K^T, after the Div, after the
// mask Add, after the Softmax and after P V. Each becomes the matching grid
// of the attention; none is left.

// CHECK-LABEL: func.func @qdq_grids(
// CHECK-NEXT: %[[A:.*]] = nunc.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<1x1x1x5xf32> {logits_quantization = !quant.uniform<u8:f32, 1.250000e-01:200>, num_heads = 2 : i64, output_quantization = !quant.uniform<u8:f32, 3.125000e-02:128>, probs_quantization = !quant.uniform<u8:f32, 3.906250e-03>, scale = 5.000000e-01 : f32, scale_divisor = 2.000000e+00 : f32, scaled_quantization = !quant.uniform<u8:f32, 6.250000e-02:100>, scores_quantization = !quant.uniform<u8:f32, 1.250000e-01:100>}
// CHECK-NEXT: return %[[A]] : tensor<1x4x8xf32>
func.func @qdq_grids(%q: tensor<1x4x8xf32>, %k: tensor<1x5x8xf32>, %v: tensor<1x5x8xf32>, %mask: tensor<1x1x1x5xf32>) -> tensor<1x4x8xf32> {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %scoresq = nunc.fake_quantize %scores {quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %c = nunc.constant dense<2.0> : tensor<f32>
  %scaled = nunc.div %scoresq, %c : (tensor<1x2x4x5xf32>, tensor<f32>) -> tensor<1x2x4x5xf32>
  %scaledq = nunc.fake_quantize %scaled {quantization = !quant.uniform<u8:f32, 0.0625:100>} : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %logits = nunc.add %scaledq, %mask : (tensor<1x2x4x5xf32>, tensor<1x1x1x5xf32>) -> tensor<1x2x4x5xf32>
  %logitsq = nunc.fake_quantize %logits {quantization = !quant.uniform<u8:f32, 0.125:200>} : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %probs = nunc.softmax %logitsq : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %probsq = nunc.fake_quantize %probs {quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %ctx = nunc.matmul %probsq, %vh : (tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x4x4xf32>
  %ctxq = nunc.fake_quantize %ctx {quantization = !quant.uniform<u8:f32, 0.03125:128>} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %ctxt = nunc.transpose %ctxq {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  return %out : tensor<1x4x8xf32>
}

// -----

// Without a mask, the one grid between the scaling and the Softmax is the
// logits' (the scaled scores are the logits), as is a grid on Q K^T with
// no scaling op between it and the Softmax (this case).

// CHECK-LABEL: func.func @qdq_no_mask(
// CHECK-NEXT: %[[A:.*]] = nunc.attention %{{.*}}, %{{.*}}, %{{.*}} {logits_quantization = !quant.uniform<u8:f32, 6.250000e-02:100>, num_heads = 2 : i64, scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[A]] : tensor<1x4x8xf32>
func.func @qdq_no_mask(%q: tensor<1x4x8xf32>, %k: tensor<1x5x8xf32>, %v: tensor<1x5x8xf32>) -> tensor<1x4x8xf32> {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %scoresq = nunc.fake_quantize %scores {quantization = !quant.uniform<u8:f32, 0.0625:100>} : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %probs = nunc.softmax %scoresq : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x4x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  return %out : tensor<1x4x8xf32>
}

// -----

// A grid whose rounded values something else also reads (here a second
// result) is not attention's to take: the pattern stays.

// CHECK-LABEL: func.func @qdq_shared_probs(
// CHECK-NOT: nunc.attention
// CHECK: nunc.softmax
func.func @qdq_shared_probs(%q: tensor<1x4x8xf32>, %k: tensor<1x5x8xf32>, %v: tensor<1x5x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x2x4x5xf32>) {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %probs = nunc.softmax %scores : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %probsq = nunc.fake_quantize %probs {quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %ctx = nunc.matmul %probsq, %vh : (tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x4x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  return %out, %probsq : tensor<1x4x8xf32>, tensor<1x2x4x5xf32>
}

// -----

// The same for the scores' grid.

// CHECK-LABEL: func.func @qdq_shared_scores(
// CHECK-NOT: nunc.attention
// CHECK: nunc.softmax
func.func @qdq_shared_scores(%q: tensor<1x4x8xf32>, %k: tensor<1x5x8xf32>, %v: tensor<1x5x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x2x4x5xf32>) {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %scoresq = nunc.fake_quantize %scores {quantization = !quant.uniform<u8:f32, 0.0625:100>} : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %probs = nunc.softmax %scoresq : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x4x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  return %out, %scoresq : tensor<1x4x8xf32>, tensor<1x2x4x5xf32>
}

// -----

// Cross-attention whose keys and values are one input (MultiHeadAttention's
// key and value after CSE): K^T and V are two transposes of one reshape.
// The shared reshape only relabels dims; the attention reads the input.

// CHECK-LABEL: func.func @key_value_share_a_reshape(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x8xf32>, %[[KV:[^:]*]]: tensor<1x5x8xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[KV]], %[[KV]] {num_heads = 2 : i64, scale = 5.000000e-01 : f32}
// CHECK-NEXT: return %[[A]]
func.func @key_value_share_a_reshape(%q: tensor<1x4x8xf32>, %kv: tensor<1x5x8xf32>) -> tensor<1x4x8xf32> {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %kv4 = nunc.reshape %kv, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %kt = nunc.transpose %kv4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %vh = nunc.transpose %kv4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %c = nunc.constant dense<0.5> : tensor<f32>
  %scaled = nunc.mul %scores, %c : (tensor<1x2x4x5xf32>, tensor<f32>) -> tensor<1x2x4x5xf32>
  %probs = nunc.softmax %scaled : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x4x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  return %out : tensor<1x4x8xf32>
}

// -----

// Two attentions over one query split (the same query input, CSE'd), each
// with its own keys and values: both fuse, and the split goes with them.

// CHECK-LABEL: func.func @two_attentions_share_a_query_split(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x8xf32>, %[[K1:[^:]*]]: tensor<1x5x8xf32>, %[[K2:[^:]*]]: tensor<1x5x8xf32>)
// CHECK-NOT: nunc.transpose
// CHECK: nunc.attention %[[Q]], %[[K1]], %[[K1]]
// CHECK-NOT: nunc.transpose
// CHECK: nunc.attention %[[Q]], %[[K2]], %[[K2]]
// CHECK-NOT: nunc.transpose
func.func @two_attentions_share_a_query_split(%q: tensor<1x4x8xf32>, %k1: tensor<1x5x8xf32>, %k2: tensor<1x5x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %a4 = nunc.reshape %k1, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %akt = nunc.transpose %a4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %avh = nunc.transpose %a4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %as = nunc.matmul %qh, %akt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %ap = nunc.softmax %as : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %ac = nunc.matmul %ap, %avh : (tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x4x4xf32>
  %act = nunc.transpose %ac {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %aout = nunc.reshape %act, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  %b4 = nunc.reshape %k2, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %bkt = nunc.transpose %b4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %bvh = nunc.transpose %b4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %bs = nunc.matmul %qh, %bkt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %bp = nunc.softmax %bs : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %bc = nunc.matmul %bp, %bvh : (tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x4x4xf32>
  %bct = nunc.transpose %bc {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %bout = nunc.reshape %bct, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  return %aout, %bout : tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

// -----

// A head split that something else also reads (here returned) stays for
// that reader; the attention fuses all the same and reads the input.

// CHECK-LABEL: func.func @query_split_read_elsewhere(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x8xf32>, %[[K:[^:]*]]: tensor<1x5x8xf32>)
// CHECK: %[[QH:.*]] = nunc.transpose
// CHECK: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[K]]
// CHECK: return %[[A]], %[[QH]]
func.func @query_split_read_elsewhere(%q: tensor<1x4x8xf32>, %k: tensor<1x5x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x2x4x4xf32>) {
  %sq = nunc.constant dense<[1, 4, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 4, 8]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %vh = nunc.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x4x5xf32>
  %probs = nunc.softmax %scores : tensor<1x2x4x5xf32> -> tensor<1x2x4x5xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<1x2x4x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x4x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  return %out, %qh : tensor<1x4x8xf32>, tensor<1x2x4x4xf32>
}

// -----

// Heads-first Q, K and V (a decoder's tensors after its rotary embedding and
// past concatenation), K^T a [0,1,3,2] transpose, the result left heads
// first: every operand and the result heads_major.

// CHECK-LABEL: func.func @heads_first(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x3x4x8xf32>, %[[K:[^:]*]]: tensor<2x3x6x8xf32>, %[[V:[^:]*]]: tensor<2x3x6x8xf32>, %[[M:.*]]: tensor<4x6xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<4x6xf32> {heads_major = array<i1: true, true, true, true>, num_heads = 3 : i64, scale = 0.353553385 : f32} : tensor<2x3x4x8xf32>, tensor<2x3x6x8xf32>, tensor<2x3x6x8xf32> -> tensor<2x3x4x8xf32>
// CHECK-NEXT: return %[[A]]
func.func @heads_first(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x6x8xf32>, %v: tensor<2x3x6x8xf32>, %mask: tensor<4x6xf32>) -> tensor<2x3x4x8xf32> {
  %kt = nunc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x6x8xf32> -> tensor<2x3x8x6xf32>
  %scores = nunc.matmul %q, %kt : (tensor<2x3x4x8xf32>, tensor<2x3x8x6xf32>) -> tensor<2x3x4x6xf32>
  %c = nunc.constant dense<0.353553385> : tensor<f32>
  %scaled = nunc.mul %scores, %c : (tensor<2x3x4x6xf32>, tensor<f32>) -> tensor<2x3x4x6xf32>
  %logits = nunc.add %scaled, %mask : (tensor<2x3x4x6xf32>, tensor<4x6xf32>) -> tensor<2x3x4x6xf32>
  %probs = nunc.softmax %logits : tensor<2x3x4x6xf32> -> tensor<2x3x4x6xf32>
  %ctx = nunc.matmul %probs, %v : (tensor<2x3x4x6xf32>, tensor<2x3x6x8xf32>) -> tensor<2x3x4x8xf32>
  return %ctx : tensor<2x3x4x8xf32>
}

// -----

// Grouped query heads as the ai.onnx Attention import writes them: the two
// query heads of each key head reshaped into its rows ([1, 4, 3, 8] ->
// [1, 2, 6, 8]) for both products, read back as [1, 4, 3, T]; a heads-first
// Q, K and V from head splits (merged back).

// CHECK-LABEL: func.func @grouped_rows(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x3x8xf32>, %[[K:[^:]*]]: tensor<1x5x16xf32>, %[[V:[^:]*]]: tensor<1x5x16xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] {heads_major = array<i1: true, false, false, false>, kv_heads = 2 : i64, num_heads = 4 : i64, scale = 2.500000e-01 : f32} : tensor<1x4x3x8xf32>, tensor<1x5x16xf32>, tensor<1x5x16xf32> -> tensor<1x3x32xf32>
// CHECK-NEXT: return %[[A]]
func.func @grouped_rows(%q: tensor<1x4x3x8xf32>, %k: tensor<1x5x16xf32>, %v: tensor<1x5x16xf32>) -> tensor<1x3x32xf32> {
  %sk = nunc.constant dense<[1, 5, 2, 8]> : tensor<4xi64>
  %rows = nunc.constant dense<[1, 2, 6, 8]> : tensor<4xi64>
  %prow = nunc.constant dense<[1, 2, 6, 5]> : tensor<4xi64>
  %wide = nunc.constant dense<[1, 4, 3, 5]> : tensor<4xi64>
  %owide = nunc.constant dense<[1, 4, 3, 8]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 3, 32]> : tensor<3xi64>
  %k4 = nunc.reshape %k, %sk : (tensor<1x5x16xf32>, tensor<4xi64>) -> tensor<1x5x2x8xf32>
  %kh = nunc.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x8xf32> -> tensor<1x2x5x8xf32>
  %kt = nunc.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf32> -> tensor<1x2x8x5xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<1x5x16xf32>, tensor<4xi64>) -> tensor<1x5x2x8xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x8xf32> -> tensor<1x2x5x8xf32>
  %qr = nunc.reshape %q, %rows : (tensor<1x4x3x8xf32>, tensor<4xi64>) -> tensor<1x2x6x8xf32>
  %sr = nunc.matmul %qr, %kt : (tensor<1x2x6x8xf32>, tensor<1x2x8x5xf32>) -> tensor<1x2x6x5xf32>
  %scores = nunc.reshape %sr, %wide : (tensor<1x2x6x5xf32>, tensor<4xi64>) -> tensor<1x4x3x5xf32>
  %c = nunc.constant dense<0.25> : tensor<f32>
  %scaled = nunc.mul %scores, %c : (tensor<1x4x3x5xf32>, tensor<f32>) -> tensor<1x4x3x5xf32>
  %probs = nunc.softmax %scaled : tensor<1x4x3x5xf32> -> tensor<1x4x3x5xf32>
  %pr = nunc.reshape %probs, %prow : (tensor<1x4x3x5xf32>, tensor<4xi64>) -> tensor<1x2x6x5xf32>
  %cr = nunc.matmul %pr, %vh : (tensor<1x2x6x5xf32>, tensor<1x2x5x8xf32>) -> tensor<1x2x6x8xf32>
  %ctx = nunc.reshape %cr, %owide : (tensor<1x2x6x8xf32>, tensor<4xi64>) -> tensor<1x4x3x8xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x3x8xf32> -> tensor<1x3x4x8xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x3x4x8xf32>, tensor<3xi64>) -> tensor<1x3x32xf32>
  return %out : tensor<1x3x32xf32>
}

// -----

// Grouped query heads as torch exports a decoder: repeat_kv (Unsqueeze at
// 2, Expand, Reshape) on heads-first K and V, and
// scaled_dot_product_attention's sqrt(scale) on Q and on K^T: kv_heads 1,
// the scale their product, the repeats gone.

// CHECK-LABEL: func.func @repeated_key_heads(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x2x8xf32>, %[[K:[^:]*]]: tensor<1x1x7x8xf32>, %[[V:[^:]*]]: tensor<1x1x7x8xf32>, %[[M:.*]]: tensor<1x1x2x7xf32>)
// CHECK-NEXT: %[[A:.*]] = nunc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<1x1x2x7xf32> {heads_major = array<i1: true, true, true, false>, kv_heads = 1 : i64, num_heads = 4 : i64, scale = 0.124999993 : f32} : tensor<1x4x2x8xf32>, tensor<1x1x7x8xf32>, tensor<1x1x7x8xf32> -> tensor<1x2x32xf32>
// CHECK-NEXT: return %[[A]]
func.func @repeated_key_heads(%q: tensor<1x4x2x8xf32>, %k: tensor<1x1x7x8xf32>, %v: tensor<1x1x7x8xf32>, %mask: tensor<1x1x2x7xf32>) -> tensor<1x2x32xf32> {
  %axis = nunc.constant dense<[2]> : tensor<1xi64>
  %es = nunc.constant dense<[1, 1, 4, 7, 8]> : tensor<5xi64>
  %rs = nunc.constant dense<[1, 4, 7, 8]> : tensor<4xi64>
  %so = nunc.constant dense<[1, 2, 32]> : tensor<3xi64>
  %ku = nunc.unsqueeze %k, %axis : (tensor<1x1x7x8xf32>, tensor<1xi64>) -> tensor<1x1x1x7x8xf32>
  %ke = nunc.expand %ku, %es : (tensor<1x1x1x7x8xf32>, tensor<5xi64>) -> tensor<1x1x4x7x8xf32>
  %kr = nunc.reshape %ke, %rs : (tensor<1x1x4x7x8xf32>, tensor<4xi64>) -> tensor<1x4x7x8xf32>
  %vu = nunc.unsqueeze %v, %axis : (tensor<1x1x7x8xf32>, tensor<1xi64>) -> tensor<1x1x1x7x8xf32>
  %ve = nunc.expand %vu, %es : (tensor<1x1x1x7x8xf32>, tensor<5xi64>) -> tensor<1x1x4x7x8xf32>
  %vr = nunc.reshape %ve, %rs : (tensor<1x1x4x7x8xf32>, tensor<4xi64>) -> tensor<1x4x7x8xf32>
  %c = nunc.constant dense<0.353553385> : tensor<f32>
  %qs = nunc.mul %q, %c : (tensor<1x4x2x8xf32>, tensor<f32>) -> tensor<1x4x2x8xf32>
  %kt = nunc.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x8xf32> -> tensor<1x4x8x7xf32>
  %kts = nunc.mul %kt, %c : (tensor<1x4x8x7xf32>, tensor<f32>) -> tensor<1x4x8x7xf32>
  %scores = nunc.matmul %qs, %kts : (tensor<1x4x2x8xf32>, tensor<1x4x8x7xf32>) -> tensor<1x4x2x7xf32>
  %logits = nunc.add %scores, %mask : (tensor<1x4x2x7xf32>, tensor<1x1x2x7xf32>) -> tensor<1x4x2x7xf32>
  %probs = nunc.softmax %logits : tensor<1x4x2x7xf32> -> tensor<1x4x2x7xf32>
  %ctx = nunc.matmul %probs, %vr : (tensor<1x4x2x7xf32>, tensor<1x4x7x8xf32>) -> tensor<1x4x2x8xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x8xf32> -> tensor<1x2x4x8xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<1x2x4x8xf32>, tensor<3xi64>) -> tensor<1x2x32xf32>
  return %out : tensor<1x2x32xf32>
}

// -----

// K is repeated 4 times but V twice from two heads: they do not agree on a
// group, and nothing fuses.

// CHECK-LABEL: func.func @key_and_value_groups_differ(
// CHECK-NOT: nunc.attention
// CHECK: nunc.softmax
// CHECK: return
func.func @key_and_value_groups_differ(%q: tensor<1x4x2x8xf32>, %k: tensor<1x1x7x8xf32>, %v: tensor<1x2x7x8xf32>) -> tensor<1x4x2x8xf32> {
  %axis = nunc.constant dense<[2]> : tensor<1xi64>
  %es = nunc.constant dense<[1, 1, 4, 7, 8]> : tensor<5xi64>
  %es2 = nunc.constant dense<[1, 2, 2, 7, 8]> : tensor<5xi64>
  %rs = nunc.constant dense<[1, 4, 7, 8]> : tensor<4xi64>
  %ku = nunc.unsqueeze %k, %axis : (tensor<1x1x7x8xf32>, tensor<1xi64>) -> tensor<1x1x1x7x8xf32>
  %ke = nunc.expand %ku, %es : (tensor<1x1x1x7x8xf32>, tensor<5xi64>) -> tensor<1x1x4x7x8xf32>
  %kr = nunc.reshape %ke, %rs : (tensor<1x1x4x7x8xf32>, tensor<4xi64>) -> tensor<1x4x7x8xf32>
  %vu = nunc.unsqueeze %v, %axis : (tensor<1x2x7x8xf32>, tensor<1xi64>) -> tensor<1x2x1x7x8xf32>
  %ve = nunc.expand %vu, %es2 : (tensor<1x2x1x7x8xf32>, tensor<5xi64>) -> tensor<1x2x2x7x8xf32>
  %vr = nunc.reshape %ve, %rs : (tensor<1x2x2x7x8xf32>, tensor<4xi64>) -> tensor<1x4x7x8xf32>
  %kt = nunc.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x8xf32> -> tensor<1x4x8x7xf32>
  %scores = nunc.matmul %q, %kt : (tensor<1x4x2x8xf32>, tensor<1x4x8x7xf32>) -> tensor<1x4x2x7xf32>
  %probs = nunc.softmax %scores : tensor<1x4x2x7xf32> -> tensor<1x4x2x7xf32>
  %ctx = nunc.matmul %probs, %vr : (tensor<1x4x2x7xf32>, tensor<1x4x7x8xf32>) -> tensor<1x4x2x8xf32>
  return %ctx : tensor<1x4x2x8xf32>
}

// -----

// V's head size (4) differs from Q's and K's (8): the kernel takes one head
// size, so nothing fuses.

// CHECK-LABEL: func.func @value_head_size_differs(
// CHECK-NOT: nunc.attention
// CHECK: nunc.softmax
// CHECK: return
func.func @value_head_size_differs(%q: tensor<1x2x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> {
  %kt = nunc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x8xf32> -> tensor<1x2x8x5xf32>
  %scores = nunc.matmul %q, %kt : (tensor<1x2x3x8xf32>, tensor<1x2x8x5xf32>) -> tensor<1x2x3x5xf32>
  %probs = nunc.softmax %scores : tensor<1x2x3x5xf32> -> tensor<1x2x3x5xf32>
  %ctx = nunc.matmul %probs, %v : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  return %ctx : tensor<1x2x3x4xf32>
}

// -----

// Multi-query attention: one key and value head that the MatMuls
// broadcast to the 4 query heads, no repeat: kv_heads 1.

// CHECK-LABEL: func.func @one_key_head_broadcast(
// CHECK-NEXT: nunc.attention %{{.*}}, %{{.*}}, %{{.*}} {heads_major = array<i1: true, true, true, true>, kv_heads = 1 : i64, num_heads = 4 : i64, scale = 1.000000e+00 : f32} : tensor<2x4x3x8xf32>, tensor<2x1x5x8xf32>, tensor<2x1x5x8xf32> -> tensor<2x4x3x8xf32>
// CHECK-NEXT: return
func.func @one_key_head_broadcast(%q: tensor<2x4x3x8xf32>, %k: tensor<2x1x5x8xf32>, %v: tensor<2x1x5x8xf32>) -> tensor<2x4x3x8xf32> {
  %kt = nunc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x5x8xf32> -> tensor<2x1x8x5xf32>
  %scores = nunc.matmul %q, %kt : (tensor<2x4x3x8xf32>, tensor<2x1x8x5xf32>) -> tensor<2x4x3x5xf32>
  %probs = nunc.softmax %scores : tensor<2x4x3x5xf32> -> tensor<2x4x3x5xf32>
  %ctx = nunc.matmul %probs, %v : (tensor<2x4x3x5xf32>, tensor<2x1x5x8xf32>) -> tensor<2x4x3x8xf32>
  return %ctx : tensor<2x4x3x8xf32>
}

// -----

// The heads are merged and reshaped to something other than [B, S, H*D]
// (the batch folded into the sequence): the attention's result stays heads
// first, and the merge after it.

// CHECK-LABEL: func.func @merge_to_another_shape(
// CHECK-NEXT: %[[S:.*]] = nunc.constant
// CHECK-NEXT: %[[A:.*]] = nunc.attention %{{.*}}, %{{.*}}, %{{.*}} {heads_major = array<i1: true, true, true, true>, num_heads = 4 : i64, scale = 1.000000e+00 : f32} : tensor<2x4x3x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32> -> tensor<2x4x3x8xf32>
// CHECK-NEXT: %[[T:.*]] = nunc.transpose %[[A]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-NEXT: nunc.reshape %[[T]], %[[S]] : (tensor<2x3x4x8xf32>, tensor<3xi64>) -> tensor<1x6x32xf32>
func.func @merge_to_another_shape(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<1x6x32xf32> {
  %so = nunc.constant dense<[1, 6, 32]> : tensor<3xi64>
  %kt = nunc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x8xf32> -> tensor<2x4x8x5xf32>
  %scores = nunc.matmul %q, %kt : (tensor<2x4x3x8xf32>, tensor<2x4x8x5xf32>) -> tensor<2x4x3x5xf32>
  %probs = nunc.softmax %scores : tensor<2x4x3x5xf32> -> tensor<2x4x3x5xf32>
  %ctx = nunc.matmul %probs, %v : (tensor<2x4x3x5xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x3x8xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x3x8xf32> -> tensor<2x3x4x8xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<2x3x4x8xf32>, tensor<3xi64>) -> tensor<1x6x32xf32>
  return %out : tensor<1x6x32xf32>
}
