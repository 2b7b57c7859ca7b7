//===- ElementwiseKernels.cpp - unary, binary, where, clip, cast ----------===//

#include "KernelSupport.h"
#include "Kernels.h"

#include "nunc/Dialect/Nunc/OneStepRequantization.h"

#include <cmath>
#include <limits>

namespace mlir::nunc::kernels {

namespace {

/// Wrapping integer arithmetic (ONNX leaves overflow to the platform; wrap
/// instead of invoking undefined behavior).
template <typename T> T wrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T> T wrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T> T wrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  // Promote to at least unsigned int so that uint16 * uint16 cannot overflow int.
  using P = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(static_cast<P>(static_cast<U>(a)) * static_cast<P>(static_cast<U>(b)));
}

template <typename T> float geluErf(T x) {
  float v = x;
  return 0.5f * v * (1.0f + std::erf(v * static_cast<float>(M_SQRT1_2)));
}

template <typename T> float geluTanh(T x) {
  float v = x;
  constexpr float k = 0.7978845608028654f; // sqrt(2/pi)
  return 0.5f * v * (1.0f + std::tanh(k * (v + 0.044715f * v * v * v)));
}

/// Converts with the C++ rules, but without undefined behavior for
/// out-of-range floats (clamped; NaN becomes 0).
template <typename To, typename From> To convertValue(From v) {
  using F = ComputeType<From>;
  using T = ComputeType<To>;
  F x = static_cast<F>(v);
  if constexpr (std::is_same_v<To, bool>) {
    return x != F(0);
  } else if constexpr (std::is_floating_point_v<F> && std::is_integral_v<T>) {
    if (std::isnan(x))
      return To(0);
    if (x <= static_cast<F>(std::numeric_limits<T>::lowest()))
      return std::numeric_limits<T>::lowest();
    if (x >= static_cast<F>(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    return static_cast<To>(static_cast<T>(x));
  } else {
    return To(static_cast<T>(x));
  }
}

} // namespace

Expected<Tensor> unary(UnaryKind kind, const Tensor &x) {
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), x.shape()));
  llvm::Error err = llvm::Error::success();
  dispatchDType(x.dtype(), [&]<typename T>() {
    const T *in = x.as<T>();
    T *o = out.mutableAs<T>();
    int64_t n = x.numElements();
    if (kind == UnaryKind::Relu || kind == UnaryKind::Abs) {
      if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
        std::copy(in, in + n, o);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          ComputeType<T> v = in[i];
          if (kind == UnaryKind::Relu)
            o[i] = v > ComputeType<T>(0) ? in[i] : T(ComputeType<T>(0));
          else if constexpr (std::is_integral_v<ComputeType<T>>)
            o[i] = v < 0 ? wrapSub(ComputeType<T>(0), v) : v;
          else
            o[i] = T(std::fabs(v));
        }
      }
      return;
    }
    if constexpr (!isFloatType<T>()) {
      err = kernelError("this op needs a floating-point input, got " +
                        dtypeName(x.dtype()));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        ComputeType<T> v = in[i];
        ComputeType<T> r = v;
        switch (kind) {
        case UnaryKind::Sqrt: r = std::sqrt(v); break;
        case UnaryKind::Floor: r = std::floor(v); break;
        case UnaryKind::Ceil: r = std::ceil(v); break;
        case UnaryKind::Round: r = std::nearbyint(v); break; // the default mode: halves to even
        case UnaryKind::Erf: r = std::erf(v); break;
        case UnaryKind::Tanh: r = std::tanh(v); break;
        case UnaryKind::Sigmoid:
          // Written to avoid overflow of exp for large |v|.
          r = v >= 0 ? 1 / (1 + std::exp(-v)) : std::exp(v) / (1 + std::exp(v));
          break;
        case UnaryKind::GeluErf:
          r = std::is_same_v<T, double>
                  ? 0.5 * v * (1.0 + std::erf(v * M_SQRT1_2))
                  : geluErf(v);
          break;
        case UnaryKind::GeluTanh:
          r = std::is_same_v<T, double>
                  ? 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))
                  : geluTanh(v);
          break;
        case UnaryKind::Exp: r = std::exp(v); break;
        case UnaryKind::Log: r = std::log(v); break;
        case UnaryKind::Sin: r = std::sin(v); break;
        case UnaryKind::Cos: r = std::cos(v); break;
        case UnaryKind::Tan: r = std::tan(v); break;
        case UnaryKind::Asin: r = std::asin(v); break;
        case UnaryKind::Acos: r = std::acos(v); break;
        case UnaryKind::Atan: r = std::atan(v); break;
        case UnaryKind::Sinh: r = std::sinh(v); break;
        case UnaryKind::Cosh: r = std::cosh(v); break;
        case UnaryKind::Asinh: r = std::asinh(v); break;
        case UnaryKind::Acosh: r = std::acosh(v); break;
        case UnaryKind::Atanh: r = std::atanh(v); break;
        case UnaryKind::Softplus:
          // log(exp(v) + 1) without its overflow and underflow.
          r = std::max(v, ComputeType<T>(0)) + std::log1p(std::exp(-std::fabs(v)));
          break;
        case UnaryKind::Relu:
        case UnaryKind::Abs: r = v; break;
        }
        o[i] = T(r);
      }
    }
  });
  if (err)
    return std::move(err);
  return out;
}

