// A u8 tensor whose rows the target's int8 GEMMs cannot read as they are (K
// = 5 is not a whole number of k groups) is a located error, not a crash.
// nunc-fuse-activation-quantization never makes one; hand-written IR can.
// RUN: not nunc run %s --random-inputs -o %t.npz 2>&1 | FileCheck %s
// CHECK: u8-rows-unaligned.mlir":{{[0-9]+}}:{{[0-9]+}}): error: the {{[a-z0-9]+}} int8 kernels of target '{{.*}}' cannot read dense u8 rows of 5 bytes
func.func @main(%x: tensor<3x5xf32> {nunc.name = "x"}) -> (tensor<3x4xf32> {nunc.name = "y"}) {
  %i = nunc.constant dense<1> : tensor<5x4xi8>
  %w = quant.scast %i : tensor<5x4xi8> to tensor<5x4x!quant.uniform<i8:f32, 0.125>>
  %q = nunc.quantize %x {quantization = !quant.uniform<u8:f32, 0.125:100>} : tensor<3x5xf32> -> tensor<3x5x!quant.uniform<u8:f32, 0.125:100>>
  %y = nunc.quantized_linear %q, %w {activation_quantization = "static"} : tensor<3x5x!quant.uniform<u8:f32, 0.125:100>>, tensor<5x4x!quant.uniform<i8:f32, 0.125>> -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
