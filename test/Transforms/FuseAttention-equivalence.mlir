// The fused graph computes what the exported one does: both run on the same
// random inputs in the reference evaluator, and the outputs must agree.
// RUN: nunc-opt %s --nunc-fuse-attention -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 1 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 1 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); assert sorted(a.files) == sorted(b.files) == ['u', 'w', 'y', 'z'], (a.files, b.files); [np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-6, err_msg=k) for k in a.files]" %t.ref.npz %t.fused.npz

// y: 2 heads of 4, Div by 0.5 (scale 2, so the softmax is far from uniform),
// a [B,1,1,T] mask, K^T as one transpose, T = 5 != S = 3, batch 2.
// z: 4 heads of 2 on the same tensors (Q = K = V = k), Mul by 3, no mask,
// K^T as two transposes.
// w: grouped query heads as torch exports them: heads-first Q [2, 4, 3, 2]
// (q's columns), K and V each one head repeated 4 times (k's first 2
// columns), sqrt(scale) on Q and on K^T, a [S, T] mask, the result heads
// first.
// u: grouped query heads as rows of their key head's products (the
// ai.onnx Attention import): 4 query heads of 2 over 2 key heads from k
// (the key heads its first 4 columns), merged back.

// CHECK-LABEL: func.func @main(
// CHECK: nunc.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<2x1x1x5xf32> {num_heads = 2 : i64, scale = 2.000000e+00 : f32, scale_divisor = 5.000000e-01 : f32}
// CHECK: nunc.attention %{{.*}}, %{{.*}}, %{{.*}} {num_heads = 4 : i64, scale = 3.000000e+00 : f32}
// CHECK: nunc.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<3x5xf32> {heads_major = array<i1: true, true, true, true>, kv_heads = 1 : i64, num_heads = 4 : i64
// CHECK: nunc.attention %{{.*}}, %{{.*}}, %{{.*}} {kv_heads = 2 : i64, num_heads = 4 : i64, scale = 5.000000e-01 : f32}
// CHECK-NOT: nunc.softmax
func.func @main(%q: tensor<2x3x8xf32> {nunc.name = "q"}, %k: tensor<2x5x8xf32> {nunc.name = "k"}, %v: tensor<2x5x8xf32> {nunc.name = "v"}, %mask: tensor<2x1x1x5xf32> {nunc.name = "mask"}, %smask: tensor<3x5xf32> {nunc.name = "smask"}) -> (tensor<2x3x8xf32> {nunc.name = "y"}, tensor<2x5x8xf32> {nunc.name = "z"}, tensor<2x4x3x2xf32> {nunc.name = "w"}, tensor<2x3x8xf32> {nunc.name = "u"}) {
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

  %sq3 = nunc.constant dense<[2, 3, 4, 2]> : tensor<4xi64>
  %sc = nunc.constant dense<1.2> : tensor<f32>
  %wq4 = nunc.reshape %q, %sq3 : (tensor<2x3x8xf32>, tensor<4xi64>) -> tensor<2x3x4x2xf32>
  %wqh = nunc.transpose %wq4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x2xf32> -> tensor<2x4x3x2xf32>
  %wqc = nunc.add %wqh, %sc : (tensor<2x4x3x2xf32>, tensor<f32>) -> tensor<2x4x3x2xf32>
  %st = nunc.constant dense<[0, 0, 0]> : tensor<3xi64>
  %en = nunc.constant dense<[2, 5, 2]> : tensor<3xi64>
  %k2 = nunc.slice %k[%st : tensor<3xi64>, %en : tensor<3xi64>] : tensor<2x5x8xf32> -> tensor<2x5x2xf32>
  %sk1 = nunc.constant dense<[2, 1, 5, 2]> : tensor<4xi64>
  %kh1 = nunc.reshape %k2, %sk1 : (tensor<2x5x2xf32>, tensor<4xi64>) -> tensor<2x1x5x2xf32>
  %axis = nunc.constant dense<[2]> : tensor<1xi64>
  %es = nunc.constant dense<[2, 1, 4, 5, 2]> : tensor<5xi64>
  %rs = nunc.constant dense<[2, 4, 5, 2]> : tensor<4xi64>
  %ku = nunc.unsqueeze %kh1, %axis : (tensor<2x1x5x2xf32>, tensor<1xi64>) -> tensor<2x1x1x5x2xf32>
  %ke = nunc.expand %ku, %es : (tensor<2x1x1x5x2xf32>, tensor<5xi64>) -> tensor<2x1x4x5x2xf32>
  %kr = nunc.reshape %ke, %rs : (tensor<2x1x4x5x2xf32>, tensor<4xi64>) -> tensor<2x4x5x2xf32>
  %vu = nunc.unsqueeze %kh1, %axis : (tensor<2x1x5x2xf32>, tensor<1xi64>) -> tensor<2x1x1x5x2xf32>
  %ve = nunc.expand %vu, %es : (tensor<2x1x1x5x2xf32>, tensor<5xi64>) -> tensor<2x1x4x5x2xf32>
  %vr = nunc.reshape %ve, %rs : (tensor<2x1x4x5x2xf32>, tensor<4xi64>) -> tensor<2x4x5x2xf32>
  %wqs = nunc.mul %wqc, %sc : (tensor<2x4x3x2xf32>, tensor<f32>) -> tensor<2x4x3x2xf32>
  %wkt = nunc.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x2xf32> -> tensor<2x4x2x5xf32>
  %wkts = nunc.mul %wkt, %sc : (tensor<2x4x2x5xf32>, tensor<f32>) -> tensor<2x4x2x5xf32>
  %wsc = nunc.matmul %wqs, %wkts : (tensor<2x4x3x2xf32>, tensor<2x4x2x5xf32>) -> tensor<2x4x3x5xf32>
  %wl = nunc.add %wsc, %smask : (tensor<2x4x3x5xf32>, tensor<3x5xf32>) -> tensor<2x4x3x5xf32>
  %wp = nunc.softmax %wl : tensor<2x4x3x5xf32> -> tensor<2x4x3x5xf32>
  %w = nunc.matmul %wp, %vr : (tensor<2x4x3x5xf32>, tensor<2x4x5x2xf32>) -> tensor<2x4x3x2xf32>

  %en4 = nunc.constant dense<[2, 5, 4]> : tensor<3xi64>
  %k4c = nunc.slice %k[%st : tensor<3xi64>, %en4 : tensor<3xi64>] : tensor<2x5x8xf32> -> tensor<2x5x4xf32>
  %sk2 = nunc.constant dense<[2, 5, 2, 2]> : tensor<4xi64>
  %uk4 = nunc.reshape %k4c, %sk2 : (tensor<2x5x4xf32>, tensor<4xi64>) -> tensor<2x5x2x2xf32>
  %ukh = nunc.transpose %uk4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x2x2xf32> -> tensor<2x2x5x2xf32>
  %ukt = nunc.transpose %ukh {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x5x2xf32> -> tensor<2x2x2x5xf32>
  %uv4 = nunc.reshape %k4c, %sk2 : (tensor<2x5x4xf32>, tensor<4xi64>) -> tensor<2x5x2x2xf32>
  %uvh = nunc.transpose %uv4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x2x2xf32> -> tensor<2x2x5x2xf32>
  %uq4 = nunc.reshape %q, %sq3 : (tensor<2x3x8xf32>, tensor<4xi64>) -> tensor<2x3x4x2xf32>
  %uqh = nunc.transpose %uq4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x2xf32> -> tensor<2x4x3x2xf32>
  %rows = nunc.constant dense<[2, 2, 6, 2]> : tensor<4xi64>
  %prow = nunc.constant dense<[2, 2, 6, 5]> : tensor<4xi64>
  %wide = nunc.constant dense<[2, 4, 3, 5]> : tensor<4xi64>
  %owide = nunc.constant dense<[2, 4, 3, 2]> : tensor<4xi64>
  %uqr = nunc.reshape %uqh, %rows : (tensor<2x4x3x2xf32>, tensor<4xi64>) -> tensor<2x2x6x2xf32>
  %usr = nunc.matmul %uqr, %ukt : (tensor<2x2x6x2xf32>, tensor<2x2x2x5xf32>) -> tensor<2x2x6x5xf32>
  %usc = nunc.reshape %usr, %wide : (tensor<2x2x6x5xf32>, tensor<4xi64>) -> tensor<2x4x3x5xf32>
  %uc = nunc.constant dense<0.5> : tensor<f32>
  %uscl = nunc.mul %usc, %uc : (tensor<2x4x3x5xf32>, tensor<f32>) -> tensor<2x4x3x5xf32>
  %up = nunc.softmax %uscl : tensor<2x4x3x5xf32> -> tensor<2x4x3x5xf32>
  %upr = nunc.reshape %up, %prow : (tensor<2x4x3x5xf32>, tensor<4xi64>) -> tensor<2x2x6x5xf32>
  %ucr = nunc.matmul %upr, %uvh : (tensor<2x2x6x5xf32>, tensor<2x2x5x2xf32>) -> tensor<2x2x6x2xf32>
  %uctx = nunc.reshape %ucr, %owide : (tensor<2x2x6x2xf32>, tensor<4xi64>) -> tensor<2x4x3x2xf32>
  %uctxt = nunc.transpose %uctx {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x3x2xf32> -> tensor<2x3x4x2xf32>
  %u = nunc.reshape %uctxt, %so : (tensor<2x3x4x2xf32>, tensor<3xi64>) -> tensor<2x3x8xf32>
  return %y, %z, %w, %u : tensor<2x3x8xf32>, tensor<2x5x8xf32>, tensor<2x4x3x2xf32>, tensor<2x3x8xf32>
}