Expected<Tensor> leakyRelu(const Tensor &x, float alpha) {
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), x.shape()));
  llvm::Error err = llvm::Error::success();
  dispatchDType(x.dtype(), [&]<typename T>() {
    if constexpr (!isFloatType<T>()) {
      err = kernelError("LeakyRelu needs a floating-point input, got " + dtypeName(x.dtype()));
    } else {
      const T *in = x.as<T>();
      T *o = out.mutableAs<T>();
      for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
        ComputeType<T> v = in[i];
        o[i] = v < ComputeType<T>(0) ? T(v * ComputeType<T>(alpha)) : in[i];
      }
    }
  });
  if (err)
    return std::move(err);
  return out;
}

Expected<Tensor> hardSigmoid(const Tensor &x, float alpha, float beta, bool swish) {
  if (x.dtype() != DType::F32)
    return kernelError("HardSigmoid needs an f32 input, got " + dtypeName(x.dtype()));
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), x.shape()));
  const float *in = x.as<float>();
  float *o = out.mutableAs<float>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    float h = in[i] * alpha + beta;
    h = h < 0.f ? 0.f : h > 1.f ? 1.f : h; // NaN stays NaN
    o[i] = swish ? in[i] * h : h;
  }
  return out;
}

Expected<Tensor> silu(const Tensor &x) {
  if (x.dtype() != DType::F32)
    return kernelError("SiLU needs an f32 input, got " + dtypeName(x.dtype()));
  NUNC_ASSIGN_OR_RETURN(s, unary(UnaryKind::Sigmoid, x));
  float *o = s.mutableAs<float>();
  const float *in = x.as<float>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i)
    o[i] = in[i] * o[i];
  return s;
}

namespace {

/// The broadcast result of two f32 operands on grids ga, gb as the values
/// of its codes on gc: `combine(qa, qb)` gives the result's code (within
/// gc's range) from the operands' codes (a value on its grid: its own).
template <typename Combine>
Expected<Tensor> onCodes(const Tensor &a, const Tensor &b, const Grid &ga, const Grid &gb,
                         const Grid &gc, llvm::StringRef what, Combine combine) {
  if (a.dtype() != DType::F32 || b.dtype() != DType::F32)
    return kernelError(llvm::Twine(what) + " of codes needs f32 operands: " + a.describe() +
                       " and " + b.describe());
  NUNC_ASSIGN_OR_RETURN(shape, shape::broadcast(a.shape(), b.shape()));
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(DType::F32, shape));
  std::array<llvm::SmallVector<int64_t, 6>, 2> strides = {broadcastStrides(a.shape(), shape),
                                                          broadcastStrides(b.shape(), shape)};
  auto code = [](float v, const Grid &g) {
    return std::clamp(std::nearbyint(v / g.scale) + static_cast<float>(g.zeroPoint),
                      static_cast<float>(g.qmin), static_cast<float>(g.qmax));
  };
  const float *pa = a.as<float>(), *pb = b.as<float>();
  float *o = out.mutableAs<float>();
  forEachIndex<2>(shape, strides, [&](int64_t i, const std::array<int64_t, 2> &off) {
    const float q = combine(code(pa[off[0]], ga), code(pb[off[1]], gb));
    o[i] = (q - static_cast<float>(gc.zeroPoint)) * gc.scale;
  });
  return out;
}

} // namespace

