// The u8 (u16) codes compute what the s8 (s16) codes did, bit for bit:
// the reference evaluator runs both forms on inputs whose every element is
// a rounding tie, and that saturate both grids at both ends.
// RUN: nunc-opt %s --nunc-unsign-quantize-dequantize -o %t.unsigned.mlir
// RUN: FileCheck %s --input-file %t.unsigned.mlir
// RUN: %python -c "import sys, numpy as np; np.savez(sys.argv[1], x=((2 * np.arange(133, dtype=np.float32) - 133) * 3 / 256).reshape(7, 19))" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run --reference %t.unsigned.mlir --input %t.in.npz -o %t.unsigned.npz
// RUN: nunc run %t.unsigned.mlir --input %t.in.npz -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(x[k], a[k]) for x in (b, c) for k in a.files]; assert all(len(np.unique(a[k])) > 20 for k in a.files)" %t.ref.npz %t.unsigned.npz %t.jit.npz

// CHECK-NOT: xi8>
// CHECK-NOT: xi16>
func.func @main(%x: tensor<7x19xf32> {nunc.name = "x"}) -> (tensor<7x19xf32> {nunc.name = "s8"}, tensor<7x19xf32> {nunc.name = "narrow"}, tensor<7x19xf32> {nunc.name = "s16"}) {
  %s = nunc.constant dense<0.0234375> : tensor<f32>
  %z = nunc.constant dense<-20> : tensor<i8>
  %q = nunc.quantize_linear %x, %s, %z : tensor<i8> {output_element_type = i8} : tensor<7x19xf32>, tensor<f32> -> tensor<7x19xi8>
  %s8 = nunc.dequantize_linear %q, %s, %z : tensor<i8> : tensor<7x19xi8>, tensor<f32> -> tensor<7x19xf32>
  %s2 = nunc.constant dense<0.0078125> : tensor<f32>
  %z2 = nunc.constant dense<0> : tensor<i8>
  %q2 = nunc.quantize_linear %x, %s2, %z2 : tensor<i8> {output_element_type = i8} : tensor<7x19xf32>, tensor<f32> -> tensor<7x19xi8>
  %narrow = nunc.dequantize_linear %q2, %s2, %z2 : tensor<i8> : tensor<7x19xi8>, tensor<f32> -> tensor<7x19xf32>
  %s3 = nunc.constant dense<0.0000457763671875> : tensor<f32>
  %z3 = nunc.constant dense<-300> : tensor<i16>
  %q3 = nunc.quantize_linear %x, %s3, %z3 : tensor<i16> {output_element_type = i16} : tensor<7x19xf32>, tensor<f32> -> tensor<7x19xi16>
  %s16 = nunc.dequantize_linear %q3, %s3, %z3 : tensor<i16> : tensor<7x19xi16>, tensor<f32> -> tensor<7x19xf32>
  return %s8, %narrow, %s16 : tensor<7x19xf32>, tensor<7x19xf32>, tensor<7x19xf32>
}
