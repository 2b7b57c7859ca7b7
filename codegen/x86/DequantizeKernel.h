//===- DequantizeKernel.h - u8 codes to f32 values (xbyak) ------*- C++ -*-===//
//
// y[i] = (float)(q[i] - zeroPoint) * scale: ONNX DequantizeLinear of u8
// codes, one rounding (the difference is exact). The input of an int8 GEMM
// or convolution whose product onnxruntime sums in f32 (quantized_linear's
// and quantized_conv's f32_product_k_block). With `fromF32` the input is
// f32 values x and q their codes, clamp(round_half_even(x / scale) +
// zeroPoint, 0, 255) (QuantizeLinear, then DequantizeLinear: the pair's
// values). Tasks are blocks of elements.
//
// Task arguments: [0] codes (u8) or x (f32), [1] y (f32).
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_DEQUANTIZEKERNEL_H
#define NUNC_CODEGEN_X86_DEQUANTIZEKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <memory>

namespace mlir::nunc::x86 {

struct DequantizeConfig {
  int64_t elements = 0;
  float scale = 1;
  int32_t zeroPoint = 0;
  bool fromF32 = false;
};

struct DequantizeKernel {
  /// Elements a task converts: a multiple of 64, at most 32 tasks.
  static int64_t elementsPerTask(const DequantizeConfig &c) {
    int64_t per = std::max<int64_t>(16384, (c.elements + 31) / 32);
    return (per + 63) / 64 * 64;
  }
  static int64_t numTasks(const DequantizeConfig &c) {
    return (c.elements + elementsPerTask(c) - 1) / elementsPerTask(c);
  }
  static std::unique_ptr<JitKernel> generate(const DequantizeConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_DEQUANTIZEKERNEL_H
