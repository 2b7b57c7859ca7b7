// quantize_dynamic's convolution with u8 weights (weight_type QUInt8: zero
// points per output channel (y) or per tensor (z), scales per channel
// [M, 1, 1] or per tensor) becomes a quantized_conv of a
// !quant.uniform<u8...> weight (its bytes as signless i8, as quant.scast
// takes them) with its zero points: ConvInteger's integer sums and the same
// rounding of the scale product, so the reference evaluator's outputs for
// both forms are identical, and so are the compiled library's (the AVX-512
// VNNI convolution adds (128 - zw) times each position's code sum, where the
// host has it). What the int8 convolution cannot take becomes a Conv of the
// dequantized activations and weights, summed in f32 (agreeing to float
// rounding): groups (g) and K = 4 ceil(C / 4) kh kw of 2^14 or more (big: C
// 1824, 3x3: K 16416; fits: C 1820, K 16380). With int8=false (targets
// without int8 convolutions) every one does.
// RUN: nunc-opt %s --nunc-fuse-conv -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc-opt %s --nunc-fuse-conv=int8=false | FileCheck %s --check-prefix=NOINT8
// RUN: nunc run --reference %s --random-inputs --seed 3 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 3 -o %t.fused.npz
// RUN: nunc run %s --random-inputs --seed 3 -o %t.jit.npz
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_array_equal(x[k], a[k], err_msg=k) for x in (b, c) for k in ('y', 'z', 'fits')]; [np.testing.assert_allclose(x[k], a[k], rtol=1e-5, atol=1e-5 * np.abs(a[k]).max(), err_msg=k) for x in (b, c) for k in ('g', 'big')]" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK-LABEL: func.func @main(
// CHECK-DAG: %[[W:.*]] = quant.scast %{{.*}} : tensor<2x3x3x3xi8> to tensor<2x3x3x3x!quant.uniform<u8:f32:0, {6.250000e-02:120,1.562500e-02:131}>>
// CHECK-DAG: nunc.quantized_conv %arg0, %[[W]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK-DAG: %[[V:.*]] = quant.scast %{{.*}} : tensor<2x3x3x3xi8> to tensor<2x3x3x3x!quant.uniform<u8:f32, 3.125000e-02:255>>
// CHECK-DAG: nunc.quantized_conv %arg0, %[[V]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK-DAG: nunc.quantized_conv %arg2, %{{.*}} : tensor<1x1820x3x3xf32>, tensor<1x1820x3x3x!quant.uniform<u8:f32, 2.500000e-01:7>>
// CHECK-DAG: nunc.conv %{{.*}}, %{{.*}} {{{.*}}group = 3 : i64
// CHECK-DAG: %[[B:.*]] = nunc.dynamic_fake_quantize %arg1 : tensor<1x1824x3x3xf32> -> tensor<1x1824x3x3xf32>
// CHECK-DAG: nunc.conv %[[B]], %{{.*}} : tensor<1x1824x3x3xf32>, tensor<1x1824x3x3xf32>
// CHECK-NOT: nunc.conv_integer

