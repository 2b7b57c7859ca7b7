// fake_quantize computes what the Quantize/DequantizeLinear pair computes,
// bit for bit, and the gathered-then-dequantized embedding what the
// dequantized-then-gathered one does: the reference evaluator runs both
// forms on the same random inputs, and the compiled forms (xbyak
// fake_quantize kernel, generic dequantize) on the host must agree too.
// RUN: nunc-opt %s --nunc-fuse-quantize-dequantize -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// x holds the odd multiples of 3/256 in (-1.54, 1.54): with the steps 1/128
// and 3/128 every one of them is a tie (round half to even decides), and the
// u8 grid saturates on both sides.
// RUN: %python -c "import sys, numpy as np; np.savez(sys.argv[1], x=((2 * np.arange(133, dtype=np.float32) - 133) * 3 / 256).reshape(7, 19), ids=np.array([5, 0, 3]))" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --input %t.in.npz -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --input %t.in.npz -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(x[k], a[k]) for x in (b, c) for k in a.files]" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK-COUNT-3: nunc.fake_quantize
// CHECK-NOT: nunc.quantize_linear
func.func @main(%x: tensor<7x19xf32> {nunc.name = "x"}, %ids: tensor<3xi64> {nunc.name = "ids"}) -> (tensor<7x19xf32> {nunc.name = "u8"}, tensor<7x19xf32> {nunc.name = "s8"}, tensor<7x19xf32> {nunc.name = "narrow"}, tensor<3x4xf32> {nunc.name = "rows"}) {
  %s = nunc.constant dense<0.0078125> : tensor<f32>
  %zp = nunc.constant dense<100> : tensor<ui8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<7x19xf32>, tensor<f32> -> tensor<7x19xui8>
  %u8 = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<7x19xui8>, tensor<f32> -> tensor<7x19xf32>
  %s2 = nunc.constant dense<0.0234375> : tensor<f32>
  %q2 = nunc.quantize_linear %x, %s2 {output_element_type = i8} : tensor<7x19xf32>, tensor<f32> -> tensor<7x19xi8>
  %s8 = nunc.dequantize_linear %q2, %s2 : tensor<7x19xi8>, tensor<f32> -> tensor<7x19xf32>
  %s3 = nunc.constant dense<0.1> : tensor<f32>
  %zp3 = nunc.constant dense<-3> : tensor<i8>
  %q3 = nunc.quantize_linear %x, %s3, %zp3 : tensor<i8> {output_element_type = i8} : tensor<7x19xf32>, tensor<f32> -> tensor<7x19xi8>
  %narrow = nunc.dequantize_linear %q3, %s3, %zp3 : tensor<i8> : tensor<7x19xi8>, tensor<f32> -> tensor<7x19xf32>
  %t = nunc.constant dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -128], [127, 0, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10]]> : tensor<6x4xi8>
  %ts = nunc.constant dense<0.25> : tensor<f32>
  %tz = nunc.constant dense<2> : tensor<i8>
  %d = nunc.dequantize_linear %t, %ts, %tz : tensor<i8> : tensor<6x4xi8>, tensor<f32> -> tensor<6x4xf32>
  %rows = nunc.gather %d, %ids : (tensor<6x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %u8, %s8, %narrow, %rows : tensor<7x19xf32>, tensor<7x19xf32>, tensor<7x19xf32>, tensor<3x4xf32>
}
