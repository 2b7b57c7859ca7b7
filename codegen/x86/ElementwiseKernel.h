//===- ElementwiseKernel.h - f32 elementwise, broadcasting ---*- C++ -*-===//
//
// y = op(a) or op(a, b) over f32 tensors with ONNX (numpy) broadcasting.
// The shapes are collapsed at compile time to rows x inner: along the inner
// dimension every operand is either contiguous or one value per row; rows
// either advance every operand by a fixed step (no broadcasting across rows)
// or take each operand's offset from a table built at compile time. A long
// single row is cut into rows of a fixed length plus one tail row, so tasks
// (blocks of rows) split it. Each element of an operand of the output's
// shape is read just before the same element of y is written, so y may be
// that operand (in place).
//
// Affine (inference BatchNormalization): y = a * scale + shift, with b the
// scales (laid out as a per-channel operand: one value per row, or along the
// inner dim when channels are innermost) and each shift `affineShift`
// elements after its scale. `before` rounds a and `after`
// rounds y (fake-quantize grids) in the same pass. Codes: the sum or product
// of two operands on grids as onnxruntime's QLinearAdd / QLinearMul compute
// its codes.
//
// Task arguments: [0] a, [1] b (or a), [2] y, [3] row offset table
// ([rows][2] int32 elements) or unused.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_CODEGEN_X86_ELEMENTWISEKERNEL_H
#define NUNC_CODEGEN_X86_ELEMENTWISEKERNEL_H

#include "JitSupport.h"
#include "nunc/Codegen/Target.h"

#include "llvm/ADT/ArrayRef.h"

#include <memory>
#include <optional>
#include <vector>

namespace mlir::nunc::x86 {

struct ElementwiseConfig {
  enum Op { Add, Sub, Mul, Div, Activate, Sqrt, Erf, Affine } op = Add;
  Activation activation; // op == Activate: relu, clip, sigmoid, tanh, gelu, gelu_tanh
  Activation before, after; // on a before the op, on y after it (None: nothing)
  int64_t affineShift = 0;  // Affine: elements from a row's scale to its shift
  int inputs = 2;
  int64_t rows = 1, inner = 1, tail = 0; // rows of `inner`, then one row of `tail`
  bool scalarInner[2] = {false, false};  // one value per row, broadcast along it
  bool table = false;                    // row offsets from the table
  int64_t rowStep[2] = {0, 0};           // else: elements per row (0: the same row)
  /// op == Add or Mul of two operands on grids, the result on a grid
  /// (nunc.add's / nunc.mul's lhs_quantization and rhs_quantization): each
  /// operand's code clamp(round(v / scale) + zp, qminA|B, qmaxA|B); Add: the
  /// sum's code round(fma(qa, ratioA, fma(qb, ratioB, fixed))) as
  /// onnxruntime's QLinearAdd computes it (CodeSumConstants); Mul: the
  /// product's round(fl(fl((qa - zpA)(qb - zpB)) ratioA) + zpC) as its
  /// QLinearMul does (qlinearMulCode; ratioB and fixed unused); within
  /// [qmin, qmax], written as its value (q - zpC) scaleC. No `before` or
  /// `after` then.
  struct Codes {
    float scaleA, zpA, scaleB, zpB, ratioA, ratioB, fixed, scaleC, zpC, qmin, qmax;
    float qminA, qmaxA, qminB, qmaxB;
  };
  std::optional<Codes> codes;
};

struct ElementwiseKernel {
  /// Fills rows/inner/tail/scalarInner/table/rowStep of `c` for output
  /// shape `out` and operand shapes `a` (and `b`), broadcastable to it;
  /// returns the row offset table (empty when not needed).
  static std::vector<int32_t> layout(ElementwiseConfig &c, llvm::ArrayRef<int64_t> out,
                                     llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);
  static int64_t rowsPerTask(const ElementwiseConfig &c);
  static int64_t numTasks(const ElementwiseConfig &c);
  static std::unique_ptr<JitKernel> generate(const ElementwiseConfig &c, Isa isa);
};

} // namespace mlir::nunc::x86

#endif // NUNC_CODEGEN_X86_ELEMENTWISEKERNEL_H
