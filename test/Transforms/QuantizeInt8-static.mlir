// RUN: not nunc-opt %s -split-input-file --nunc-quantize-int8="min-macs=1 activations=static profile=%S/Inputs/calibration-profile.json" 2>/dev/null | FileCheck %s
// RUN: not nunc-opt %s -split-input-file --nunc-quantize-int8="min-macs=1 activations=static profile=%S/Inputs/calibration-profile.json" 2>&1 >/dev/null | FileCheck %s --check-prefix=STALE
// RUN: not nunc-opt %s -split-input-file --nunc-quantize-int8="min-macs=1 activations=static profile=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not nunc-opt %s -split-input-file --nunc-quantize-int8="min-macs=1 activations=static profile=%s" 2>&1 | FileCheck %s --check-prefix=NOTJSON
// RUN: not nunc-opt %s -split-input-file --nunc-quantize-int8="min-macs=1 activations=always" 2>&1 | FileCheck %s --check-prefix=MODE

// Static activations: the input's u8 quantization comes from the profile
// entry of this op (keyed "linear#<index>" when the IR has no ONNX node
// names), as a !quant.uniform type on the op.
// CHECK-LABEL: func.func @one(
// CHECK: nunc.quantized_linear %arg0, %{{.*}} {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 1.562500e-02:64>}
func.func @one(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = nunc.constant dense<[[7.9375, 63.5], [-3.0, -1.25], [0.03125, 0.75], [1.0, 0.0]]> : tensor<4x2xf32>
  %y = nunc.linear %x, %w : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A quantized op without a profile entry is an error (the profile is stale).
// STALE: error: the calibration profile '{{.*}}calibration-profile.json' has no range for the input of linear op 'linear#1' (recalibrate for this model)
func.func @two(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = nunc.constant dense<[[7.9375, 63.5], [-3.0, -1.25], [0.03125, 0.75], [1.0, 0.0]]> : tensor<4x2xf32>
  %v = nunc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %y = nunc.linear %x, %w : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  %z = nunc.linear %y, %v : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  return %z : tensor<3x2xf32>
}
// MISSING: error: cannot read the calibration profile '{{.*}}missing.json'
// NOTJSON: error: {{.*}}QuantizeInt8-static.mlir: not JSON
// MODE: error: nunc-quantize-int8: activations must be dynamic or static, not 'always'
