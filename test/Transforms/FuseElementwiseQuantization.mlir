// RUN: nunc-opt %s -split-input-file --nunc-fuse-elementwise-quantization | FileCheck %s

// The Q/DQ pair (fake_quantize) after an Add, Sub, Mul or Div (broadcast
// operands too) becomes the op's output_quantization; the results are the
// same bits, from the evaluator and the compiled x86 elementwise kernel.

// CHECK-LABEL: func.func @main(
// CHECK-NEXT: %[[C:.*]] = nunc.constant
// CHECK-NEXT: %[[A:.*]] = nunc.add %arg0, %arg1 {output_quantization = !quant.uniform<u8:f32, 2.000000e-02:128>}
// CHECK-NEXT: %[[S:.*]] = nunc.sub %[[A]], %[[C]] {output_quantization = !quant.uniform<i8:f32, 1.500000e-02>}
// CHECK-NEXT: %[[M:.*]] = nunc.mul %[[S]], %arg1 {output_quantization = !quant.uniform<u8:f32, 5.000000e-02:7>}
// CHECK-NEXT: %[[D:.*]] = nunc.div %[[M]], %arg1 {output_quantization = !quant.uniform<u8:f32, 3.000000e-02:100>}
// CHECK-NEXT: return %[[A]], %[[D]]
func.func @main(%x: tensor<2x8x5xf32> {nunc.name = "x"}, %y: tensor<2x8x5xf32> {nunc.name = "y"}) -> (tensor<2x8x5xf32> {nunc.name = "add"}, tensor<2x8x5xf32> {nunc.name = "div"}) {
  %c = nunc.constant dense<[0.5, -0.25, 1.0, 0.0, 2.0]> : tensor<5xf32>
  %0 = nunc.add %x, %y : (tensor<2x8x5xf32>, tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  %1 = nunc.fake_quantize %0 {quantization = !quant.uniform<u8:f32, 0.02:128>} : tensor<2x8x5xf32> -> tensor<2x8x5xf32>
  %2 = nunc.sub %1, %c : (tensor<2x8x5xf32>, tensor<5xf32>) -> tensor<2x8x5xf32>
  %3 = nunc.fake_quantize %2 {quantization = !quant.uniform<i8:f32, 0.015>} : tensor<2x8x5xf32> -> tensor<2x8x5xf32>
  %4 = nunc.mul %3, %y : (tensor<2x8x5xf32>, tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  %5 = nunc.fake_quantize %4 {quantization = !quant.uniform<u8:f32, 0.05:7>} : tensor<2x8x5xf32> -> tensor<2x8x5xf32>
  %6 = nunc.div %5, %y : (tensor<2x8x5xf32>, tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  %7 = nunc.fake_quantize %6 {quantization = !quant.uniform<u8:f32, 0.03:100>} : tensor<2x8x5xf32> -> tensor<2x8x5xf32>
  return %1, %7 : tensor<2x8x5xf32>, tensor<2x8x5xf32>
}

// -----

// What stays: an op another op also reads (here the returned Add), an op
// that rounds already, and the other elementwise ops.

// CHECK-LABEL: func.func @stays(
// CHECK: nunc.add %arg0, %arg0 :
// CHECK: nunc.fake_quantize
// CHECK: nunc.sub {{.*}}output_quantization
// CHECK: nunc.fake_quantize
// CHECK: nunc.relu
// CHECK: nunc.fake_quantize
func.func @stays(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = nunc.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = nunc.fake_quantize %0 {quantization = !quant.uniform<u8:f32, 0.02:128>} : tensor<4xf32> -> tensor<4xf32>
  %2 = nunc.sub %x, %x {output_quantization = !quant.uniform<u8:f32, 0.02:128>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = nunc.fake_quantize %2 {quantization = !quant.uniform<u8:f32, 0.01:128>} : tensor<4xf32> -> tensor<4xf32>
  %4 = nunc.relu %x : tensor<4xf32> -> tensor<4xf32>
  %5 = nunc.fake_quantize %4 {quantization = !quant.uniform<u8:f32, 0.02:0>} : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %3, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
