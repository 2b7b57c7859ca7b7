// A QDQ model's attention (fake_quantize on Q K^T, the scaled and masked
// scores, the probabilities and P V) computes the same after fusing: the
// reference evaluator gives the same bits for both forms (the scale is a
// power of two, so Div and the fused multiplier agree), and the compiled
// x86 kernel (its own exp and sum order, so a value at a rounding tie may
// land on the neighbouring grid point) stays within one output step, equal
// on almost every value.
// RUN: nunc-opt %s --nunc-fuse-attention -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 3 -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --random-inputs --seed 3 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p)['y'] for p in sys.argv[1:]); np.testing.assert_array_equal(b, a); d = np.abs(c - a); assert d.max() <= 1 / 128 + 1e-6, d.max(); assert (d == 0).mean() >= 0.9, (d == 0).mean(); assert np.allclose(np.round(c * 128), c * 128), 'not on the output grid'" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK: nunc.attention {{.*}} mask {{.*}}logits_quantization{{.*}}output_quantization{{.*}}probs_quantization{{.*}}scaled_quantization{{.*}}scores_quantization
// CHECK-NOT: nunc.softmax
// CHECK-NOT: nunc.fake_quantize
func.func @main(%q: tensor<2x7x32xf32> {nunc.name = "q"}, %k: tensor<2x9x32xf32> {nunc.name = "k"}, %v: tensor<2x9x32xf32> {nunc.name = "v"}, %mask: tensor<2x1x1x9xf32> {nunc.name = "mask"}) -> (tensor<2x7x32xf32> {nunc.name = "y"}) {
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
  return %out : tensor<2x7x32xf32>
}
