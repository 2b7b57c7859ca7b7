// RUN: nunc-opt %s -split-input-file --nunc-fold-batch-norm | FileCheck %s

// BatchNormalization(Conv(x, W, b)) = Conv(x, W', b') with, per output
// channel c,  s = gamma / sqrt(var + eps),  W'[c] = W[c] * s,
// b'[c] = (b[c] - mean[c]) * s + beta[c].
// The numbers are chosen so that every step is exact in f32.

// eps = 0.25, var = [3.75, 0.75]     -> sqrt(var + eps) = [2, 1]
// gamma = [1, 3]                     -> s = [0.5, 3]
// W = [[1, 2], [3, 4]] (2x2x1x1)     -> W' = [[0.5, 1], [9, 12]]
// b = [1, -1], mean = [2, 0.5], beta = [0.25, 1]
//   -> b' = [(1 - 2) * 0.5 + 0.25, (-1 - 0.5) * 3 + 1] = [-0.25, -3.5]

// CHECK-LABEL: func.func @conv_bias(
// CHECK-SAME: %[[X:.*]]: tensor<1x2x3x3xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}1.000000e+00]]], {{\[\[\[}}9.000000e+00]], {{\[\[}}1.200000e+01]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[-2.500000e-01, -3.500000e+00]> : tensor<2xf32>
// CHECK-NOT: nunc.{{(batch_norm|conv)}}
// CHECK: %[[Y:.*]] = nunc.conv %[[X]], %[[W]], %[[B]] : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
// CHECK-NEXT: return %[[Y]] : tensor<1x2x3x3xf32>
func.func @conv_bias(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = nunc.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = nunc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %gamma = nunc.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %beta = nunc.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %mean = nunc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %var = nunc.constant dense<[3.75, 0.75]> : tensor<2xf32>
  %0 = nunc.conv %x, %w, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %1 = nunc.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}

// -----

// A depthwise conv (group = 2, 2x2 kernel, stride 2, padding) without a
// bias: the folded conv gains one, and keeps every spatial attribute.
// eps = 0, var = [0.25, 16], gamma = [2, -1]   -> s = [4, -0.25]
// W[0] = [1, 2, 3, 4]       -> W'[0] = [4, 8, 12, 16]
// W[1] = [-1, 0.5, 2, -4]   -> W'[1] = [0.25, -0.125, -0.5, 1]
// mean = [1, -2], beta = [0, 0.5]
//   -> b' = [(0 - 1) * 4 + 0, (0 + 2) * -0.25 + 0.5] = [-4, 0]

// CHECK-LABEL: func.func @depthwise_no_bias(
// CHECK-SAME: %[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[\[\[\[}}4.000000e+00, 8.000000e+00], [1.200000e+01, 1.600000e+01]]], {{\[\[\[}}2.500000e-01, -1.250000e-01], [-5.000000e-01, 1.000000e+00]]]]> : tensor<2x1x2x2xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[-4.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-NOT: nunc.{{(batch_norm|conv)}}
// CHECK: %[[Y:.*]] = nunc.conv %[[X]], %[[W]], %[[B]] : tensor<2xf32> {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32> -> tensor<1x2x3x3xf32>
// CHECK-NEXT: return %[[Y]]
func.func @depthwise_no_bias(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32> {
  %w = nunc.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[-1.0, 0.5], [2.0, -4.0]]]]> : tensor<2x1x2x2xf32>
  %gamma = nunc.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %beta = nunc.constant dense<[0.0, 0.5]> : tensor<2xf32>
  %mean = nunc.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %var = nunc.constant dense<[0.25, 16.0]> : tensor<2xf32>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32> -> tensor<1x2x3x3xf32>
  %1 = nunc.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}

// -----

// The default eps (1e-5) is used: W = 2 everywhere, var = [1], gamma = [1],
// mean = 0, beta = 0 -> W' = 2 / sqrt(1.00001) = 1.99999000007..., whose
// nearest f32 prints as 1.999990e+00 (not 2, which it would be without eps);
// b' = 0. The conv's auto_pad is kept.