// NOINT8-LABEL: func.func @main(
// NOINT8-COUNT-5: nunc.conv %{{.*}}, %{{.*}} {{.*}}
// NOINT8-NOT: nunc.conv_integer
// NOINT8-NOT: nunc.quantized_conv
func.func @main(%x: tensor<1x3x5x6xf32> {nunc.name = "x"}, %bx: tensor<1x1824x3x3xf32> {nunc.name = "bx"}, %fx: tensor<1x1820x3x3xf32> {nunc.name = "fx"}) -> (tensor<1x2x5x6xf32> {nunc.name = "y"}, tensor<1x2x3x3xf32> {nunc.name = "z"}, tensor<1x3x5x6xf32> {nunc.name = "g"}, tensor<1x1x1x1xf32> {nunc.name = "big"}, tensor<1x1x1x1xf32> {nunc.name = "fits"}) {
  %q, %s, %zp = nunc.dynamic_quantize_linear %x : tensor<1x3x5x6xf32> -> tensor<1x3x5x6xui8>, tensor<f32>, tensor<ui8>
  %w = nunc.constant dense<[[[[1, 200, 3], [4, 255, 6], [0, 8, 9]], [[10, 11, 12], [13, 140, 15], [16, 17, 180]], [[19, 20, 21], [22, 230, 24], [25, 26, 27]]],
                            [[[127, 128, 3], [0, 5, 6], [7, 8, 9]], [[1, 1, 1], [1, 1, 1], [1, 1, 1]], [[2, 4, 8], [16, 32, 64], [64, 32, 16]]]]> : tensor<2x3x3x3xui8>
  %wzp = nunc.constant dense<[120, 131]> : tensor<2xui8>
  %wsc = nunc.constant dense<[[[0.0625]], [[0.015625]]]> : tensor<2x1x1xf32>
  %scale = nunc.mul %wsc, %s : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %acc = nunc.conv_integer %q, %w input_zero_point %zp : tensor<ui8> weight_zero_point %wzp : tensor<2xui8> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x5x6xui8>, tensor<2x3x3x3xui8> -> tensor<1x2x5x6xi32>
  %accf = nunc.cast %acc {to = f32} : tensor<1x2x5x6xi32> -> tensor<1x2x5x6xf32>
  %y = nunc.mul %accf, %scale : (tensor<1x2x5x6xf32>, tensor<2x1x1xf32>) -> tensor<1x2x5x6xf32>
  %vzp = nunc.constant dense<255> : tensor<ui8>
  %vs = nunc.constant dense<0.03125> : tensor<f32>
  %vscale = nunc.mul %s, %vs : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %acc2 = nunc.conv_integer %q, %w input_zero_point %zp : tensor<ui8> weight_zero_point %vzp : tensor<ui8> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x3x5x6xui8>, tensor<2x3x3x3xui8> -> tensor<1x2x3x3xi32>
  %acc2f = nunc.cast %acc2 {to = f32} : tensor<1x2x3x3xi32> -> tensor<1x2x3x3xf32>
  %z = nunc.mul %acc2f, %vscale : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %gw = nunc.constant dense<[[[[1, 200, 3], [4, 255, 6], [0, 8, 9]]], [[[10, 11, 12], [13, 140, 15], [16, 17, 180]]], [[[19, 20, 21], [22, 230, 24], [25, 26, 27]]]]> : tensor<3x1x3x3xui8>
  %gzp = nunc.constant dense<100> : tensor<ui8>
  %acc3 = nunc.conv_integer %q, %gw input_zero_point %zp : tensor<ui8> weight_zero_point %gzp : tensor<ui8> {dilations = array<i64: 1, 1>, group = 3 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x5x6xui8>, tensor<3x1x3x3xui8> -> tensor<1x3x5x6xi32>
  %acc3f = nunc.cast %acc3 {to = f32} : tensor<1x3x5x6xi32> -> tensor<1x3x5x6xf32>
  %g = nunc.mul %acc3f, %vscale : (tensor<1x3x5x6xf32>, tensor<f32>) -> tensor<1x3x5x6xf32>
  %bw = nunc.constant dense<200> : tensor<1x1824x3x3xui8>
  %fw = nunc.constant dense<200> : tensor<1x1820x3x3xui8>
  %bzp = nunc.constant dense<7> : tensor<ui8>
  %bs = nunc.constant dense<0.25> : tensor<f32>
  %bq, %bsx, %bzx = nunc.dynamic_quantize_linear %bx : tensor<1x1824x3x3xf32> -> tensor<1x1824x3x3xui8>, tensor<f32>, tensor<ui8>
  %bscale = nunc.mul %bsx, %bs : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %acc4 = nunc.conv_integer %bq, %bw input_zero_point %bzx : tensor<ui8> weight_zero_point %bzp : tensor<ui8> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1824x3x3xui8>, tensor<1x1824x3x3xui8> -> tensor<1x1x1x1xi32>
  %acc4f = nunc.cast %acc4 {to = f32} : tensor<1x1x1x1xi32> -> tensor<1x1x1x1xf32>
  %big = nunc.mul %acc4f, %bscale : (tensor<1x1x1x1xf32>, tensor<f32>) -> tensor<1x1x1x1xf32>
  %fq, %fsx, %fzx = nunc.dynamic_quantize_linear %fx : tensor<1x1820x3x3xf32> -> tensor<1x1820x3x3xui8>, tensor<f32>, tensor<ui8>
  %fscale = nunc.mul %fsx, %bs : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %acc5 = nunc.conv_integer %fq, %fw input_zero_point %fzx : tensor<ui8> weight_zero_point %bzp : tensor<ui8> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1820x3x3xui8>, tensor<1x1820x3x3xui8> -> tensor<1x1x1x1xi32>
  %acc5f = nunc.cast %acc5 {to = f32} : tensor<1x1x1x1xi32> -> tensor<1x1x1x1xf32>
  %fits = nunc.mul %acc5f, %fscale : (tensor<1x1x1x1xf32>, tensor<f32>) -> tensor<1x1x1x1xf32>
  return %y, %z, %g, %big, %fits : tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>, tensor<1x3x5x6xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>
}
