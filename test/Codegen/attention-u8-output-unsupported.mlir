// An attention writing u8 codes (u8_output) that no kernel of the target
// takes (here a head dim of 8 on the AVX-512 host, not a multiple of 16) is
// a located error, not a crash or a generic kernel writing f32 into a u8
// buffer.
// nunc-fuse-activation-quantization folds only where the kernel takes it;
// hand-written IR can ask for any.
// RUN: not nunc run %s --random-inputs -o %t.npz 2>&1 | FileCheck %s
// CHECK: attention-u8-output-unsupported.mlir":{{[0-9]+}}:{{[0-9]+}}): error: this target has no attention kernel that writes these u8 codes (u8_output needs a head dim of a multiple of the target's vector (16 floats on AVX-512, 8 on AVX2)
func.func @main(%x: tensor<1x3x16xf32> {nunc.name = "x"}) -> (tensor<1x3x16x!quant.uniform<u8:f32, 0.125:100>> {nunc.name = "y"}) {
  %y = nunc.attention %x, %x, %x {num_heads = 2 : i64, scale = 0.25 : f32, output_quantization = !quant.uniform<u8:f32, 0.125:100>, u8_output} : tensor<1x3x16xf32>, tensor<1x3x16xf32>, tensor<1x3x16xf32> -> tensor<1x3x16x!quant.uniform<u8:f32, 0.125:100>>
  return %y : tensor<1x3x16x!quant.uniform<u8:f32, 0.125:100>>
}
