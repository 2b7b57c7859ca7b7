// softmax with input_quantization and output_quantization: onnxruntime's
// QLinearSoftmax (a QDQ model's Softmax between pairs), on the generic
// kernel. %a: rows of 17 on the last axis, output grid 1/255 (floor(1 /
// s_y) = 254 there: codes a step below round(255 p)); %b: rows of one
// (each the top code, 254); %c: axis 1 of 4x7x3 (strided rows), an output
// zero point of 10 (codes at most 255: the top one 245 steps); %d: rows of
// 300 on a grid of 1/256. The compiled kernel equals the reference
// evaluator, and both the arithmetic as Inputs/qlinear_softmax.py writes
// it.
// RUN: nunc run --reference %s --random-inputs --seed 5 -o %t.ref.npz
// RUN: nunc run %s --random-inputs --seed 5 -o %t.jit.npz --explain 2>&1 | FileCheck %s
// RUN: %python %S/Inputs/qlinear_softmax.py %t.ref.npz %t.jit.npz

// CHECK-COUNT-4: generic  nunc.softmax

func.func @main(%x: tensor<5x17xf32> {nunc.name = "x"}, %y: tensor<3x1xf32> {nunc.name = "y"}, %z: tensor<4x7x3xf32> {nunc.name = "z"}, %w: tensor<2x300xf32> {nunc.name = "w"}) -> (tensor<5x17xf32> {nunc.name = "a"}, tensor<3x1xf32> {nunc.name = "b"}, tensor<4x7x3xf32> {nunc.name = "c"}, tensor<2x300xf32> {nunc.name = "d"}, tensor<5x17xf32> {nunc.name = "aq"}, tensor<3x1xf32> {nunc.name = "bq"}, tensor<4x7x3xf32> {nunc.name = "cq"}, tensor<2x300xf32> {nunc.name = "dq"}) {
  %eight = nunc.constant dense<8.0> : tensor<f32>
  %xs = nunc.mul %x, %eight : (tensor<5x17xf32>, tensor<f32>) -> tensor<5x17xf32>
  %aq = nunc.fake_quantize %xs {quantization = !quant.uniform<u8:f32, 0.0625:128>} : tensor<5x17xf32> -> tensor<5x17xf32>
  %a = nunc.softmax %aq {input_quantization = !quant.uniform<u8:f32, 0.0625:128>, output_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>} : tensor<5x17xf32> -> tensor<5x17xf32>
  %bq = nunc.fake_quantize %y {quantization = !quant.uniform<u8:f32, 0.5:7>} : tensor<3x1xf32> -> tensor<3x1xf32>
  %b = nunc.softmax %bq {input_quantization = !quant.uniform<u8:f32, 0.5:7>, output_quantization = !quant.uniform<u8:f32, 0.0039215688593685627>} : tensor<3x1xf32> -> tensor<3x1xf32>
  %thirty = nunc.constant dense<30.0> : tensor<f32>
  %zs = nunc.mul %z, %thirty : (tensor<4x7x3xf32>, tensor<f32>) -> tensor<4x7x3xf32>
  %cq = nunc.fake_quantize %zs {quantization = !quant.uniform<u8:f32, 0.25:128>} : tensor<4x7x3xf32> -> tensor<4x7x3xf32>
  %c = nunc.softmax %cq {axis = 1 : i64, input_quantization = !quant.uniform<u8:f32, 0.25:128>, output_quantization = !quant.uniform<u8:f32, 0.004:10>} : tensor<4x7x3xf32> -> tensor<4x7x3xf32>
  %four = nunc.constant dense<4.0> : tensor<f32>
  %ws = nunc.mul %w, %four : (tensor<2x300xf32>, tensor<f32>) -> tensor<2x300xf32>
  %dq = nunc.fake_quantize %ws {quantization = !quant.uniform<u8:f32, 0.03:100>} : tensor<2x300xf32> -> tensor<2x300xf32>
  %d = nunc.softmax %dq {input_quantization = !quant.uniform<u8:f32, 0.03:100>, output_quantization = !quant.uniform<u8:f32, 0.00390625>} : tensor<2x300xf32> -> tensor<2x300xf32>
  return %a, %b, %c, %d, %aq, %bq, %cq, %dq : tensor<5x17xf32>, tensor<3x1xf32>, tensor<4x7x3xf32>, tensor<2x300xf32>, tensor<5x17xf32>, tensor<3x1xf32>, tensor<4x7x3xf32>, tensor<2x300xf32>
}
