// QDQ MatMuls with 16-bit activations (onnxruntime's quantize_static with
// activation_type QUInt16 or QInt16, s8 weights: A16W8). With u16-inputs
// they become quantized_linear with a u16 input grid (an s16 activation as
// the u16 grid 32768 higher); with u8 weights, or without the option, they
// stay f32 MatMuls of the dequantized values. The reference evaluator
// gives the same results either way, up to the order of the float sums,
// and so does the compiled library of the fused IR (the u8 GEMM once per
// byte of the codes on x86_64-avx512vnni; before fusion, weights this small
// fold to f32 and take the f32 GEMM).
// REQUIRES: avx512vnni
// RUN: nunc-opt %s --nunc-fuse-linear="u16-inputs=true" -o %t.fused.mlir
// RUN: FileCheck %s --input-file %t.fused.mlir
// RUN: nunc-opt %s --nunc-fuse-linear | FileCheck %s --check-prefix=NO-U16
// RUN: nunc run --reference %s --random-inputs --seed 8 -o %t.ref.npz
// RUN: nunc run --reference %t.fused.mlir --random-inputs --seed 8 -o %t.fused.npz
// RUN: nunc run %t.fused.mlir --random-inputs --seed 8 -o %t.jit.npz --explain 2>&1 | FileCheck %s --check-prefix=KERNELS
// RUN: %python -c "import sys, numpy as np; a, b, c = (np.load(p) for p in sys.argv[1:]); [np.testing.assert_allclose(x[k], a[k], rtol=2e-6, atol=2e-5, err_msg=k) for x in (b, c) for k in ('y', 'g', 'u')]; assert len(np.unique(a['y'])) > 20" %t.ref.npz %t.fused.npz %t.jit.npz

