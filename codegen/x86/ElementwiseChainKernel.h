//===- ElementwiseChainKernel.h - a chain of f32 elementwise steps -*- C++ -*-===//
//
// y = the last of a chain of elementwise steps (nunc.elementwise_chain) over
// f32 inputs of y's shape, flat: each step is an Add/Sub/Mul/Div of two
// earlier values (or one and a compile-time constant) or an activation of
// one, then optionally a fake-quantize grid. The values of a vector stay in
// registers from the inputs' loads to y's store, assigned at compile time
// (a value's register is free after its last read); up to eight vectors go
// through each step together, as many as the registers hold. Element i of
// every input is read before element i of y is written, so y may be any
// input (in place).
//
// With a lookup table (ElementwiseChainConfig::table) a vector is its first
// grid's code index and one lookup.
//
// Task arguments: [0 .. inputs-1] the inputs, [inputs] y. A task takes a
// block of elements, the last one the rest (with a masked tail vector).
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_ELEMENTWISECHAINKERNEL_H
#define NUNC_CODEGEN_X86_ELEMENTWISECHAINKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include <memory>
#include <vector>

namespace mlir::nunc::x86 {

struct ElementwiseChainConfig {
  struct Step {
    enum Op { Add, Sub, Mul, Div, Activate } op = Add;
    /// Values read: inputs are 0 .. inputs-1, step i's result inputs + i;
    /// -1 is `constant`. `b` is unused by Activate.
    int a = 0, b = 0;
    float constant = 0;
    Activation activation; // Activate: relu, clip, hard_sigmoid, hard_swish (or None)
    Activation grid;       // FakeQuant (the result rounded last) or None
  };
  int64_t elements = 0;
  int inputs = 1;
  std::vector<Step> steps;
  /// One input that holds only the values of a grid of at most 256 codes
  /// (its producer rounds to it last, or the first step does and no later
  /// step reads the input): y is a function of the code, `table` its
  /// values at the grid's codes in order (computed at compile time), looked
  /// up instead of the steps (AVX-512: eight 32-entry `vpermt2ps`, ~30 uops
  /// a vector where a QDQ hard-swish block's steps take ~60; AVX2: a
  /// gather). `tableGrid` is that grid.
  std::vector<float> table;
  Activation tableGrid;
};

struct ElementwiseChainKernel {
  static constexpr int kMaxInputs = 4;
  /// Codes a lookup table may hold (the table lookup's entries).
  static constexpr int64_t kMaxTableCodes = 256;
  static int64_t elementsPerTask(const ElementwiseChainConfig &c);
  static int64_t numTasks(const ElementwiseChainConfig &c);
  /// Registers one vector's values take at most (the register assignment).
  static int registersPerVector(const ElementwiseChainConfig &c);
  /// Null when the chain needs more registers or inputs than the kernel
  /// has, or on an xbyak error.
  static std::unique_ptr<JitKernel> generate(const ElementwiseChainConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_ELEMENTWISECHAINKERNEL_H
