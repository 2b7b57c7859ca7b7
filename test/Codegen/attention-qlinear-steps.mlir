// A QDQ model's attention on u8 codes in onnxruntime's steps
// (qlinear_arithmetic): QLinearMatMul's one-step codes for Q K^T, the
// model's Div by sqrt(32) between the scores' and the scaled scores' pairs
// (a grid that does not follow the scores' by a shift: the AVX-512
// kernel's table), QLinearAdd of the mask's codes (%a: one mask row per
// batch, a term row per task; %b: a mask per query row, terms per
// element), QLinearSoftmax's exponential table, f32 row sums in key order
// and factor 254 / sum, QLinearMatMul's codes for P V. 130 keys (rows past
// 128 keys, a tail of 2 lanes). The kernel equals the reference evaluator
// bit for bit.
// REQUIRES: avx512vnni
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 3 -o %t.jit.npz --explain 2>&1 | FileCheck %s
// RUN: %python -c "import sys, numpy as np; a, b = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(a[k], b[k]) for k in ('a', 'b')]; assert all(np.unique(a[k]).size > 50 for k in ('a', 'b')) and (a['a'] != a['b']).mean() > 0.5" %t.ref.npz %t.jit.npz

// CHECK: attention.avx512vnni[B=2 S=7 T=130 H=3 D=32] u8 q k v +mask +5 grids +qlinear steps
// CHECK: attention.avx512vnni[B=2 S=7 T=130 H=3 D=32] u8 q k v +mask +5 grids +qlinear steps

func.func @main(%q: tensor<2x7x96xf32> {nunc.name = "q"}, %k: tensor<2x130x96xf32> {nunc.name = "k"}, %v: tensor<2x130x96xf32> {nunc.name = "v"}, %m: tensor<2x1x1x130xf32> {nunc.name = "m"}, %n: tensor<2x1x7x130xf32> {nunc.name = "n"}) -> (tensor<2x7x96xf32> {nunc.name = "a"}, tensor<2x7x96xf32> {nunc.name = "b"}) {
  %qc = nunc.quantize %q {quantization = !quant.uniform<u8:f32, 0.01:128>} : tensor<2x7x96xf32> -> tensor<2x7x96x!quant.uniform<u8:f32, 0.01:128>>
  %kc = nunc.quantize %k {quantization = !quant.uniform<u8:f32, 0.012:100>} : tensor<2x130x96xf32> -> tensor<2x130x96x!quant.uniform<u8:f32, 0.012:100>>
  %vc = nunc.quantize %v {quantization = !quant.uniform<u8:f32, 0.008:140>} : tensor<2x130x96xf32> -> tensor<2x130x96x!quant.uniform<u8:f32, 0.008:140>>
  %mq = nunc.fake_quantize %m {quantization = !quant.uniform<u8:f32, 0.02:200>} : tensor<2x1x1x130xf32> -> tensor<2x1x1x130xf32>
  %nq = nunc.fake_quantize %n {quantization = !quant.uniform<u8:f32, 0.02:200>} : tensor<2x1x7x130xf32> -> tensor<2x1x7x130xf32>
  %a = nunc.attention %qc, %kc, %vc mask %mq : tensor<2x1x1x130xf32> {logits_quantization = !quant.uniform<u8:f32, 0.025:180>, mask_quantization = !quant.uniform<u8:f32, 0.02:200>, num_heads = 3 : i64, output_quantization = !quant.uniform<u8:f32, 0.003:128>, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, qlinear_arithmetic, scale = 0.176776692 : f32, scale_divisor = 5.65685415 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0081:125>, scores_quantization = !quant.uniform<u8:f32, 0.04:125>} : tensor<2x7x96x!quant.uniform<u8:f32, 0.01:128>>, tensor<2x130x96x!quant.uniform<u8:f32, 0.012:100>>, tensor<2x130x96x!quant.uniform<u8:f32, 0.008:140>> -> tensor<2x7x96xf32>
  %b = nunc.attention %qc, %kc, %vc mask %nq : tensor<2x1x7x130xf32> {logits_quantization = !quant.uniform<u8:f32, 0.025:180>, mask_quantization = !quant.uniform<u8:f32, 0.02:200>, num_heads = 3 : i64, output_quantization = !quant.uniform<u8:f32, 0.003:128>, probs_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>, qlinear_arithmetic, scale = 0.176776692 : f32, scale_divisor = 5.65685415 : f32, scaled_quantization = !quant.uniform<u8:f32, 0.0081:125>, scores_quantization = !quant.uniform<u8:f32, 0.04:125>} : tensor<2x7x96x!quant.uniform<u8:f32, 0.01:128>>, tensor<2x130x96x!quant.uniform<u8:f32, 0.012:100>>, tensor<2x130x96x!quant.uniform<u8:f32, 0.008:140>> -> tensor<2x7x96xf32>
  return %a, %b : tensor<2x7x96xf32>, tensor<2x7x96xf32>
}
