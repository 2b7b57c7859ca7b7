//===- Tensor.h - run-time tensors of the reference evaluator ---*- C++ -*-===//
//
// A Tensor is an immutable, reference-counted n-d array: copies share storage,
// so Reshape/Squeeze/Identity are free and constants can alias the bytes of
// their MLIR attributes. Sizes are checked before anything is allocated.
//
//===----------------------------------------------------------------------===//

#ifndef NUNC_INTERPRETER_TENSOR_H
#define NUNC_INTERPRETER_TENSOR_H

#include "nunc/Dialect/Nunc/ShapeHelpers.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

namespace mlir::nunc {

enum class DType : uint8_t {
  Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64
};

size_t dtypeSize(DType t);
/// numpy-style name: "float32", "int64", "bool", ...
llvm::StringRef dtypeName(DType t);
bool isFloat(DType t);
bool isSignedInt(DType t);
bool isUnsignedInt(DType t);
/// The nunc dialect element type of a dtype and back.
Type toMlirType(DType t, MLIRContext *ctx);
std::optional<DType> fromMlirType(Type t);

/// IEEE binary16, stored as bits; arithmetic goes through float.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f);
  operator float() const;
};
/// bfloat16, stored as bits; arithmetic goes through float.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f);
  operator float() const;
};

/// Largest tensor the evaluator will allocate; bigger requests fail with an
/// error instead of exhausting memory.
using shape::kMaxTensorBytes;

class Tensor {
public:
  Tensor() = default;

  /// A zero-filled tensor. Fails for negative dims, overflow or sizes above
  /// kMaxTensorBytes.
  static llvm::Expected<Tensor> create(DType dtype, llvm::ArrayRef<int64_t> shape);
  /// A tensor over memory owned by `owner` (kept alive by the tensor).
  static Tensor borrow(DType dtype, llvm::ArrayRef<int64_t> shape, const void *data,
                       std::shared_ptr<const void> owner);
  /// A copy of `data` (byteSize bytes).
  static llvm::Expected<Tensor> copyOf(DType dtype, llvm::ArrayRef<int64_t> shape,
                                       const void *data);
  template <typename T>
  static llvm::Expected<Tensor> fromValues(DType dtype, llvm::ArrayRef<int64_t> shape,
                                           llvm::ArrayRef<T> values) {
    return copyOf(dtype, shape, values.data());
  }

  bool isNull() const { return !storage; }
  DType dtype() const { return type; }
  llvm::ArrayRef<int64_t> shape() const { return dims; }
  int64_t rank() const { return dims.size(); }
  int64_t dim(int64_t i) const { return dims[i]; }
  int64_t numElements() const { return count; }
  size_t byteSize() const { return count * dtypeSize(type); }

  /// The same data under another shape with the same element count.
  Tensor reshaped(llvm::ArrayRef<int64_t> shape) const;

  const char *raw() const { return data; }
  /// Writable access: only while the tensor is being produced by a kernel.
  char *mutableRaw() const { return const_cast<char *>(data); }
  template <typename T> const T *as() const {
    return reinterpret_cast<const T *>(data);
  }
  template <typename T> T *mutableAs() const {
    return reinterpret_cast<T *>(const_cast<char *>(data));
  }

  /// Element i converted to double / int64 (any dtype).
  double getDouble(int64_t i) const;
  int64_t getInt(int64_t i) const;

  /// "float32[1, 128]"
  std::string describe() const;

private:
  DType type = DType::F32;
  llvm::SmallVector<int64_t, 6> dims;
  int64_t count = 0;
  const char *data = nullptr;
  std::shared_ptr<const void> storage;
};

/// Calls `fn.template operator()<T>()` with T the C++ type of `dtype`.
template <typename Fn> decltype(auto) dispatchDType(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::Bool: return fn.template operator()<bool>();
  case DType::I8: return fn.template operator()<int8_t>();
  case DType::U8: return fn.template operator()<uint8_t>();
  case DType::I16: return fn.template operator()<int16_t>();
  case DType::U16: return fn.template operator()<uint16_t>();
  case DType::I32: return fn.template operator()<int32_t>();
  case DType::U32: return fn.template operator()<uint32_t>();
  case DType::I64: return fn.template operator()<int64_t>();
  case DType::U64: return fn.template operator()<uint64_t>();
  case DType::F16: return fn.template operator()<Half>();
  case DType::BF16: return fn.template operator()<BFloat16>();
  case DType::F32: return fn.template operator()<float>();
  case DType::F64: return fn.template operator()<double>();
  }
  return fn.template operator()<float>();
}

template <typename T> constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<bool>() { return DType::Bool; }
template <> constexpr DType dtypeOf<int8_t>() { return DType::I8; }
template <> constexpr DType dtypeOf<uint8_t>() { return DType::U8; }
template <> constexpr DType dtypeOf<int16_t>() { return DType::I16; }
template <> constexpr DType dtypeOf<uint16_t>() { return DType::U16; }
template <> constexpr DType dtypeOf<int32_t>() { return DType::I32; }
template <> constexpr DType dtypeOf<uint32_t>() { return DType::U32; }
template <> constexpr DType dtypeOf<int64_t>() { return DType::I64; }
template <> constexpr DType dtypeOf<uint64_t>() { return DType::U64; }
template <> constexpr DType dtypeOf<Half>() { return DType::F16; }
template <> constexpr DType dtypeOf<BFloat16>() { return DType::BF16; }
template <> constexpr DType dtypeOf<float>() { return DType::F32; }
template <> constexpr DType dtypeOf<double>() { return DType::F64; }

} // namespace mlir::nunc

#endif // NUNC_INTERPRETER_TENSOR_H