Expected<Tensor> addCodes(const Tensor &a, const Tensor &b, const Grid &ga, const Grid &gb,
                          const Grid &gc) {
  const CodeSumConstants k = codeSumConstants(
      ga.scale, static_cast<float>(ga.zeroPoint), gb.scale, static_cast<float>(gb.zeroPoint),
      gc.scale, static_cast<float>(gc.zeroPoint));
  return onCodes(a, b, ga, gb, gc, "an add", [&](float qa, float qb) {
    const float sum = std::fma(qa, k.ratioA, std::fma(qb, k.ratioB, k.fixed));
    return std::clamp(std::nearbyint(sum), static_cast<float>(gc.qmin),
                      static_cast<float>(gc.qmax));
  });
}

Expected<Tensor> mulCodes(const Tensor &a, const Tensor &b, const Grid &ga, const Grid &gb,
                          const Grid &gc) {
  const float ratio = qlinearMulRatio(ga.scale, gb.scale, gc.scale);
  return onCodes(a, b, ga, gb, gc, "a product", [&](float qa, float qb) {
    return qlinearMulCode(qa - static_cast<float>(ga.zeroPoint),
                          qb - static_cast<float>(gb.zeroPoint), ratio,
                          static_cast<float>(gc.zeroPoint), static_cast<float>(gc.qmin),
                          static_cast<float>(gc.qmax));
  });
}

