// RUN: nunc-opt %s -split-input-file --nunc-fuse | FileCheck %s

// The whole fusion pipeline on QDQ MatMuls with weights over the 4096
// elements that stay quantized for fusion. An s8 weight with zero point 0
// (y), a u8 weight with a zero point (z: quantize_static with QUInt8
// weights) and an s8 weight with a zero point (v: the u8 one 128 higher,
// codes 131 stored as the byte -125, zero point 132) go to the int8 GEMM;
// a weight with a scale per row (t: the GEMM scales columns) cannot, and
// its MatMul still becomes an f32 linear op on the folded weight, after a
// fake_quantize of the activation (not a generic MatMul on a run-time
// DequantizeLinear).

// CHECK-LABEL: func.func @qdq_weights(
// CHECK-SAME: %[[X:.*]]: tensor<2x65xf32>)
// CHECK-DAG: nunc.quantized_linear %[[X]], %{{.*}} {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 1.250000e-01:10>} : tensor<2x65xf32>, tensor<65x65x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK-DAG: nunc.quantized_linear %[[X]], %{{.*}} {activation_quantization = "static", input_quantization = !quant.uniform<u8:f32, 1.250000e-01:10>} : tensor<2x65xf32>, tensor<65x65x!quant.uniform<u8:f32, 2.500000e-01:128>>
// CHECK-DAG: %[[V:.*]] = nunc.constant dense<-125> : tensor<65x65xi8>
// CHECK-DAG: %[[VQ:.*]] = quant.scast %[[V]] : tensor<65x65xi8> to tensor<65x65x!quant.uniform<u8:f32, 2.500000e-01:132>>
// CHECK-DAG: nunc.quantized_linear %[[X]], %[[VQ]]
// CHECK-DAG: %[[FQ:.*]] = nunc.fake_quantize %[[X]] {quantization = !quant.uniform<u8:f32, 1.250000e-01:10>}
// CHECK-DAG: %[[W:.*]] = nunc.constant dense<7.500000e-01> : tensor<65x65xf32>
// CHECK-DAG: nunc.linear %[[FQ]], %[[W]] : tensor<2x65xf32>, tensor<65x65xf32> -> tensor<2x65xf32>
// CHECK-NOT: nunc.matmul
// CHECK-NOT: nunc.dequantize_linear
func.func @qdq_weights(%x: tensor<2x65xf32>) -> (tensor<2x65xf32>, tensor<2x65xf32>, tensor<2x65xf32>, tensor<2x65xf32>) {
  %s = nunc.constant dense<0.125> : tensor<f32>
  %zp = nunc.constant dense<10> : tensor<ui8>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui8> {output_element_type = ui8} : tensor<2x65xf32>, tensor<f32> -> tensor<2x65xui8>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<ui8> : tensor<2x65xui8>, tensor<f32> -> tensor<2x65xf32>
  %w = nunc.constant dense<3> : tensor<65x65xi8>
  %wzp = nunc.constant dense<0> : tensor<i8>
  %ws = nunc.constant dense<0.25> : tensor<f32>
  %dw = nunc.dequantize_linear %w, %ws, %wzp : tensor<i8> : tensor<65x65xi8>, tensor<f32> -> tensor<65x65xf32>
  %y = nunc.matmul %dq, %dw : (tensor<2x65xf32>, tensor<65x65xf32>) -> tensor<2x65xf32>
  %u = nunc.constant dense<130> : tensor<65x65xui8>
  %uzp = nunc.constant dense<128> : tensor<ui8>
  %du = nunc.dequantize_linear %u, %ws, %uzp : tensor<ui8> : tensor<65x65xui8>, tensor<f32> -> tensor<65x65xf32>
  %z = nunc.matmul %dq, %du : (tensor<2x65xf32>, tensor<65x65xf32>) -> tensor<2x65xf32>
  %vzp = nunc.constant dense<4> : tensor<i8>
  %dv = nunc.dequantize_linear %w, %ws, %vzp : tensor<i8> : tensor<65x65xi8>, tensor<f32> -> tensor<65x65xf32>
  %v = nunc.matmul %dq, %dv : (tensor<2x65xf32>, tensor<65x65xf32>) -> tensor<2x65xf32>
  %rs = nunc.constant dense<0.25> : tensor<65xf32>
  %dt = nunc.dequantize_linear %w, %rs {axis = 0 : i64} : tensor<65x65xi8>, tensor<65xf32> -> tensor<65x65xf32>
  %t = nunc.matmul %dq, %dt : (tensor<2x65xf32>, tensor<65x65xf32>) -> tensor<2x65xf32>
  return %y, %z, %v, %t : tensor<2x65xf32>, tensor<2x65xf32>, tensor<2x65xf32>, tensor<2x65xf32>
}
