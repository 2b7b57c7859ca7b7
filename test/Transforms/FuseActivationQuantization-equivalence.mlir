// Handing u8 activations from GEMM to GEMM computes what quantizing each
// GEMM's f32 input does: the reference evaluator gives identical outputs
// before and after the pass (a shared quantize, a GELU producer writing u8,
// a producer whose output grid is the next input grid, as in QDQ models,
// GEMMs with u8 weights reading u8 rows).
// RUN: nunc-opt %s --nunc-fuse-activation-quantization -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 5 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 5 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); [np.testing.assert_array_equal(a[k], b[k], err_msg=k) for k in ('q', 'k', 'y', 'u')]" %t.ref.npz %t.fused.npz
// The compiled library (the host's int8 kernels, which run this pass
// themselves) agrees; the GELU approximation may move a value across a
// rounding point, hence the tolerance (the kernel tests are exact).
// RUN: nunc run %s --random-inputs --seed 5 -o %t.compiled.npz
// RUN: %python -c "import sys, numpy as np; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); [np.testing.assert_allclose(b[k], a[k], rtol=0, atol=0.05, err_msg=k) for k in ('q', 'k', 'y', 'u')]" %t.ref.npz %t.compiled.npz

// CHECK: nunc.quantize %
// CHECK-NOT: nunc.quantize %
// CHECK-COUNT-3: u8_output
// CHECK-NOT: input_quantization
func.func @main(%x: tensor<5x8xf32> {nunc.name = "x"}) -> (tensor<5x4xf32> {nunc.name = "q"}, tensor<5x4xf32> {nunc.name = "k"}, tensor<5x8xf32> {nunc.name = "y"}, tensor<5x8xf32> {nunc.name = "u"}) {
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
  return %q, %k, %y, %u : tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x8xf32>, tensor<5x8xf32>
}