Expected<Tensor> binary(BinaryKind kind, const Tensor &a, const Tensor &b) {
  if (kind != BinaryKind::Pow && a.dtype() != b.dtype())
    return kernelError("operands have different types: " + a.describe() + " and " +
                       b.describe());
  NUNC_ASSIGN_OR_RETURN(shape, shape::broadcast(a.shape(), b.shape()));
  DType outType =
      kind == BinaryKind::Equal || kind == BinaryKind::Greater ? DType::Bool : a.dtype();
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(outType, shape));
  std::array<llvm::SmallVector<int64_t, 6>, 2> strides = {
      broadcastStrides(a.shape(), shape), broadcastStrides(b.shape(), shape)};
  llvm::Error err = llvm::Error::success();

  if (kind == BinaryKind::Pow) {
    dispatchDType(a.dtype(), [&]<typename T>() {
      dispatchDType(b.dtype(), [&]<typename E>() {
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<E, bool>) {
          err = kernelError("Pow does not take bool operands");
        } else {
          const T *pa = a.as<T>();
          const E *pb = b.as<E>();
          T *o = out.mutableAs<T>();
          forEachIndex<2>(shape, strides, [&](int64_t i, const std::array<int64_t, 2> &off) {
            double base = static_cast<ComputeType<T>>(pa[off[0]]);
            double exp = static_cast<ComputeType<E>>(pb[off[1]]);
            if constexpr (std::is_integral_v<T>) {
              // Exact, wrapping around as the integer type does (numpy's
              // power), for an integer exponent >= 0 or a whole float one
              // in [0, 2^62]; others take the double form below.
              bool whole;
              uint64_t power = 0;
              if constexpr (std::is_integral_v<E>) {
                whole = !(pb[off[1]] < E(0));
                power = static_cast<uint64_t>(pb[off[1]]);
              } else {
                whole = exp >= 0 && exp <= 0x1p62 && exp == std::floor(exp);
                if (whole)
                  power = static_cast<uint64_t>(exp);
              }
              if (whole) {
                uint64_t result = 1, square = static_cast<uint64_t>(pa[off[0]]);
                for (uint64_t e = power; e; e >>= 1) {
                  if (e & 1)
                    result *= square;
                  square *= square;
                }
                o[i] = static_cast<T>(result);
                return;
              }
            }
            if constexpr (std::is_same_v<T, float>)
              o[i] = std::pow(static_cast<float>(base), static_cast<float>(exp));
            else
              o[i] = convertValue<T>(std::pow(base, exp));
          });
        }
      });
    });
    if (err)
      return std::move(err);
    return out;
  }

  dispatchDType(a.dtype(), [&]<typename T>() {
    using C = ComputeType<T>;
    const T *pa = a.as<T>();
    const T *pb = b.as<T>();
    if (kind == BinaryKind::Equal || kind == BinaryKind::Greater) {
      bool *o = out.mutableAs<bool>();
      bool greater = kind == BinaryKind::Greater;
      forEachIndex<2>(shape, strides, [&](int64_t i, const std::array<int64_t, 2> &off) {
        C x = pa[off[0]], y = pb[off[1]];
        o[i] = greater ? x > y : x == y;
      });
      return;
    }
    if (kind == BinaryKind::Min || kind == BinaryKind::Max) {
      T *o = out.mutableAs<T>();
      bool max = kind == BinaryKind::Max;
      forEachIndex<2>(shape, strides, [&](int64_t i, const std::array<int64_t, 2> &off) {
        C x = pa[off[0]], y = pb[off[1]];
        if constexpr (std::is_floating_point_v<C>) {
          if (std::isnan(x) || std::isnan(y)) {
            o[i] = T(std::numeric_limits<C>::quiet_NaN());
            return;
          }
        }
        o[i] = (max ? x < y : y < x) ? pb[off[1]] : pa[off[0]];
      });
      return;
    }
    const bool integerOnly = kind == BinaryKind::BitAnd || kind == BinaryKind::BitOr ||
                             kind == BinaryKind::BitXor || kind == BinaryKind::ShiftLeft ||
                             kind == BinaryKind::ShiftRight;
    if constexpr (std::is_same_v<T, bool>) {
      err = kernelError("arithmetic on bool tensors is not defined");
    } else if (integerOnly && !std::is_integral_v<C>) {
      err = kernelError("bitwise ops and shifts take integers, got " + dtypeName(a.dtype()));
    } else {
      T *o = out.mutableAs<T>();
      forEachIndex<2>(shape, strides, [&](int64_t i, const std::array<int64_t, 2> &off) {
        C x = pa[off[0]], y = pb[off[1]];
        if constexpr (std::is_integral_v<C>) {
          switch (kind) {
          case BinaryKind::Add: o[i] = wrapAdd(x, y); break;
          case BinaryKind::Sub: o[i] = wrapSub(x, y); break;
          case BinaryKind::Mul: o[i] = wrapMul(x, y); break;
          case BinaryKind::Mod:
          case BinaryKind::FMod: {
            if (y == 0) {
              if (!err)
                err = kernelError("integer modulo by zero");
              o[i] = 0;
              break;
            }
            // x % -1 is 0 (INT_MIN % -1 would trap).
            C r = std::is_signed_v<C> && y == C(-1) ? C(0) : C(x % y);
            if constexpr (std::is_signed_v<C>)
              if (kind == BinaryKind::Mod && r != 0 && ((r < 0) != (y < 0)))
                r = wrapAdd(r, y);
            o[i] = r;
            break;
          }
          case BinaryKind::BitAnd: o[i] = T(x & y); break;
          case BinaryKind::BitOr: o[i] = T(x | y); break;
          case BinaryKind::BitXor: o[i] = T(x ^ y); break;
          case BinaryKind::ShiftLeft:
          case BinaryKind::ShiftRight: {
            using U = std::make_unsigned_t<T>;
            constexpr int bits = 8 * sizeof(T);
            // The amount as the unsigned bits of its type: a negative one
            // is at least the width.
            U amount = static_cast<U>(y);
            if (kind == BinaryKind::ShiftLeft)
              o[i] = amount >= U(bits) ? T(0) : T(static_cast<U>(static_cast<U>(x) << amount));
            else if (amount >= U(bits))
              o[i] = x < T(0) ? T(-1) : T(0); // (never for an unsigned x)
            else
              o[i] = T(x >> amount); // arithmetic for signed x (C++20)
            break;
          }
          case BinaryKind::Div:
            if (y == 0) {
              if (!err)
                err = kernelError("integer division by zero");
              o[i] = 0;
            } else if (std::is_signed_v<C> && y == C(-1)) {
              o[i] = wrapSub(C(0), x); // avoids INT_MIN / -1
            } else {
              o[i] = x / y; // C++ truncates toward zero, as ONNX does
            }
            break;
          default: break;
          }
        } else {
          switch (kind) {
          case BinaryKind::Add: o[i] = T(x + y); break;
          case BinaryKind::Sub: o[i] = T(x - y); break;
          case BinaryKind::Mul: o[i] = T(x * y); break;
          case BinaryKind::Div: o[i] = T(x / y); break;
          case BinaryKind::FMod: o[i] = T(std::fmod(x, y)); break;
          case BinaryKind::Mod: {
            // numpy's remainder: exact fmod, then the divisor's sign.
            C r = std::fmod(x, y);
            if (r != 0) {
              if ((r < 0) != (y < 0))
                r += y;
            } else {
              r = std::copysign(C(0), y);
            }
            o[i] = T(r);
            break;
          }
          default: break;
          }
        }
      });
    }
  });
  if (err)
    return std::move(err);
  return out;
}

