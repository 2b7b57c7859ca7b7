// The QuantizeLinear(quantized_linear(...)) that replaces a QLinearMatMul
// gives QLinearMatMul's u8 result up to one unit on near-ties (QLinearMatMul
// requantizes with sa*sW/sy in one step, the rewrite rounds the f32 product
// first): the reference evaluator runs both forms on the same inputs.
// RUN: nunc-opt %s --nunc-fuse-linear -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 5 --int-range 0:256 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 5 --int-range 0:256 -o %t.fused.npz
// RUN: %python -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); d = np.abs(a['y'].astype(int) - b['y'].astype(int)); assert d.max() <= 1 and (d > 0).mean() < 0.05, d; assert len(np.unique(a['y'])) > 20" %t.ref.npz %t.fused.npz

// CHECK: nunc.quantized_linear
// CHECK-NOT: nunc.qlinear_matmul
func.func @main(%a: tensor<9x24xui8> {nunc.name = "a"}) -> (tensor<9x17xui8> {nunc.name = "y"}) {
  %wt = nunc.constant dense<[[-128, -107, -83, -68, -82, 77, 94, 21, -118, -104, -43, -18, 31, -6, -61, -88, 49], [60, 127, -99, -13, -28, 99, 4, -21, -18, 42, 22, -84, 60, 65, 116, 73, -56], [-47, 38, 38, 50, 94, -54, 112, -128, -109, 121, 113, -52, -93, -48, -117, 100, 41], [21, -66, -8, -80, 69, -7, -121, -63, 52, 5, -33, -64, -105, 27, 41, 5, 110], [109, -75, 27, 33, -65, -52, -4, 61, -54, 56, 39, -73, -29, 84, 87, 40, -127], [46, -71, 81, 105, -19, 116, 66, -45, 96, -30, -102, 23, 89, 40, -28, 102, -6], [-30, -91, -74, 50, 76, -54, 32, 95, -91, -58, 6, 15, -27, -26, -95, 28, 110], [-78, 76, -82, -117, 63, -82, 64, -44, 17, 112, 107, -7, -76, -64, 89, 22, -85], [98, 118, 120, 31, 121, 27, 0, 120, 26, 73, -42, 74, 121, -115, 9, -34, -115], [-107, -60, -79, 55, -74, 32, 91, -2, -96, -111, -53, -23, -2, -50, 89, 17, 119], [111, 53, -121, -74, 63, 11, 113, 52, 81, -115, -53, 46, 34, -34, -88, 22, -106], [43, 77, 43, -112, 5, -51, 14, 46, -78, -119, -2, 30, -96, 108, -5, 119, 9], [58, 70, -1, -28, 42, -123, 30, 7, -90, -76, -120, 61, 47, -29, 116, -31, -50], [104, -107, -28, -122, -39, 57, -39, -2, -5, -113, -105, -52, 11, -110, 107, 90, 16], [59, 62, -126, 114, -116, 87, 85, 62, -94, 80, 117, 81, 49, -64, 13, -5, 94], [-41, -24, -61, -3, 18, -11, -47, 12, 30, -86, 21, 52, -102, 30, -15, 110, -29], [-48, 52, 94, -106, -101, -85, -41, 3, 17, -25, 97, 42, -86, -43, -78, -78, 88], [110, -18, -66, 85, -91, -93, -57, -35, -42, -57, -71, 32, 9, 40, 111, 111, -96], [74, -22, 81, 43, -114, 98, 109, 127, -113, -92, 33, 9, -104, 97, -68, -115, 92], [22, -122, -84, 97, 68, 93, 112, -52, 9, -34, -126, -68, -112, -98, -22, 106, 88], [36, -68, -96, 43, 60, -25, -94, -61, 124, 52, 16, -50, 92, -33, -14, 67, -22], [-2, -121, 72, -56, 4, 12, -88, -67, -15, -103, 95, -40, 16, -91, 118, -8, -128], [-40, -41, -68, 68, 123, 47, -81, 15, -10, 41, 86, 96, 78, 46, -12, 12, -83], [15, 3, 42, -9, -46, 2, 43, -79, 29, -39, 73, 23, -6, -119, -122, -67, 9]]> : tensor<24x17xi8>
  %wzp = nunc.constant dense<0> : tensor<i8>
  %ws = nunc.constant dense<0.0037> : tensor<f32>
  %s = nunc.constant dense<0.021> : tensor<f32>
  %zp = nunc.constant dense<131> : tensor<ui8>
  %ys = nunc.constant dense<0.043> : tensor<f32>
  %yzp = nunc.constant dense<120> : tensor<ui8>
  %y = nunc.qlinear_matmul %a, %s, %zp, %wt, %ws, %wzp, %ys, %yzp : (tensor<9x24xui8>, tensor<f32>, tensor<ui8>, tensor<24x17xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<9x17xui8>
  return %y : tensor<9x17xui8>
}
