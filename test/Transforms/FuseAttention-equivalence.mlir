// The fused graph computes what the exported one does: both run on the same
// random inputs in the reference evaluator, and the outputs must agree.
// RUN: nunc-opt %s --nunc-fuse-attention -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 1 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 1 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); assert sorted(a.files) == sorted(b.files) == ['y', 'z'], (a.files, b.files); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-6, err_msg=k) for k in a.files]" %t.ref.npz %t.fused.npz

// y: 2 heads of 4, Div by 0.5 (scale 2, so the softmax is far from uniform),
// a [B,1,1,T] mask, K^T as one transpose, T = 5 != S = 3, batch 2.
// z: 4 heads of 2 on the same tensors (Q = K = V = k), Mul by 3, no mask,
// K^T as two transposes.

// CHECK-LABEL: func.func @main(
// CHECK: nunc.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<2x1x1x5xf32> {num_heads = 2 : i64, scale = 2.000000e+00 : f32, scale_divisor = 5.000000e-01 : f32}
// CHECK: nunc.attention %{{.*}}, %{{.*}}, %{{.*}} {num_heads = 4 : i64, scale = 3.000000e+00 : f32}
// CHECK-NOT: nunc.softmax
func.func @main(%q: tensor<2x3x8xf32> {nunc.name = "q"}, %k: tensor<2x5x8xf32> {nunc.name = "k"}, %v: tensor<2x5x8xf32> {nunc.name = "v"}, %mask: tensor<2x1x1x5xf32> {nunc.name = "mask"}) -> (tensor<2x3x8xf32> {nunc.name = "y"}, tensor<2x5x8xf32> {nunc.name = "z"}) {
  %sq = nunc.constant dense<[2, 3, 2, 4]> : tensor<4xi64>
  %sk = nunc.constant dense<[2, 5, 2, 4]> : tensor<4xi64>
  %so = nunc.constant dense<[2, 3, 8]> : tensor<3xi64>
  %c = nunc.constant dense<0.5> : tensor<f32>
  %q4 = nunc.reshape %q, %sq : (tensor<2x3x8xf32>, tensor<4xi64>) -> tensor<2x3x2x4xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x2x4xf32> -> tensor<2x2x3x4xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<2x5x8xf32>, tensor<4xi64>) -> tensor<2x5x2x4xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<2x5x2x4xf32> -> tensor<2x2x4x5xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<2x5x8xf32>, tensor<4xi64>) -> tensor<2x5x2x4xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x5xf32>
  %scaled = nunc.div %scores, %c : (tensor<2x2x3x5xf32>, tensor<f32>) -> tensor<2x2x3x5xf32>
  %logits = nunc.add %scaled, %mask : (tensor<2x2x3x5xf32>, tensor<2x1x1x5xf32>) -> tensor<2x2x3x5xf32>
  %probs = nunc.softmax %logits : tensor<2x2x3x5xf32> -> tensor<2x2x3x5xf32>
  %ctx = nunc.matmul %probs, %vh : (tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  %ctxt = nunc.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x3x4xf32> -> tensor<2x3x2x4xf32>
  %y = nunc.reshape %ctxt, %so : (tensor<2x3x2x4xf32>, tensor<3xi64>) -> tensor<2x3x8xf32>

  %s2 = nunc.constant dense<[2, 5, 4, 2]> : tensor<4xi64>
  %so2 = nunc.constant dense<[2, 5, 8]> : tensor<3xi64>
  %c2 = nunc.constant dense<3.0> : tensor<f32>
  %a4 = nunc.reshape %k, %s2 : (tensor<2x5x8xf32>, tensor<4xi64>) -> tensor<2x5x4x2xf32>
  %ah = nunc.transpose %a4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x2xf32> -> tensor<2x4x5x2xf32>
  %b4 = nunc.reshape %k, %s2 : (tensor<2x5x8xf32>, tensor<4xi64>) -> tensor<2x5x4x2xf32>
  %bh = nunc.transpose %b4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x2xf32> -> tensor<2x4x5x2xf32>
  %bt = nunc.transpose %bh {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x2xf32> -> tensor<2x4x2x5xf32>
  %d4 = nunc.reshape %k, %s2 : (tensor<2x5x8xf32>, tensor<4xi64>) -> tensor<2x5x4x2xf32>
  %dh = nunc.transpose %d4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x2xf32> -> tensor<2x4x5x2xf32>
  %sc2 = nunc.matmul %ah, %bt : (tensor<2x4x5x2xf32>, tensor<2x4x2x5xf32>) -> tensor<2x4x5x5xf32>
  %scl2 = nunc.mul %c2, %sc2 : (tensor<f32>, tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %p2 = nunc.softmax %scl2 {axis = 3 : i64} : tensor<2x4x5x5xf32> -> tensor<2x4x5x5xf32>
  %ctx2 = nunc.matmul %p2, %dh : (tensor<2x4x5x5xf32>, tensor<2x4x5x2xf32>) -> tensor<2x4x5x2xf32>
  %ctxt2 = nunc.transpose %ctx2 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x5x2xf32> -> tensor<2x5x4x2xf32>
  %z = nunc.reshape %ctxt2, %so2 : (tensor<2x5x4x2xf32>, tensor<3xi64>) -> tensor<2x5x8xf32>
  return %y, %z : tensor<2x3x8xf32>, tensor<2x5x8xf32>
}