// CHECK-LABEL: func.func @main(
// CHECK: nunc.quantized_linear %{{.*}}, %{{.*}} {activation_quantization = "static", input_quantization = !quant.uniform<u16:f32, 3.0000001424923539E-4:30001>}
// CHECK: nunc.quantized_linear %{{.*}}, %{{.*}} bias %{{.*}} {activation_quantization = "static", input_quantization = !quant.uniform<u16:f32, 1.9999999494757503E-4:32763>}
// CHECK: nunc.matmul
// CHECK-NOT: nunc.quantized_linear
// NO-U16-NOT: nunc.quantized_linear
// KERNELS-DAG: gemm.int8.avx512vnni[5x19x37, static, u16 in]
// KERNELS-DAG: gemm.int8.avx512vnni[5x3x37, static, u16 in] +bias
func.func @main(%x: tensor<5x37xf32> {nunc.name = "x"}) -> (tensor<5x19xf32> {nunc.name = "y"}, tensor<5x3xf32> {nunc.name = "g"}, tensor<5x19xf32> {nunc.name = "u"}) {
  %w = nunc.constant dense<"0x807FBDF22106F0847762F0F3CB4D764DC7072051159A0F89F2C6DACAE344BB311245FD6F84DF9AD7C5B3D076AC0E8F53A7356C88913F20F6F72DB022D24D0A96DAD43C1617C1A98E78129E0327371065D095864F15ADA0B846C1C0EBC5348ADC799ADF849BAD05D4A10AC0441EAAEEB4B48EFA0B1F0ABD80E998A35ABA5EA0BD8799C1350D439E71897AA75FDE3134A4AA72E05628AC6FE68A733D1161A15D8EAE2BB042D7958AEDB1D594D6D112D34F6602F4DE7110E993AE7422923D7D171165DC1906F63D57997A0AD31B3AAE4081F41FB471653E3D577A8C4103F9CC198A7F89D81AF2A5001C40173F1923F7102CFAA150A124B3C5C79BB88761A8DB3F4101C2285B15BFEBC216DC1BBEFEA1D7D6EB097D6F8A24D972DA420EA6BF863EED3FC037A33402F24978C7162F32C05B0CAE3E0D3AF691992D127A36331FA65C277B5C7FE8C981BCCBB3D62AC078D352D4F74FCD4C5331FEF7E25F4588654BA17697D3886F9D0B89F5C36658B87AA4F749D6F569EF0EF625CC17EF7578236F827B6184465F12825617A05DD82E2B3C2F879512B6E7AC030FABA9DFC2F8276BFAC840A33D8C27DD39E08031BFBCE6978736AD3AFCB41E965D4C5BBDE83F3748A9D7995FEAF69F5A23365CC8B733888AC41B4515F58A7EB5AACEE523B4FE394D8A3339395E60D5C8414ACB63575B6780BD960FE3D0C4A19EFE99F70F61013777FB58EB65636C12E339914E45EF2D190DB87727FF09ADA5A8B044291128AF692066DF71F8A13715D1276652C8FEF222D86AFA9B0BEDEACDE05CE91383BBBDE5B9CD72016B84BD49EB63516B0B57CE560E473856E2FB5E1E0BCEE5A2D0101A7ACE14CBFC0D707B30C7F26154AA3BB13F1A948CEE99FA7F880FACB0A22F1DDE2D01350F2E095712F61B60A966F4AEF5B311C39CC92C965ED33AC7ABCE59C5B75EB9D4E075E3F6B08956C6F9154E570BEF2F31A3791C18E6EEAABD002463CC35AD9F38"> : tensor<37x19xi8>
  %wsc = nunc.constant dense<[0.01, 0.02, 0.005, 0.011, 0.013, 0.017, 0.019, 0.023, 0.029, 0.031, 0.007, 0.003, 0.037, 0.041, 0.043, 0.047, 0.053, 0.059, 0.061]> : tensor<19xf32>
  %wzc = nunc.constant dense<0> : tensor<19xi8>
  %s = nunc.constant dense<3.0e-4> : tensor<f32>
  %zp = nunc.constant dense<30001> : tensor<ui16>
  %q = nunc.quantize_linear %x, %s, %zp : tensor<ui16> {output_element_type = ui16} : tensor<5x37xf32>, tensor<f32> -> tensor<5x37xui16>
  %dq = nunc.dequantize_linear %q, %s, %zp : tensor<ui16> : tensor<5x37xui16>, tensor<f32> -> tensor<5x37xf32>
  %dwc = nunc.dequantize_linear %w, %wsc, %wzc : tensor<19xi8> {axis = 1 : i64} : tensor<37x19xi8>, tensor<19xf32> -> tensor<37x19xf32>
  %y = nunc.matmul %dq, %dwc : (tensor<5x37xf32>, tensor<37x19xf32>) -> tensor<5x19xf32>
  %s2 = nunc.constant dense<2.0e-4> : tensor<f32>
  %zs = nunc.constant dense<-5> : tensor<i16>
  %qs = nunc.quantize_linear %x, %s2, %zs : tensor<i16> {output_element_type = i16} : tensor<5x37xf32>, tensor<f32> -> tensor<5x37xi16>
  %dqs = nunc.dequantize_linear %qs, %s2, %zs : tensor<i16> : tensor<5x37xi16>, tensor<f32> -> tensor<5x37xf32>
  %wt = nunc.constant dense<"0x807F6B7B184E49053975936A70D6A360EF5A2815390C3366822B37EECC7237F8B1CEE43895E3C2693B03ED9927AEB162F824BAD8226D7FB31FAB78DCE02B806FA554696FEDD6BC61D1F7D0F01195095E310E4D961FF114636A8DFBDD13B0EF64934934E399D2E327694EF991C0BE52"> : tensor<3x37xi8>
  %wts = nunc.constant dense<[0.25, 0.0625, 0.125]> : tensor<3xf32>
  %wtz = nunc.constant dense<0> : tensor<3xi8>
  %bias = nunc.constant dense<[0.5, -1.25, 2.0]> : tensor<3xf32>
  %dwt = nunc.dequantize_linear %wt, %wts, %wtz : tensor<3xi8> {axis = 0 : i64} : tensor<3x37xi8>, tensor<3xf32> -> tensor<3x37xf32>
  %g = nunc.gemm %dqs, %dwt, %bias : tensor<3xf32> {transB = 1 : i64} : tensor<5x37xf32>, tensor<3x37xf32> -> tensor<5x3xf32>
  %wu = nunc.constant dense<7> : tensor<37x19xui8>
  %wus = nunc.constant dense<0.01> : tensor<f32>
  %wuz = nunc.constant dense<3> : tensor<ui8>
  %dwu = nunc.dequantize_linear %wu, %wus, %wuz : tensor<ui8> : tensor<37x19xui8>, tensor<f32> -> tensor<37x19xf32>
  %u = nunc.matmul %dq, %dwu : (tensor<5x37xf32>, tensor<37x19xf32>) -> tensor<5x19xf32>
  return %y, %g, %u : tensor<5x19xf32>, tensor<5x3xf32>, tensor<5x19xf32>
}