// CHECK-LABEL: func.func @default_eps(
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<1.999990e+00> : tensor<1x1x2x2xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<0.000000e+00> : tensor<1xf32>
// CHECK-NOT: nunc.{{(batch_norm|conv)}}
// CHECK: nunc.conv %{{.*}}, %[[W]], %[[B]] : tensor<1xf32> {auto_pad = "SAME_UPPER", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x3x3xf32>
// CHECK-NEXT: return
func.func @default_eps(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %w = nunc.constant dense<2.0> : tensor<1x1x2x2xf32>
  %one = nunc.constant dense<1.0> : tensor<1xf32>
  %zero = nunc.constant dense<0.0> : tensor<1xf32>
  %0 = nunc.conv %x, %w {auto_pad = "SAME_UPPER", dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x3x3xf32>
  %1 = nunc.batch_norm %0, %one, %zero, %zero, %one : (tensor<1x1x3x3xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x3x3xf32>
  return %1 : tensor<1x1x3x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Negative cases: the BatchNorm stays.
//===----------------------------------------------------------------------===//

// The conv output has a second use: folding would change that use.

// CHECK-LABEL: func.func @conv_second_use(
// CHECK: %[[C:.*]] = nunc.conv
// CHECK-NEXT: %[[N:.*]] = nunc.batch_norm %[[C]]
// CHECK-NEXT: return %[[N]], %[[C]]
func.func @conv_second_use(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = nunc.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %gamma = nunc.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %beta = nunc.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %mean = nunc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %var = nunc.constant dense<[3.75, 0.75]> : tensor<2xf32>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %1 = nunc.batch_norm %0, %gamma, %beta, %mean, %var : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %1, %0 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// Statistics that are not constants.

// CHECK-LABEL: func.func @stats_not_constant(
// CHECK: nunc.conv
// CHECK-NEXT: nunc.batch_norm
func.func @stats_not_constant(%x: tensor<1x2x3x3xf32>, %mean: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  %w = nunc.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %gamma = nunc.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %beta = nunc.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %var = nunc.constant dense<[3.75, 0.75]> : tensor<2xf32>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %1 = nunc.batch_norm %0, %gamma, %beta, %mean, %var : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}

// -----

// A conv weight that is not a constant.

// CHECK-LABEL: func.func @weight_not_constant(
// CHECK: nunc.conv
// CHECK-NEXT: nunc.batch_norm
func.func @weight_not_constant(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32> {
  %gamma = nunc.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %beta = nunc.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %mean = nunc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %var = nunc.constant dense<[3.75, 0.75]> : tensor<2xf32>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %1 = nunc.batch_norm %0, %gamma, %beta, %mean, %var : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}

// -----

// Something between the conv and the BatchNorm.

// CHECK-LABEL: func.func @relu_between(
// CHECK: nunc.conv
// CHECK-NEXT: nunc.relu
// CHECK-NEXT: nunc.batch_norm
func.func @relu_between(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = nunc.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %gamma = nunc.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %beta = nunc.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %mean = nunc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %var = nunc.constant dense<[3.75, 0.75]> : tensor<2xf32>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %r = nunc.relu %0 : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %1 = nunc.batch_norm %r, %gamma, %beta, %mean, %var : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}

// -----

// Non-f32: an f16 conv with f16 BatchNorm parameters.

// CHECK-LABEL: func.func @not_f32(
// CHECK: nunc.conv
// CHECK-NEXT: nunc.batch_norm
func.func @not_f32(%x: tensor<1x2x3x3xf16>) -> tensor<1x2x3x3xf16> {
  %w = nunc.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf16>
  %gamma = nunc.constant dense<[1.0, 3.0]> : tensor<2xf16>
  %beta = nunc.constant dense<[0.25, 1.0]> : tensor<2xf16>
  %mean = nunc.constant dense<[2.0, 0.5]> : tensor<2xf16>
  %var = nunc.constant dense<[3.75, 0.75]> : tensor<2xf16>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf16>, tensor<2x2x1x1xf16> -> tensor<1x2x3x3xf16>
  %1 = nunc.batch_norm %0, %gamma, %beta, %mean, %var : (tensor<1x2x3x3xf16>, tensor<2xf16>, tensor<2xf16>, tensor<2xf16>, tensor<2xf16>) -> tensor<1x2x3x3xf16>
  return %1 : tensor<1x2x3x3xf16>
}

// -----

// A BN with grids (a QDQ model's Q/DQ pairs around it) rounds the conv's
// output before normalizing: it does not fold.

// CHECK-LABEL: func.func @bn_with_grids_stays(
// CHECK: nunc.conv
// CHECK: nunc.batch_norm {{.*}}input_quantization
func.func @bn_with_grids_stays(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = nunc.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %g = nunc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = nunc.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %m = nunc.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %v = nunc.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %c = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = nunc.batch_norm %c, %g, %b, %m, %v {input_quantization = !quant.uniform<u8:f32, 0.25:8>} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// A Mul and an Add of constants per output channel ([C, 1, 1]) or scalars
// after a conv fold into its weights and bias (paddle's learnable affine
// blocks): W' = W * 2 (then * [1, -0.5]), b' = (b * 2 + 0.25) * ...
// W = [[1, 2], [3, 4]], b = [1, -1]
//   Mul 2          -> W = [[2, 4], [6, 8]], b = [2, -2]
//   Add [0.5, 1]   -> b = [2.5, -1]
//   Mul [1, -0.5]  -> W = [[2, 4], [-3, -4]], b = [2.5, 0.5]

// CHECK-LABEL: func.func @scale_shift(
// CHECK-SAME: %[[X:.*]]: tensor<1x2x3x3xf32>)
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}-3.000000e+00]], {{\[\[}}-4.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[2.500000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-NOT: nunc.{{(mul|add)}}
// CHECK: %[[Y:.*]] = nunc.conv %[[X]], %[[W]], %[[B]]
// CHECK-NEXT: return %[[Y]] : tensor<1x2x3x3xf32>
func.func @scale_shift(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = nunc.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = nunc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %two = nunc.constant dense<2.0> : tensor<1xf32>
  %shift = nunc.constant dense<[[[0.5]], [[1.0]]]> : tensor<2x1x1xf32>
  %scale = nunc.constant dense<[[[[1.0]], [[-0.5]]]]> : tensor<1x2x1x1xf32>
  %0 = nunc.conv %x, %w, %b : tensor<2xf32> {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %1 = nunc.mul %two, %0 : (tensor<1xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %2 = nunc.add %1, %shift : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %3 = nunc.mul %2, %scale : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %3 : tensor<1x2x3x3xf32>
}

// -----

// What stays: a constant that varies along the spatial dims, one that
// broadcasts the result to a larger shape, and a conv another op reads too.

// CHECK-LABEL: func.func @not_per_channel(
// CHECK: nunc.mul
// CHECK: nunc.add
// CHECK: nunc.mul
func.func @not_per_channel(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = nunc.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %spatial = nunc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %batch = nunc.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %two = nunc.constant dense<2.0> : tensor<f32>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %1 = nunc.mul %0, %spatial : (tensor<1x2x3x3xf32>, tensor<3xf32>) -> tensor<1x2x3x3xf32>
  %2 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %3 = nunc.add %2, %batch : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<2x2x3x3xf32>
  %4 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %5 = nunc.mul %4, %two : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  return %1, %3, %5, %4 : tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// ConvTranspose: W [C, M, k...] scales along M (channel ch is column ch of
// every row). paddle2onnx's bias Add folds first, then the BN (the
// numbers above): W = [[1, 2], [3, 4]] -> [[0.5, 6], [1.5, 12]],
// b = [1, -1] -> [-0.25, -3.5].

// CHECK-LABEL: func.func @conv_transpose_bias_add_bn(
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}6.000000e+00]]], {{\[\[\[}}1.500000e+00]], {{\[\[}}1.200000e+01]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[-2.500000e-01, -3.500000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = nunc.conv_transpose %arg0, %[[W]], %[[B]] : tensor<2xf32>
// CHECK-NEXT: return %[[Y]]
func.func @conv_transpose_bias_add_bn(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = nunc.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = nunc.constant dense<[[[1.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %gamma = nunc.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %beta = nunc.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %mean = nunc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %var = nunc.constant dense<[3.75, 0.75]> : tensor<2xf32>
  %0 = nunc.conv_transpose %x, %w {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, output_shape = array<i64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
  %1 = nunc.add %0, %b : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %2 = nunc.batch_norm %1, %gamma, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %2 : tensor<1x2x3x3xf32>
}

// -----

// Two groups, C/group = 2 rows each, M/group = 1: channel g scales rows
// 2g and 2g + 1 (both taps): W rows [1, 2], [3, 4], [5, 6], [7, 8] times
// s = [0.5, 3].

// CHECK-LABEL: func.func @conv_transpose_grouped_mul(
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<{{\[\[\[\[}}5.000000e-01, 1.000000e+00]]], {{\[\[\[}}1.500000e+00, 2.000000e+00]]], {{\[\[\[}}1.500000e+01, 1.800000e+01]]], {{\[\[\[}}2.100000e+01, 2.400000e+01]]]]> : tensor<4x1x1x2xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK: nunc.conv_transpose %arg0, %[[W]], %[[B]] : tensor<2xf32> {dilations = array<i64: 1, 1>, group = 2 : i64
// CHECK-NOT: nunc.mul
func.func @conv_transpose_grouped_mul(%x: tensor<1x4x3x3xf32>) -> tensor<1x2x3x4xf32> {
  %w = nunc.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]], [[[5.0, 6.0]]], [[[7.0, 8.0]]]]> : tensor<4x1x1x2xf32>
  %s = nunc.constant dense<[[[0.5]], [[3.0]]]> : tensor<2x1x1xf32>
  %0 = nunc.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 2>, output_padding = array<i64: 0, 0>, output_shape = array<i64>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x3x3xf32>, tensor<4x1x1x2xf32> -> tensor<1x2x3x4xf32>
  %1 = nunc.mul %0, %s : (tensor<1x2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x4xf32>
  return %1 : tensor<1x2x3x4xf32>
}

// -----

// A new weight leaves the model's grid: a BatchNormalization folded into
// the filter drops weight_quantization; an Add folded into the bias keeps
// it (the filter is as the model's DequantizeLinear made it).
// CHECK-LABEL: func.func @weight_grid(
// CHECK: %[[A:.*]] = nunc.conv %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} :
// CHECK: %[[B:.*]] = nunc.conv %{{.*}} {{.*}}weight_quantization = !quant.uniform<i8:f32, 5.000000e-01>} :
// CHECK: return %[[A]], %[[B]]
func.func @weight_grid(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = nunc.constant dense<[[[[1.0]]], [[[-2.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = nunc.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %beta = nunc.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %mean = nunc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %var = nunc.constant dense<[3.75, 0.75]> : tensor<2xf32>
  %0 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, weight_quantization = !quant.uniform<i8:f32, 0.5>} : tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x3x3xf32>
  %1 = nunc.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 0.25 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %2 = nunc.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, weight_quantization = !quant.uniform<i8:f32, 0.5>} : tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x3x3xf32>
  %c = nunc.constant dense<[[[0.5]], [[-1.0]]]> : tensor<2x1x1xf32>
  %3 = nunc.add %2, %c : (tensor<1x2x3x3xf32>, tensor<2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %1, %3 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}
