// quantize_dynamic's MatMul with u8 weights (weight_type QUInt8) on a
// target whose int8 GEMM takes them (`u8-weights`): quantized_linear with
// the codes as a !quant.uniform<u8...> weight (its bytes as signless i8, as
// quant.scast takes them) and their zero points, per column (y), per
// tensor (z), or per column with one scale (u: per axis, the scale
// repeated). The products are MatMulInteger's integer sums and the scale
// product is rounded once, as the Mul of the original computes it: the
// reference evaluator gives the same outputs before and after, bit for bit,
// and so does the compiled library (the AVX-512 VNNI kernel adds (128 - zw)
// times the rows' code sums, where the host has it).
// RUN: nunc-opt %s --nunc-fuse-linear=u8-weights=true -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc-opt %s --nunc-fuse-linear | FileCheck %s --check-prefix=F32
// RUN: nunc run --reference %s --random-inputs --seed 9 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 9 -o %t.fused.npz
// RUN: nunc run %s --random-inputs --seed 9 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(x[k], a[k], err_msg=k) for x in (b, c) for k in a.files]" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK-LABEL: func.func @main(
// CHECK-DAG: %[[W:.*]] = quant.scast %{{.*}} : tensor<19x5xi8> to tensor<19x5x!quant.uniform<u8:f32:1, {2.500000e-01:120,5.000000e-01:131,1.250000e-01,6.250000e-02:255,2.000000e+00:7}>>
// CHECK-DAG: %[[V:.*]] = quant.scast %{{.*}} : tensor<19x3xi8> to tensor<19x3x!quant.uniform<u8:f32, 3.125000e-02:77>>
// CHECK-DAG: nunc.quantized_linear %arg0, %[[W]] {activation_quantization = "dynamic_per_tensor"}
// CHECK-DAG: nunc.quantized_linear %arg0, %[[V]] {activation_quantization = "dynamic_per_tensor"}
// CHECK-DAG: %[[U:.*]] = quant.scast %{{.*}} : tensor<19x3xi8> to tensor<19x3x!quant.uniform<u8:f32:1, {3.125000e-02:1,3.125000e-02:128,3.125000e-02:254}>>
// CHECK-DAG: nunc.quantized_linear %arg0, %[[U]] {activation_quantization = "dynamic_per_tensor"}
// CHECK-NOT: matmul_integer

// Without the option: f32 MatMuls of the dequantized values.
// F32-COUNT-3: nunc.matmul
// F32-NOT: quantized_linear
func.func @main(%x: tensor<7x19xf32> {nunc.name = "x"}) -> (tensor<7x5xf32> {nunc.name = "y"}, tensor<7x3xf32> {nunc.name = "z"}, tensor<7x3xf32> {nunc.name = "u"}) {
  %w = nunc.constant dense<[[255, 255, 255, 255, 255], [0, 0, 0, 0, 0], [71, 98, 146, 104, 33], [11, 0, 12, 38, 255], [48, 167, 192, 60, 72], [111, 67, 249, 45, 229], [204, 216, 29, 100, 160], [126, 170, 173, 169, 15], [245, 142, 231, 69, 92], [225, 47, 16, 95, 173], [31, 222, 87, 58, 139], [229, 226, 223, 78, 4], [199, 181, 197, 0, 9], [128, 85, 111, 238, 52], [135, 83, 75, 206, 39], [81, 30, 38, 71, 178], [148, 114, 43, 204, 204], [60, 15, 81, 37, 204], [133, 129, 74, 129, 247]]> : tensor<19x5xui8>
  %wzp = nunc.constant dense<[120, 131, 0, 255, 7]> : tensor<5xui8>
  %ws = nunc.constant dense<[0.25, 0.5, 0.125, 0.0625, 2.0]> : tensor<5xf32>
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<7x19xf32> -> tensor<7x19xui8>, tensor<f32>, tensor<ui8>
  %scale = nunc.mul %s, %ws : (tensor<f32>, tensor<5xf32>) -> tensor<5xf32>
  %acc = nunc.matmul_integer %q, %w a_zero_point %zp : tensor<ui8> b_zero_point %wzp : tensor<5xui8> : tensor<7x19xui8>, tensor<19x5xui8> -> tensor<7x5xi32>
  %f = nunc.cast %acc {to = f32} : tensor<7x5xi32> -> tensor<7x5xf32>
  %y = nunc.mul %f, %scale : (tensor<7x5xf32>, tensor<5xf32>) -> tensor<7x5xf32>
  %v = nunc.constant dense<[[60, 196, 3], [80, 238, 223], [21, 215, 216], [116, 94, 250], [243, 173, 102], [53, 239, 68], [142, 172, 61], [80, 189, 50], [172, 241, 175], [165, 118, 247], [56, 91, 164], [167, 27, 41], [177, 215, 162], [238, 96, 84], [204, 10, 49], [49, 99, 40], [204, 216, 97], [7, 182, 27], [156, 43, 240]]> : tensor<19x3xui8>
  %vzp = nunc.constant dense<77> : tensor<ui8>
  %vs = nunc.constant dense<0.03125> : tensor<f32>
  %vscale = nunc.mul %s, %vs : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %acc2 = nunc.matmul_integer %q, %v a_zero_point %zp : tensor<ui8> b_zero_point %vzp : tensor<ui8> : tensor<7x19xui8>, tensor<19x3xui8> -> tensor<7x3xi32>
  %f2 = nunc.cast %acc2 {to = f32} : tensor<7x3xi32> -> tensor<7x3xf32>
  %z = nunc.mul %f2, %vscale : (tensor<7x3xf32>, tensor<f32>) -> tensor<7x3xf32>
  %uzp = nunc.constant dense<[1, 128, 254]> : tensor<3xui8>
  %acc3 = nunc.matmul_integer %q, %v a_zero_point %zp : tensor<ui8> b_zero_point %uzp : tensor<3xui8> : tensor<7x19xui8>, tensor<19x3xui8> -> tensor<7x3xi32>
  %f3 = nunc.cast %acc3 {to = f32} : tensor<7x3xi32> -> tensor<7x3xf32>
  %u = nunc.mul %f3, %vscale : (tensor<7x3xf32>, tensor<f32>) -> tensor<7x3xf32>
  return %y, %z, %u : tensor<7x5xf32>, tensor<7x3xf32>, tensor<7x3xf32>
}
