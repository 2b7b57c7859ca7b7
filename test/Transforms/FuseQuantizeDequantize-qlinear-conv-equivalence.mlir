// A QLinearConv on a u8 graph input, per-channel weight scales, a bias,
// uneven padding and a stride: after the fusion pipeline it is an int8
// convolution that quantizes the dequantized input back exactly (the
// graph's integer input and output still take generic steps). ONNX's QLinearConv scales (sum + B) by
// fl(sx sw / sy) in one step, the int8 form rounds sum fl(sx sw) + b
// first: the u8 results agree up to one unit on near-ties, evaluated and
// compiled.
// RUN: nunc-opt %s --nunc-fuse -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc run --reference %s --random-inputs --seed 3 --int-range 0:256 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 3 --int-range 0:256 -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --random-inputs --seed 3 --int-range 0:256 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p)['y'].astype(int) for p in sys.argv[1:]); d = [np.abs(a - x) for x in (b, c)]; assert all(e.max() <= 1 and (e > 0).mean() < 0.05 for e in d), d; assert len(np.unique(a)) > 40 and 0 < a.min() and a.max() < 255, np.unique(a)" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK-NOT: nunc.qlinear_conv
// CHECK: %[[X:.*]] = nunc.dequantize_linear %arg0
// CHECK: %[[C:.*]] = nunc.quantized_conv %[[X]], %{{.*}} {activation_quantization = "static", {{.*}}input_quantization = !quant.uniform<u8:f32, 0.019999999552965164:117>, {{.*}}pads = array<i64: 1, 0, 0, 2>, strides = array<i64: 2, 1>}
// CHECK: nunc.quantize_linear %[[C]]
// CHECK-NOT: nunc.qlinear_conv
func.func @main(%xq: tensor<1x3x9x8xui8> {nunc.name = "xq"}) -> (tensor<1x7x4x8xui8> {nunc.name = "y"}) {
  %sx = nunc.constant dense<0.02> : tensor<f32>
  %zx = nunc.constant dense<117> : tensor<ui8>
  %w = nunc.constant dense<[[[[-93, -95, 76], [0, 23, 26], [54, -120, -4]], [[-90, -25, 109], [12, -110, 11], [-94, 65, 114]], [[122, 31, 94], [-33, -90, 3], [-14, 42, 126]]], [[[-57, 91, -92], [-39, 73, -64], [43, -10, 3]], [[113, 81, 86], [13, 123, 123], [-93, -75, -49]], [[14, 83, -4], [123, -37, 109], [23, 56, -67]]], [[[23, 77, 99], [94, 119, -95], [71, -8, 47]], [[-57, -124, -106], [121, 101, -50], [-18, -66, -90]], [[91, 44, -108], [-76, 16, 102], [126, -72, 28]]], [[[-119, -83, -76], [-15, -39, 58], [-8, -41, 104]], [[32, 50, 63], [-41, 100, -123], [-49, -87, -126]], [[127, -105, -10], [82, 49, 91], [-114, -1, -119]]], [[[-79, 88, -109], [22, -122, -49], [110, -47, -49]], [[-105, 70, -83], [0, -121, -122], [86, -126, -9]], [[-19, -95, 37], [61, 124, -78], [108, -112, -91]]], [[[25, 94, 101], [61, -121, -21], [78, 7, -79]], [[46, -104, 50], [-123, -36, -53], [112, 58, 40]], [[-2, -54, 90], [114, -72, -65], [-47, -6, -62]]], [[[-24, 122, -34], [112, 1, -41], [111, -16, 70]], [[-47, 127, 63], [96, -117, -100], [-110, 8, -24]], [[122, -65, -84], [88, -50, 62], [-54, 12, -107]]]]> : tensor<7x3x3x3xi8>
  %sw = nunc.constant dense<[0.004769116640090942, 0.005124219227582216, 0.005710010416805744, 0.0025989406276494265, 0.004504520446062088, 0.0025744857266545296, 0.0037725237198174]> : tensor<7xf32>
  %zw = nunc.constant dense<0> : tensor<7xi8>
  %sy = nunc.constant dense<0.08> : tensor<f32>
  %zy = nunc.constant dense<121> : tensor<ui8>
  %b = nunc.constant dense<[1614, -188, 2862, 1853, 3946, -3327, 2592]> : tensor<7xi32>
  %y = nunc.qlinear_conv %xq, %sx, %zx, %w, %sw, %zw, %sy, %zy, %b {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 0, 2>, strides = array<i64: 2, 1>} : (tensor<1x3x9x8xui8>, tensor<f32>, tensor<ui8>, tensor<7x3x3x3xi8>, tensor<7xf32>, tensor<7xi8>, tensor<f32>, tensor<ui8>, tensor<7xi32>) -> tensor<1x7x4x8xui8>
  return %y : tensor<1x7x4x8xui8>
}
