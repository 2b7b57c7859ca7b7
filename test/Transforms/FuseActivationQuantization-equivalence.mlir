// Handing u8 activations from GEMM to GEMM computes what quantizing each
// GEMM's f32 input does: the reference evaluator gives identical outputs
// before and after the pass (a shared quantize, a GELU producer writing u8,
// a producer whose output grid is the next input grid, as in QDQ models,
// GEMMs with u8 weights reading u8 rows, an attention writing the codes of
// the output projection's input).
// RUN: nunc-opt %s --nunc-fuse-activation-quantization -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 5 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 5 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); [np.testing.assert_array_equal(a[k], b[k], err_msg=k) for k in ('q', 'k', 'y', 'u', 'a')]" %t.ref.npz %t.fused.npz
// The compiled library (the host's int8 kernels, which run this pass
// themselves) agrees; the GELU approximation may move a value across a
// rounding point, hence the tolerance (the kernel tests are exact but at
// rounding ties after an approximated activation).
// RUN: nunc run %s --random-inputs --seed 5 -o %t.compiled.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); [np.testing.assert_allclose(b[k], a[k], rtol=0, atol=0.05, err_msg=k) for k in ('q', 'k', 'y', 'u', 'a')]" %t.ref.npz %t.compiled.npz

// CHECK: nunc.quantize %
// CHECK-NOT: nunc.quantize %
// CHECK-COUNT-3: u8_output
// CHECK: nunc.attention {{.*}} u8_output
// CHECK-NOT: input_quantization
func.func @main(%x: tensor<5x8xf32> {nunc.name = "x"}, %xa: tensor<1x5x32xf32> {nunc.name = "xa"}, %m: tensor<1x5xf32> {nunc.name = "m"}) -> (tensor<5x4xf32> {nunc.name = "q"}, tensor<5x4xf32> {nunc.name = "k"}, tensor<5x8xf32> {nunc.name = "y"}, tensor<5x8xf32> {nunc.name = "u"}, tensor<1x5x8xf32> {nunc.name = "a"}) {
  %i = nunc.constant dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, -14, 15, 16], [1, 2, 3, 4], [-5, 6, 7, 8], [9, -10, 11, 12], [13, 14, -15, 16]]> : tensor<8x4xi8>
  %w = quant.scast %i : tensor<8x4xi8> to tensor<8x4x!quant.uniform<i8:f32:1, {0.05, 0.025, 0.0125, 0.1}>>
  %sq = nunc.constant dense<[[1, -2, 3, 4, 5, 6, -7, 8], [9, 10, 11, -12, 13, -14, 15, 16], [1, 2, 3, 4, -5, 6, 7, 8], [9, -10, 11, 12, 13, 14, -15, 16], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, -2, 2, 2, 2], [3, 3, -3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, -4, 4, 4]]> : tensor<8x8xi8>
  %ws = quant.scast %sq : tensor<8x8xi8> to tensor<8x8x!quant.uniform<i8:f32, 0.03>>
  %b = nunc.constant dense<[0.5, -0.25, 0.125, 1.0, -1.0, 0.0, 2.0, 0.75]> : tensor<8xf32>
  %q = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.015:128>} : tensor<5x8xf32>, tensor<8x4x!quant.uniform<i8:f32:1, {0.05, 0.025, 0.0125, 0.1}>> -> tensor<5x4xf32>
  %k = nunc.quantized_linear %x, %w {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.015:128>, activation = "relu"} : tensor<5x8xf32>, tensor<8x4x!quant.uniform<i8:f32:1, {0.05, 0.025, 0.0125, 0.1}>> -> tensor<5x4xf32>
  %h = nunc.quantized_linear %x, %ws bias %b : tensor<8xf32> {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.015:128>, activation = "gelu"} : tensor<5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.03>> -> tensor<5x8xf32>
  %g = nunc.quantized_linear %h, %ws residual %x : tensor<5x8xf32> {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.01:20>, output_quantization = !quant.uniform<u8:f32, 0.02:100>} : tensor<5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.03>> -> tensor<5x8xf32>
  %y = nunc.quantized_linear %g, %ws {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.02:100>} : tensor<5x8xf32>, tensor<8x8x!quant.uniform<i8:f32, 0.03>> -> tensor<5x8xf32>
  %iu = nunc.constant dense<[[1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15, 16], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4, 4, 4], [-56, 5, 5, 5, 5, 5, 5, 5], [6, 6, 6, 6, 6, 6, 6, -1]]> : tensor<8x8xi8>
  %wu = quant.scast %iu : tensor<8x8xi8> to tensor<8x8x!quant.uniform<u8:f32, 0.01:3>>
  %u1 = nunc.quantized_linear %x, %wu {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.015:128>, output_quantization = !quant.uniform<u8:f32, 0.02:90>} : tensor<5x8xf32>, tensor<8x8x!quant.uniform<u8:f32, 0.01:3>> -> tensor<5x8xf32>
  %u = nunc.quantized_linear %u1, %wu {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.02:90>} : tensor<5x8xf32>, tensor<8x8x!quant.uniform<u8:f32, 0.01:3>> -> tensor<5x8xf32>
  %att = nunc.attention %xa, %xa, %xa mask %m : tensor<1x5xf32> {num_heads = 2 : i64, scale = 0.25 : f32} : tensor<1x5x32xf32>, tensor<1x5x32xf32>, tensor<1x5x32xf32> -> tensor<1x5x32xf32>
  %ia = nunc.constant dense<[[13, -17, -13, -11, -13, 12, 15, 3], [-19, -17, -7, -3, 5, -1, -10, -14], [8, 10, -19, -16, -2, -4, 16, 1], [-3, -3, 7, 4, -13, 10, 11, 19], [12, -9, -7, 6, 6, 8, 15, -8], [18, -20, -17, 19, 18, -8, -15, -8], [-19, 16, 7, 3, -10, -1, -13, 11], [-1, -19, -10, 8, 1, -5, -10, -17], [4, 7, 1, 18, 18, -12, 4, 5], [-10, -8, -1, 10, -9, 9, 6, -12], [-5, 14, 14, 6, -20, 7, -11, 13], [17, -3, 19, 11, -7, 16, -5, -16], [4, 14, 6, -4, 16, -1, -5, -15], [-12, 8, 12, -9, 5, 15, -14, -9], [1, 3, -4, -4, -15, 5, 18, -12], [12, -13, -19, 10, -13, 10, -7, 3], [18, 17, -1, -12, -10, 14, 4, -14], [16, 19, 19, 5, 20, 4, 0, 19], [4, 12, -7, 12, 19, -18, 1, -5], [-18, -17, -9, -13, 9, -12, 5, 15], [0, -15, -18, -8, -4, 0, -8, 14], [3, 19, 18, 9, -19, -12, 10, 2], [18, 8, 13, -18, -8, 7, 5, -5], [-14, 4, -17, 7, 12, 7, -18, 1], [-8, 2, 7, -12, -19, 0, 5, -15], [17, -1, 19, 1, 9, 11, 0, -4], [7, -20, 5, 1, -14, -12, -19, 10], [8, -5, 19, -5, -8, 17, -17, -4], [-20, -6, 9, -6, 0, -1, -18, -17], [-8, 2, -18, 17, 15, 3, 9, 10], [-20, 18, -19, 14, 14, 10, -15, 13], [19, 13, 8, -10, 2, -1, 15, -6]]> : tensor<32x8xi8>
  %wa = quant.scast %ia : tensor<32x8xi8> to tensor<32x8x!quant.uniform<i8:f32, 0.02>>
  %a = nunc.quantized_linear %att, %wa {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 0.01:120>} : tensor<1x5x32xf32>, tensor<32x8x!quant.uniform<i8:f32, 0.02>> -> tensor<1x5x8xf32>
  return %q, %k, %y, %u, %a : tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x8xf32>, tensor<5x8xf32>, tensor<1x5x8xf32>
}
