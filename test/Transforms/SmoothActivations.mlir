// RUN: nunc-opt %s -split-input-file --nunc-smooth-activations="profile=%S/Inputs/smoothing-profile.json" | FileCheck %s
// RUN: not nunc-opt %s -split-input-file --nunc-smooth-activations="profile=%S/Inputs/smoothing-profile-stale.json" 2>&1 >/dev/null | FileCheck %s --check-prefix=STALE
// RUN: not nunc-opt %s --nunc-smooth-activations="profile=%S/Inputs/smoothing-profile-unknown.json" 2>&1 >/dev/null | FileCheck %s --check-prefix=UNKNOWN
// RUN: not nunc-opt %s --nunc-smooth-activations="profile=%S/Inputs/smoothing-profile-bad.json" 2>&1 >/dev/null | FileCheck %s --check-prefix=BAD
// RUN: not nunc-opt %s --nunc-smooth-activations="profile=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: nunc-opt %s -split-input-file --nunc-smooth-activations="profile=%S/Inputs/calibration-profile.json" | FileCheck %s --check-prefix=NONE

// The LayerNorm output feeds two linears and a residual add. With factors
// s = [2, 0.5, 1, 4]: a second LayerNorm with scale / s and bias / s feeds
// both linears, whose weight rows are multiplied by s; the add keeps the
// original output.
// CHECK-LABEL: func.func @residual_and_two_linears(
// CHECK-DAG: %[[G:.*]] = nunc.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[B:.*]] = nunc.constant dense<[5.000000e-01, -1.000000e+00, 2.500000e-01, 8.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[GS:.*]] = nunc.constant dense<[5.000000e-01, 4.000000e+00, 3.000000e+00, 1.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[BS:.*]] = nunc.constant dense<[2.500000e-01, -2.000000e+00, 2.500000e-01, 2.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[W1:.*]] = nunc.constant dense<{{\[}}[2.000000e+00, 4.000000e+00], [5.000000e-01, -1.000000e+00], [3.000000e+00, 0.000000e+00], [-4.000000e+00, 2.000000e+00]]> : tensor<4x2xf32>
// CHECK-DAG: %[[W2:.*]] = nunc.constant dense<{{\[}}[2.000000e+00], [5.000000e-01], [1.000000e+00], [4.000000e+00]]> : tensor<4x1xf32>
// CHECK-DAG: %[[Y:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %arg0, %[[G]], %[[B]] : tensor<4xf32> {axis = 1 : i64, epsilon = 9.99999996E-13 : f32}
// CHECK-DAG: %[[YS:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %arg0, %[[GS]], %[[BS]] : tensor<4xf32> {axis = 1 : i64, epsilon = 9.99999996E-13 : f32}
// CHECK-DAG: nunc.linear %[[YS]], %[[W1]]
// CHECK-DAG: nunc.linear %[[YS]], %[[W2]]
// CHECK-DAG: nunc.add %[[Y]], %arg0
// CHECK-NOT: nunc.layer_norm
// STALE: error: smoothing: 3 factors for LayerNorm 'layer_norm#0' of 4 channels (recalibrate for this model)
// STALE: error: smoothing: 3 factors for LayerNorm 'layer_norm#0' of 4 channels (recalibrate for this model)
// NONE-LABEL: func.func @residual_and_two_linears(
// NONE: nunc.layer_norm
// NONE-NOT: nunc.layer_norm
func.func @residual_and_two_linears(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x1xf32>, tensor<3x4xf32>) {
  %g = nunc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = nunc.constant dense<[0.5, -1.0, 0.25, 8.0]> : tensor<4xf32>
  %w1 = nunc.constant dense<[[1.0, 2.0], [1.0, -2.0], [3.0, 0.0], [-1.0, 0.5]]> : tensor<4x2xf32>
  %w2 = nunc.constant dense<[[1.0], [1.0], [1.0], [1.0]]> : tensor<4x1xf32>
  %y, %m, %r = nunc.layer_norm %x, %g, %b : tensor<4xf32> {axis = 1 : i64, epsilon = 1.0e-12 : f32} : tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xf32>, tensor<3x1xf32>, tensor<3x1xf32>
  %q = nunc.linear %y, %w1 : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  %k = nunc.linear %y, %w2 : tensor<3x4xf32>, tensor<4x1xf32> -> tensor<3x1xf32>
  %res = nunc.add %y, %x : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %q, %k, %res : tensor<3x2xf32>, tensor<3x1xf32>, tensor<3x4xf32>
}

// -----

// Only linears read the output: the original LayerNorm goes away. The
// LayerNorm without bias stays without one.
// CHECK-LABEL: func.func @only_linears(
// CHECK-DAG: %[[GS:.*]] = nunc.constant dense<[5.000000e-01, 2.000000e+00, 1.000000e+00, 2.500000e-01]> : tensor<4xf32>
// CHECK: %[[YS:.*]], %{{.*}}, %{{.*}} = nunc.layer_norm %arg0, %[[GS]] {axis = 1 : i64}
// CHECK-NOT: nunc.layer_norm
// CHECK: nunc.linear %[[YS]]
// MISSING: cannot read the calibration profile
// NONE-LABEL: func.func @only_linears(
// NONE: nunc.layer_norm %arg0, %{{.*}} {axis = 1 : i64}
// NONE: nunc.linear
// A profile made for another model, or with a factor that is not positive:
// UNKNOWN: error: smoothing: no LayerNorm 'layer_norm#7' feeding linear ops with constant weights (recalibrate for this model)
// BAD: smoothing entry 'layer_norm#0' needs an array of positive factors
func.func @only_linears(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %g = nunc.constant dense<[1.0, 1.0, 1.0, 1.0]> : tensor<4xf32>
  %w1 = nunc.constant dense<[[1.0, 2.0], [1.0, -2.0], [3.0, 0.0], [-1.0, 0.5]]> : tensor<4x2xf32>
  %y, %m, %r = nunc.layer_norm %x, %g {axis = 1 : i64} : tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xf32>, tensor<3x1xf32>, tensor<3x1xf32>
  %q = nunc.linear %y, %w1 : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  return %q : tensor<3x2xf32>
}
