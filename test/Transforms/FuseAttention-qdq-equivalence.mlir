// A QDQ model's attention (fake_quantize on Q K^T, the scaled and masked
// scores, the probabilities and P V) computes the same after fusing: the
// reference evaluator gives the same bits for both forms (the scale is a
// power of two, so Div and the fused multiplier agree), and the compiled
// x86 kernel (its own exp and sum order, so a value at a rounding tie may
// land on the neighbouring grid point) stays within one output step, equal
// on almost every value. z has heads of 4 floats, which the x86 kernel does
// not take: the generic kernel rounds the same way.
// RUN: nunc-opt %s --nunc-fuse-attention -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 3 -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --random-inputs --seed 3 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p)['y'] for p in sys.argv[1:]); np.testing.assert_array_equal(b, a); d = np.abs(c - a); assert d.max() <= 1 / 128 + 1e-6, d.max(); assert (d == 0).mean() >= 0.9, (d == 0).mean(); assert np.allclose(np.round(c * 128), c * 128), 'not on the output grid'" %t.ref.npz %t.fused.npz %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p)['z'] for p in sys.argv[1:]); np.testing.assert_array_equal(b, a); d = np.abs(c - a); assert d.max() <= 1 / 128 + 1e-6, d.max(); assert (d == 0).mean() >= 0.9, (d == 0).mean(); assert np.allclose(np.round(c * 128), c * 128), 'not on the output grid'" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK-COUNT-2: nunc.attention {{.*}} mask {{.*}}logits_quantization{{.*}}output_quantization{{.*}}probs_quantization{{.*}}scaled_quantization{{.*}}scores_quantization
// CHECK-NOT: nunc.softmax
// CHECK-NOT: nunc.fake_quantize
func.func @main(%q: tensor<2x7x32xf32> {nunc.name = "q"}, %k: tensor<2x9x32xf32> {nunc.name = "k"}, %v: tensor<2x9x32xf32> {nunc.name = "v"}, %mask: tensor<2x1x1x9xf32> {nunc.name = "mask"}, %q2: tensor<1x3x8xf32> {nunc.name = "q2"}, %k2: tensor<1x5x8xf32> {nunc.name = "k2"}, %mask2: tensor<1x1x1x5xf32> {nunc.name = "mask2"}) -> (tensor<2x7x32xf32> {nunc.name = "y"}, tensor<1x3x8xf32> {nunc.name = "z"}) {
  %sq = nunc.constant dense<[2, 7, 2, 16]> : tensor<4xi64>
  %sk = nunc.constant dense<[2, 9, 2, 16]> : tensor<4xi64>
  %so = nunc.constant dense<[2, 7, 32]> : tensor<3xi64>
  %q4 = nunc.reshape %q, %sq : (tensor<2x7x32xf32>, tensor<4xi64>) -> tensor<2x7x2x16xf32>
  %qh = nunc.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x2x16xf32> -> tensor<2x2x7x16xf32>
  %k4 = nunc.reshape %k, %sk : (tensor<2x9x32xf32>, tensor<4xi64>) -> tensor<2x9x2x16xf32>
  %kt = nunc.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<2x9x2x16xf32> -> tensor<2x2x16x9xf32>
  %v4 = nunc.reshape %v, %sk : (tensor<2x9x32xf32>, tensor<4xi64>) -> tensor<2x9x2x16xf32>
  %vh = nunc.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x9x2x16xf32> -> tensor<2x2x9x16xf32>
  %scores = nunc.matmul %qh, %kt : (tensor<2x2x7x16xf32>, tensor<2x2x16x9xf32>) -> tensor<2x2x7x9xf32>
  %scoresq = nunc.fake_quantize %scores {quantization = !quant.uniform<u8:f32, 0.03125:128>} : tensor<2x2x7x9xf32> -> tensor<2x2x7x9xf32>
  %c = nunc.constant dense<2.0> : tensor<f32>
  %scaled = nunc.div %scoresq, %c : (tensor<2x2x7x9xf32>, tensor<f32>) -> tensor<2x2x7x9xf32>
  %scaledq = nunc.fake_quantize %scaled {quantization = !quant.uniform<u8:f32, 0.03125:128>} : tensor<2x2x7x9xf32> -> tensor<2x2x7x9xf32>
  %logits = nunc.add %scaledq, %mask : (tensor<2x2x7x9xf32>, tensor<2x1x1x9xf32>) -> tensor<2x2x7x9xf32>
  %logitsq = nunc.fake_quantize %logits {quantization = !quant.uniform<u8:f32, 0.046875:128>} : tensor<2x2x7x9xf32> -> tensor<2x2x7x9xf32>
  %probs = nunc.softmax %logitsq : tensor<2x2x7x9xf32> -> tensor<2x2x7x9xf32>
  %probsq = nunc.fake_quantize %probs {quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<2x2x7x9xf32> -> tensor<2x2x7x9xf32>
  %ctx = nunc.matmul %probsq, %vh : (tensor<2x2x7x9xf32>, tensor<2x2x9x16xf32>) -> tensor<2x2x7x16xf32>
  %ctxq = nunc.fake_quantize %ctx {quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<2x2x7x16xf32> -> tensor<2x2x7x16xf32>
  %ctxt = nunc.transpose %ctxq {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x7x16xf32> -> tensor<2x7x2x16xf32>
  %out = nunc.reshape %ctxt, %so : (tensor<2x7x2x16xf32>, tensor<3xi64>) -> tensor<2x7x32xf32>
  %zq = nunc.constant dense<[1, 3, 2, 4]> : tensor<4xi64>
  %zk = nunc.constant dense<[1, 5, 2, 4]> : tensor<4xi64>
  %zo = nunc.constant dense<[1, 3, 8]> : tensor<3xi64>
  %zq4 = nunc.reshape %q2, %zq : (tensor<1x3x8xf32>, tensor<4xi64>) -> tensor<1x3x2x4xf32>
  %zqh = nunc.transpose %zq4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x2x4xf32> -> tensor<1x2x3x4xf32>
  %zk4 = nunc.reshape %k2, %zk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %zkt = nunc.transpose %zk4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
  %zv4 = nunc.reshape %k2, %zk : (tensor<1x5x8xf32>, tensor<4xi64>) -> tensor<1x5x2x4xf32>
  %zvh = nunc.transpose %zv4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x4xf32> -> tensor<1x2x5x4xf32>
  %zs = nunc.matmul %zqh, %zkt : (tensor<1x2x3x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x3x5xf32>
  %zsq = nunc.fake_quantize %zs {quantization = !quant.uniform<u8:f32, 0.03125:128>} : tensor<1x2x3x5xf32> -> tensor<1x2x3x5xf32>
  %zc = nunc.constant dense<0.5> : tensor<f32>
  %zsc = nunc.mul %zsq, %zc : (tensor<1x2x3x5xf32>, tensor<f32>) -> tensor<1x2x3x5xf32>
  %zscq = nunc.fake_quantize %zsc {quantization = !quant.uniform<u8:f32, 0.03125:128>} : tensor<1x2x3x5xf32> -> tensor<1x2x3x5xf32>
  %zl = nunc.add %zscq, %mask2 : (tensor<1x2x3x5xf32>, tensor<1x1x1x5xf32>) -> tensor<1x2x3x5xf32>
  %zlq = nunc.fake_quantize %zl {quantization = !quant.uniform<u8:f32, 0.046875:128>} : tensor<1x2x3x5xf32> -> tensor<1x2x3x5xf32>
  %zp = nunc.softmax %zlq : tensor<1x2x3x5xf32> -> tensor<1x2x3x5xf32>
  %zpq = nunc.fake_quantize %zp {quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<1x2x3x5xf32> -> tensor<1x2x3x5xf32>
  %zx = nunc.matmul %zpq, %zvh : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  %zxq = nunc.fake_quantize %zx {quantization = !quant.uniform<u8:f32, 0.0078125:128>} : tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  %zxt = nunc.transpose %zxq {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x3x4xf32> -> tensor<1x3x2x4xf32>
  %zout = nunc.reshape %zxt, %zo : (tensor<1x3x2x4xf32>, tensor<3xi64>) -> tensor<1x3x8xf32>
  return %out, %zout : tensor<2x7x32xf32>, tensor<1x3x8xf32>
}