Expected<Tensor> where(const Tensor &cond, const Tensor &x, const Tensor &y) {
  if (cond.dtype() != DType::Bool)
    return kernelError("Where's condition must be bool");
  if (x.dtype() != y.dtype())
    return kernelError("Where's branches have different types");
  llvm::ArrayRef<int64_t> shapes[] = {cond.shape(), x.shape(), y.shape()};
  NUNC_ASSIGN_OR_RETURN(shape, shape::broadcast(shapes));
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), shape));
  std::array<llvm::SmallVector<int64_t, 6>, 3> strides = {
      broadcastStrides(cond.shape(), shape), broadcastStrides(x.shape(), shape),
      broadcastStrides(y.shape(), shape)};
  size_t width = dtypeSize(x.dtype());
  const bool *c = cond.as<bool>();
  const char *px = x.raw(), *py = y.raw();
  char *o = out.mutableRaw();
  forEachIndex<3>(shape, strides, [&](int64_t i, const std::array<int64_t, 3> &off) {
    const char *src = c[off[0]] ? px + off[1] * width : py + off[2] * width;
    std::memcpy(o + i * width, src, width);
  });
  return out;
}

Expected<Tensor> clip(const Tensor &x, const Tensor *min, const Tensor *max) {
  for (const Tensor *bound : {min, max})
    if (bound && (bound->dtype() != x.dtype() || bound->numElements() != 1))
      return kernelError("Clip bounds must be scalars of the input's type");
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(x.dtype(), x.shape()));
  llvm::Error err = llvm::Error::success();
  dispatchDType(x.dtype(), [&]<typename T>() {
    using C = ComputeType<T>;
    if constexpr (std::is_same_v<T, bool>) {
      err = kernelError("Clip does not take bool tensors");
    } else {
      C lo = min ? C(min->as<T>()[0]) : std::numeric_limits<C>::lowest();
      C hi = max ? C(max->as<T>()[0]) : std::numeric_limits<C>::max();
      if constexpr (std::is_floating_point_v<C>) {
        if (!min)
          lo = -std::numeric_limits<C>::infinity();
        if (!max)
          hi = std::numeric_limits<C>::infinity();
      }
      const T *in = x.as<T>();
      T *o = out.mutableAs<T>();
      for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
        C v = in[i];
        // NaN stays NaN; min is applied before max, as in ONNX.
        if (v < lo)
          v = lo;
        if (v > hi)
          v = hi;
        o[i] = T(v);
      }
    }
  });
  if (err)
    return std::move(err);
  return out;
}

Expected<Tensor> cast(const Tensor &x, DType to) {
  if (x.dtype() == to)
    return x;
  NUNC_ASSIGN_OR_RETURN(out, Tensor::create(to, x.shape()));
  dispatchDType(x.dtype(), [&]<typename From>() {
    dispatchDType(to, [&]<typename To>() {
      const From *in = x.as<From>();
      To *o = out.mutableAs<To>();
      for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
        if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
          // Through double so that wide integers round once.
          if constexpr (std::is_same_v<From, double>)
            o[i] = To(static_cast<float>(in[i]));
          else
            o[i] = To(static_cast<float>(static_cast<double>(
                static_cast<ComputeType<From>>(in[i]))));
        } else {
          o[i] = convertValue<To>(in[i]);
        }
      }
    });
  });
  return out;
}

} // namespace mlir::nunc::kernels
