// RUN: nunc-opt %s --nunc-quantize-int8=min-macs=1 | FileCheck %s
// RUN: nunc-opt %s --nunc-quantize-int8 | FileCheck %s --check-prefix=SMALL

// Per-column symmetric scales max|W[:, n]| / 127 = 0.0625 and 0.5 (exact in
// binary), weights round half to even: 0.03125 / 0.0625 = 0.5 -> 0,
// -1.25 / 0.5 = -2.5 -> -2, 0.75 / 0.5 = 1.5 -> 2. Bias, residual and the
// activation carry over; the f32 weight is gone.
// CHECK-LABEL: func.func @quantized(
// CHECK-NOT:     tensor<4x2xf32>
// CHECK:         %[[Q:.*]] = nunc.constant dense<{{\[}}[127, 127], [-48, -2], [0, 2], [16, 0]]> : tensor<4x2xi8>
// CHECK:         %[[W:.*]] = quant.scast %[[Q]] : tensor<4x2xi8> to tensor<4x2x!quant.uniform<i8<-127:127>:f32:1, {6.250000e-02,5.000000e-01}>>
// CHECK:         nunc.quantized_linear %arg0, %[[W]] bias %{{.*}} : tensor<2xf32> residual %arg1 : tensor<3x2xf32> {activation = "relu"}
// CHECK-NOT:     nunc.linear
// SMALL-LABEL: func.func @quantized(
// SMALL:         nunc.linear
// SMALL-NOT:     quantized_linear
func.func @quantized(%x: tensor<3x4xf32>, %r: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = nunc.constant dense<[[7.9375, 63.5], [-3.0, -1.25], [0.03125, 0.75], [1.0, 0.0]]> : tensor<4x2xf32>
  %b = nunc.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %y = nunc.linear %x, %w bias %b : tensor<2xf32> residual %r : tensor<3x2xf32> {activation = "relu"} : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// An all-zero column gets scale 1 (its weights are all 0).
// CHECK-LABEL: func.func @zero_column(
// CHECK:         dense<{{\[}}[0, 127], [0, -127]]> : tensor<2x2xi8>
// CHECK:         !quant.uniform<i8<-127:127>:f32:1, {1.000000e+00,2.500000e-01}>
func.func @zero_column(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = nunc.constant dense<[[0.0, 31.75], [0.0, -31.75]]> : tensor<2x2xf32>
  %y = nunc.linear %x, %w : tensor<1x2xf32>, tensor<2x2xf32> -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// A weight computed at run time stays in f32.
// CHECK-LABEL: func.func @runtime_weight(
// CHECK:         nunc.linear
// CHECK-NOT:     quantized_linear
func.func @runtime_weight(%x: tensor<2x3xf32>, %w: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %y = nunc.linear %x, %w : tensor<2x3xf32>, tensor<3x5xf32> -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// An embedding table becomes s8 with one symmetric scale per row
// (max |row| / 127: 0.5, 1 for the all-zero row, 0.0625); the rows and their
// scales are gathered with the same ids and multiplied back.
// RUN: nunc-opt %s --nunc-quantize-int8=min-embedding-elements=6 | FileCheck %s --check-prefix=EMB
// CHECK-LABEL: func.func @embedding(
// EMB-LABEL: func.func @embedding(
// EMB-SAME:    %[[IDS:.*]]: tensor<2x3xi64>)
// EMB-DAG:     %[[Q:.*]] = nunc.constant dense<{{\[}}[127, -64, 1], [0, 0, 0], [-127, 2, 3]]> : tensor<3x3xi8>
// EMB-DAG:     %[[S:.*]] = nunc.constant dense<{{\[}}[5.000000e-01], [1.000000e+00], [6.250000e-02]]> : tensor<3x1xf32>
// EMB-DAG:     %[[R:.*]] = nunc.gather %[[Q]], %[[IDS]] : (tensor<3x3xi8>, tensor<2x3xi64>) -> tensor<2x3x3xi8>
// EMB-DAG:     %[[RS:.*]] = nunc.gather %[[S]], %[[IDS]] : (tensor<3x1xf32>, tensor<2x3xi64>) -> tensor<2x3x1xf32>
// EMB:         %[[F:.*]] = nunc.cast %[[R]] {to = f32} : tensor<2x3x3xi8> -> tensor<2x3x3xf32>
// EMB:         %[[Y:.*]] = nunc.mul %[[F]], %[[RS]] : (tensor<2x3x3xf32>, tensor<2x3x1xf32>) -> tensor<2x3x3xf32>
// EMB:         return %[[Y]]
// SMALL-LABEL: func.func @embedding(
// SMALL:         nunc.gather %{{.*}} : (tensor<3x3xf32>
// A table named in keep-f32 (without ONNX locations: by its index among
// the function's gathers) stays f32.
// RUN: nunc-opt %s --nunc-quantize-int8="min-embedding-elements=6 keep-f32=gather#0" | FileCheck %s --check-prefix=KEEPEMB
// KEEPEMB-LABEL: func.func @embedding(
// KEEPEMB:         %[[Y:.*]] = nunc.gather %{{.*}} : (tensor<3x3xf32>, tensor<2x3xi64>) -> tensor<2x3x3xf32>
// KEEPEMB-NEXT:    return %[[Y]]
func.func @embedding(%ids: tensor<2x3xi64>) -> tensor<2x3x3xf32> {
  %t = nunc.constant dense<[[63.5, -32.0, 0.5], [0.0, 0.0, 0.0], [-7.9375, 0.125, 0.1875]]> : tensor<3x3xf32>
  %y = nunc.gather %t, %ids : (tensor<3x3xf32>, tensor<2x3xi64>) -> tensor<2x3x3xf32>
  return %y : tensor<2x3x3xf32>
}

// A table gathered along axis 1 stays f32.
// EMB-LABEL: func.func @columns(
// EMB:         nunc.gather %{{.*}} {axis = 1 : i64} : (tensor<2x4xf32>
func.func @columns(%ids: tensor<3xi64>) -> tensor<2x3xf32> {
  %t = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %y = nunc.gather %t, %ids {axis = 1 : i64} : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// Mixed precision (what --accuracy-target chooses): linear ops named in
// keep-f32 stay f32, the others are quantized. Without ONNX locations a
// linear op's key is its index in the function.
// RUN: nunc-opt %s --nunc-quantize-int8="min-macs=1 keep-f32=linear#1" | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @fallback(
// KEEP:         nunc.quantized_linear %arg0
// KEEP:         nunc.linear %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<4x4xf32>
// KEEP:         nunc.quantized_linear
// KEEP-NOT:     nunc.linear
// KEEP:         return
func.func @fallback(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = nunc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [-1.0, -2.0, -3.0, -4.0], [0.5, 0.25, 0.125, 1.0]]> : tensor<4x4xf32>
  %a = nunc.linear %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %b = nunc.linear %a, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %c = nunc.linear %b, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}
