//===- Tensor.cpp - run-time tensors of the reference evaluator -----------===//

#include "nunc/Interpreter/Tensor.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mlir::nunc {

size_t dtypeSize(DType t) {
  switch (t) {
  case DType::Bool: case DType::I8: case DType::U8: return 1;
  case DType::I16: case DType::U16: case DType::F16: case DType::BF16: return 2;
  case DType::I32: case DType::U32: case DType::F32: return 4;
  case DType::I64: case DType::U64: case DType::F64: return 8;
  }
  return 1;
}

llvm::StringRef dtypeName(DType t) {
  switch (t) {
  case DType::Bool: return "bool";
  case DType::I8: return "int8";
  case DType::U8: return "uint8";
  case DType::I16: return "int16";
  case DType::U16: return "uint16";
  case DType::I32: return "int32";
  case DType::U32: return "uint32";
  case DType::I64: return "int64";
  case DType::U64: return "uint64";
  case DType::F16: return "float16";
  case DType::BF16: return "bfloat16";
  case DType::F32: return "float32";
  case DType::F64: return "float64";
  }
  return "?";
}

bool isFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64;
}
bool isSignedInt(DType t) {
  return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64;
}
bool isUnsignedInt(DType t) {
  return t == DType::U8 || t == DType::U16 || t == DType::U32 || t == DType::U64;
}

Type toMlirType(DType t, MLIRContext *ctx) {
  auto sl = [&](unsigned w) { return IntegerType::get(ctx, w); };
  auto ui = [&](unsigned w) { return IntegerType::get(ctx, w, IntegerType::Unsigned); };
  switch (t) {
  case DType::Bool: return sl(1);
  case DType::I8: return sl(8);
  case DType::U8: return ui(8);
  case DType::I16: return sl(16);
  case DType::U16: return ui(16);
  case DType::I32: return sl(32);
  case DType::U32: return ui(32);
  case DType::I64: return sl(64);
  case DType::U64: return ui(64);
  case DType::F16: return Float16Type::get(ctx);
  case DType::BF16: return BFloat16Type::get(ctx);
  case DType::F32: return Float32Type::get(ctx);
  case DType::F64: return Float64Type::get(ctx);
  }
  return Type();
}

std::optional<DType> fromMlirType(Type t) {
  // A quantized tensor holds its storage type (signless in the quant
  // dialect; the type's signedness says which).
  if (auto q = dyn_cast<quant::QuantizedType>(t))
    t = IntegerType::get(t.getContext(), q.getStorageTypeIntegralWidth(),
                         q.isSigned() ? IntegerType::Signless : IntegerType::Unsigned);
  if (t.isF16()) return DType::F16;
  if (t.isBF16()) return DType::BF16;
  if (t.isF32()) return DType::F32;
  if (t.isF64()) return DType::F64;
  auto i = dyn_cast<IntegerType>(t);
  if (!i || i.isSigned())
    return std::nullopt;
  bool u = i.isUnsigned();
  switch (i.getWidth()) {
  case 1: return u ? std::nullopt : std::optional<DType>(DType::Bool);
  case 8: return u ? DType::U8 : DType::I8;
  case 16: return u ? DType::U16 : DType::I16;
  case 32: return u ? DType::U32 : DType::I32;
  case 64: return u ? DType::U64 : DType::I64;
  default: return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// 16-bit floats (round to nearest even)
//===----------------------------------------------------------------------===//

static uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

Half::Half(float f) {
  uint32_t u = floatBits(f);
  uint32_t sign = (u >> 16) & 0x8000;
  uint32_t a = u & 0x7fffffff;
  if (a >= 0x7f800000) { // inf or nan
    bits = sign | 0x7c00 | (a > 0x7f800000 ? 0x200 | ((a >> 13) & 0x3ff) : 0);
  } else if (a >= 0x477ff000) { // rounds past 65504
    bits = sign | 0x7c00;
  } else if (a < 0x38800000) { // half subnormal or zero: scale by 2^24 and round
    bits = sign | (uint16_t)std::nearbyint(bitsFloat(a) * 16777216.0f);
  } else {
    uint32_t rounded = a + 0x0fff + ((a >> 13) & 1);
    bits = sign | ((rounded - 0x38000000) >> 13);
  }
}

Half::operator float() const {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f, mant = bits & 0x3ff;
  if (exp == 0) {
    float v = mant * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  if (exp == 31)
    return bitsFloat(sign | 0x7f800000 | (mant << 13));
  return bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

BFloat16::BFloat16(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7fffffff) > 0x7f800000)
    bits = (u >> 16) | 0x40;
  else
    bits = (u + 0x7fff + ((u >> 16) & 1)) >> 16;
}

BFloat16::operator float() const { return bitsFloat(uint32_t(bits) << 16); }

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

llvm::Expected<Tensor> Tensor::create(DType dtype, llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return llvm::createStringError("negative dim in tensor shape");
    if (d != 0 && n > kMaxTensorBytes / d)
      return llvm::createStringError("tensor too large to allocate");
    n *= d;
  }
  if (n > kMaxTensorBytes / (int64_t)dtypeSize(dtype))
    return llvm::createStringError(
        "tensor of " + llvm::Twine(n) + " elements exceeds the evaluator's limit of " +
        llvm::Twine(kMaxTensorBytes >> 30) + " GiB");
  Tensor t;
  t.type = dtype;
  t.dims.assign(shape.begin(), shape.end());
  t.count = n;
  size_t bytes = std::max<size_t>(1, n * dtypeSize(dtype));
  // Zero-filled, 64-byte aligned.
  void *p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p)
    return llvm::createStringError("out of memory allocating " + llvm::Twine(bytes) +
                                   " bytes");
  std::memset(p, 0, bytes);
  t.storage = std::shared_ptr<const void>(p, [](const void *q) { std::free(const_cast<void *>(q)); });
  t.data = static_cast<const char *>(p);
  return t;
}

Tensor Tensor::borrow(DType dtype, llvm::ArrayRef<int64_t> shape, const void *data,
                      std::shared_ptr<const void> owner) {
  Tensor t;
  t.type = dtype;
  t.dims.assign(shape.begin(), shape.end());
  t.count = 1;
  for (int64_t d : shape)
    t.count *= d;
  t.data = static_cast<const char *>(data);
  t.storage = owner ? std::move(owner)
                    : std::shared_ptr<const void>(data, [](const void *) {});
  return t;
}

llvm::Expected<Tensor> Tensor::copyOf(DType dtype, llvm::ArrayRef<int64_t> shape,
                                      const void *src) {
  llvm::Expected<Tensor> t = create(dtype, shape);
  if (t && t->byteSize())
    std::memcpy(t->mutableRaw(), src, t->byteSize());
  return t;
}

Tensor Tensor::reshaped(llvm::ArrayRef<int64_t> shape) const {
  Tensor t = *this;
  t.dims.assign(shape.begin(), shape.end());
  return t;
}

double Tensor::getDouble(int64_t i) const {
  return dispatchDType(type, [&]<typename T>() -> double {
    return static_cast<double>(static_cast<std::conditional_t<
        std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>>(as<T>()[i]));
  });
}

int64_t Tensor::getInt(int64_t i) const {
  return dispatchDType(type, [&]<typename T>() -> int64_t {
    if constexpr (std::is_integral_v<T>)
      return static_cast<int64_t>(as<T>()[i]);
    else
      return static_cast<int64_t>(static_cast<float>(as<T>()[i]));
  });
}

std::string Tensor::describe() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << dtypeName(type) << '[';
  llvm::interleaveComma(dims, os);
  os << ']';
  return s;
}

} // namespace mlir::nunc
