// RUN: nunc-opt %s --nunc-fuse-elementwise-quantization -o %t.fused.mlir
// RUN: %python -c "import sys, numpy as np; r = np.random.default_rng(3); np.savez(sys.argv[1], x=r.uniform(-3, 3, (2, 8, 5)).astype(np.float32), y=r.uniform(0.5, 3, (2, 8, 5)).astype(np.float32))" %t.in.npz
// RUN: nunc run --reference %s --input %t.in.npz -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --input %t.in.npz -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --input %t.in.npz -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(b[k], a[k], err_msg=k) for k in a.files]; [np.testing.assert_array_equal(c[k], a[k], err_msg=k) for k in a.files]; assert len(np.unique(a['add'])) > 20 and (a['add'] == 255 * 0.02 - 128 * 0.02).any(), 'the grid saturates'" %t.ref.npz %t.fused.npz %t.jit.npz
// RUN: FileCheck %s --input-file %t.fused.mlir

// The Q/DQ pair (fake_quantize) after an Add, Sub, Mul or Div (broadcast
// operands too) becomes the op's output_quantization; the results are the
// same bits, from the evaluator and the compiled x86 elementwise kernel.

// CHECK-LABEL: func.func @main(
// CHECK-NEXT: %[[C:.*]] = nunc.constant
// CHECK-NEXT: %[[A:.*]] = nunc.add %arg0, %arg1 {output_quantization = !quant.uniform<u8:f32, 2.000000e-02:128>}
// CHECK-NEXT: %[[S:.*]] = nunc.sub %[[A]], %[[C]] {output_quantization = !quant.uniform<i8:f32, 1.500000e-02>}
// CHECK-NEXT: %[[M:.*]] = nunc.mul %[[S]], %arg1 {output_quantization = !quant.uniform<u8:f32, 5.000000e-02:7>}
// CHECK-NEXT: %[[D:.*]] = nunc.div %[[M]], %arg1 {output_quantization = !quant.uniform<u8:f32, 3.000000e-02:100>}
// CHECK-NEXT: return %[[A]], %[[D]]
func.func @main(%x: tensor<2x8x5xf32> {nunc.name = "x"}, %y: tensor<2x8x5xf32> {nunc.name = "y"}) -> (tensor<2x8x5xf32> {nunc.name = "add"}, tensor<2x8x5xf32> {nunc.name = "div"}) {
  %c = nunc.constant dense<[0.5, -0.25, 1.0, 0.0, 2.0]> : tensor<5xf32>
  %0 = nunc.add %x, %y : (tensor<2x8x5xf32>, tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  %1 = nunc.fake_quantize %0 {quantization = !quant.uniform<u8:f32, 0.02:128>} : tensor<2x8x5xf32> -> tensor<2x8x5xf32>
  %2 = nunc.sub %1, %c : (tensor<2x8x5xf32>, tensor<5xf32>) -> tensor<2x8x5xf32>
  %3 = nunc.fake_quantize %2 {quantization = !quant.uniform<i8:f32, 0.015>} : tensor<2x8x5xf32> -> tensor<2x8x5xf32>
  %4 = nunc.mul %3, %y : (tensor<2x8x5xf32>, tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  %5 = nunc.fake_quantize %4 {quantization = !quant.uniform<u8:f32, 0.05:7>} : tensor<2x8x5xf32> -> tensor<2x8x5xf32>
  %6 = nunc.div %5, %y : (tensor<2x8x5xf32>, tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  %7 = nunc.fake_quantize %6 {quantization = !quant.uniform<u8:f32, 0.03:100>} : tensor<2x8x5xf32> -> tensor<2x8x5xf32>
  return %1, %7 : tensor<2x8x5xf32>, tensor<2x8x5xf32>
}
