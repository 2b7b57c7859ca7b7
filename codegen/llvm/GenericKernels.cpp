//===- GenericKernels.cpp - every op as plain loops, through MLIR ---------===//

#include "GenericKernels.h"

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"
#include "nunc/Pipeline/Pipeline.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cfloat>
#include <cmath>
#include <limits>
#include <numbers>

using namespace mlir;
using namespace mlir::nunc;

MemRefType mlir::nunc::genericMemRefType(Type tensorType) {
  auto t = cast<RankedTensorType>(tensorType);
  Type e = t.getElementType();
  if (auto i = dyn_cast<IntegerType>(e))
    e = IntegerType::get(e.getContext(), i.getWidth() == 1 ? 8 : i.getWidth());
  // An empty tensor is never read or written (every loop over it runs zero
  // times), but the bare-pointer calling convention rejects a memref with a
  // 0 dim: give it size 1 there.
  SmallVector<int64_t> shape(t.getShape());
  if (t.getNumElements() == 0)
    for (int64_t &d : shape)
      d = std::max<int64_t>(d, 1);
  return MemRefType::get(shape, e);
}

namespace {

using Reader = std::function<Value(ValueRange)>;

/// Emits scalar loop code. Arithmetic happens in a compute type: f32 for
/// 16/32-bit floats, f64 for f64, i1 for bool, the signless integer otherwise.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpBuilder &b;
  Location loc;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32(int32_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
  Value floatConst(double v, Type t) {
    return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
  }
  Value intConst(int64_t v, Type t) {
    return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
  }

  static Type computeType(Type element) {
    MLIRContext *ctx = element.getContext();
    if (element.isF64())
      return element;
    if (isa<FloatType>(element))
      return Float32Type::get(ctx);
    if (element.isInteger(1))
      return IntegerType::get(ctx, 1);
    return IntegerType::get(ctx, element.getIntOrFloatBitWidth());
  }
  static bool isUnsigned(Type element) {
    auto i = dyn_cast<IntegerType>(element);
    return i && i.isUnsigned();
  }

  /// Loads element `ivs` of `m` (holding tensor elements of type `element`)
  /// in the compute type.
  Value read(Value m, ValueRange ivs, Type element) {
    Value v = memref::LoadOp::create(b, loc, m, ivs);
    if (element.isInteger(1))
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                   intConst(0, v.getType()));
    if (element.isBF16()) {
      Type i32 = b.getI32Type();
      Value bits = arith::ExtUIOp::create(
          b, loc, i32, arith::BitcastOp::create(b, loc, b.getI16Type(), v));
      return arith::BitcastOp::create(
          b, loc, b.getF32Type(), arith::ShLIOp::create(b, loc, bits, intConst(16, i32)));
    }
    if (isa<FloatType>(element) && !element.isF32() && !element.isF64())
      return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return v;
  }
  void write(Value v, Value m, ValueRange ivs, Type element) {
    Type storage = cast<MemRefType>(m.getType()).getElementType();
    if (element.isInteger(1))
      v = arith::ExtUIOp::create(b, loc, storage, v);
    else if (element.isBF16())
      v = truncToBF16(v);
    else if (isa<FloatType>(element) && v.getType() != storage)
      v = arith::TruncFOp::create(b, loc, storage, v);
    memref::StoreOp::create(b, loc, v, m, ivs);
  }

  /// f32 -> bf16 with round to nearest even (NaN stays NaN), in integer ops:
  /// LLVM would call a libgcc helper for the float truncation.
  Value truncToBF16(Value f) {
    Type i32 = b.getI32Type(), i16 = b.getI16Type();
    if (!f.getType().isF32())
      f = arith::TruncFOp::create(b, loc, b.getF32Type(), f);
    Value bits = arith::BitcastOp::create(b, loc, i32, f);
    Value lsb = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, bits, intConst(16, i32)), intConst(1, i32));
    Value rounded = arith::AddIOp::create(
        b, loc, bits, arith::AddIOp::create(b, loc, lsb, intConst(0x7fff, i32)));
    Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, f, f);
    Value quiet = arith::OrIOp::create(b, loc, bits, intConst(0x400000, i32));
    Value chosen = arith::SelectOp::create(b, loc, isNan, quiet, rounded);
    Value hi = arith::TruncIOp::create(
        b, loc, i16, arith::ShRUIOp::create(b, loc, chosen, intConst(16, i32)));
    return arith::BitcastOp::create(b, loc, b.getBF16Type(), hi);
  }

  /// Runs `body` for every index of `dims` (once, with no ivs, for rank 0).
  void forEach(ArrayRef<int64_t> dims, llvm::function_ref<void(ValueRange)> body) {
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d : dims) {
      lbs.push_back(index(0));
      ubs.push_back(index(d));
      steps.push_back(index(1));
    }
    scf::buildLoopNest(b, loc, lbs, ubs, steps,
                       [&](OpBuilder &nested, Location, ValueRange ivs) {
                         OpBuilder::InsertionGuard guard(b);
                         b.setInsertionPoint(nested.getInsertionBlock(),
                                             nested.getInsertionPoint());
                         body(ivs);
                       });
  }

  /// Folds `step` over every index of `dims`, starting from `init`.
  Value reduce(ArrayRef<int64_t> dims, Value init,
               llvm::function_ref<Value(ValueRange, Value)> step) {
    if (dims.empty())
      return step({}, init);
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d : dims) {
      lbs.push_back(index(0));
      ubs.push_back(index(d));
      steps.push_back(index(1));
    }
    scf::LoopNest nest = scf::buildLoopNest(
        b, loc, lbs, ubs, steps, ValueRange{init},
        [&](OpBuilder &nested, Location, ValueRange ivs, ValueRange acc) -> scf::ValueVector {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
          return {step(ivs, acc.front())};
        });
    return nest.results.front();
  }

  /// Reader for an operand of shape `shape` broadcast (numpy) to the loop.
  Reader broadcast(Value m, ArrayRef<int64_t> shape, size_t loopRank, Type element) {
    SmallVector<int64_t> s(shape);
    return [=, this](ValueRange ivs) {
      SmallVector<Value> idx;
      size_t offset = loopRank - s.size();
      for (size_t d = 0; d < s.size(); ++d)
        idx.push_back(s[d] == 1 ? index(0) : ivs[offset + d]);
      return read(m, idx, element);
    };
  }
  /// Reader for a per-axis parameter ([C] along `axis`, or one element).
  Reader perAxis(Value m, int64_t count, int64_t axis, Type element) {
    return [=, this](ValueRange ivs) {
      SmallVector<Value> idx;
      int64_t rank = cast<MemRefType>(m.getType()).getRank();
      for (int64_t d = 0; d < rank; ++d)
        idx.push_back(count == 1 ? index(0) : ivs[axis]);
      return read(m, idx, element);
    };
  }

  Value max(Value a, Value c, bool isUnsignedInt) {
    if (isa<FloatType>(a.getType()))
      return arith::MaxNumFOp::create(b, loc, a, c);
    return isUnsignedInt ? Value(arith::MaxUIOp::create(b, loc, a, c))
                         : Value(arith::MaxSIOp::create(b, loc, a, c));
  }
  Value min(Value a, Value c, bool isUnsignedInt) {
    if (isa<FloatType>(a.getType()))
      return arith::MinNumFOp::create(b, loc, a, c);
    return isUnsignedInt ? Value(arith::MinUIOp::create(b, loc, a, c))
                         : Value(arith::MinSIOp::create(b, loc, a, c));
  }
  Value add(Value a, Value c) {
    return isa<FloatType>(a.getType()) ? Value(arith::AddFOp::create(b, loc, a, c))
                                       : Value(arith::AddIOp::create(b, loc, a, c));
  }
  Value mul(Value a, Value c) {
    return isa<FloatType>(a.getType()) ? Value(arith::MulFOp::create(b, loc, a, c))
                                       : Value(arith::MulIOp::create(b, loc, a, c));
  }
  Value sub(Value a, Value c) {
    return isa<FloatType>(a.getType()) ? Value(arith::SubFOp::create(b, loc, a, c))
                                       : Value(arith::SubIOp::create(b, loc, a, c));
  }
  /// a / c of floats.
  Value div(Value a, Value c) { return arith::DivFOp::create(b, loc, a, c); }
  /// The comparison of floats a and c.
  Value cmp(arith::CmpFPredicate p, Value a, Value c) {
    return arith::CmpFOp::create(b, loc, p, a, c);
  }
  Value select(Value cond, Value a, Value c) {
    return arith::SelectOp::create(b, loc, cond, a, c);
  }
  /// e^x: MLIR's polynomial approximation for f32; exp64 for f64.
  Value exp(Value x) {
    return x.getType().isF64() ? exp64(x) : Value(math::ExpOp::create(b, loc, x));
  }
  /// sinh(x) for |x| < 1: its series to x^17 (error below x^19 / 19!, f64's
  /// half ulp).
  Value sinhSeries(Value x) {
    Type t = x.getType();
    Value p = mul(x, x);
    Value series = floatConst(1.0 / 355687428096000.0, t);
    for (double f : {1.0 / 1307674368000.0, 1.0 / 6227020800.0, 1.0 / 39916800, 1.0 / 362880,
                     1.0 / 5040, 1.0 / 120, 1.0 / 6, 1.0})
      series = add(mul(series, p), floatConst(f, t));
    return mul(x, series);
  }
  /// tanh of an f64 x without libm: below 1 in magnitude s / sqrt(1 + s^2)
  /// with s = sinh(x) by its series (no cancellation); from there (1 - e) /
  /// (1 + e), e = exp(-2|x|) < 0.14, the sign put back.
  Value tanh64(Value x) {
    Type t = x.getType();
    Value one = floatConst(1, t);
    Value ax = math::AbsFOp::create(b, loc, x);
    Value s = sinhSeries(x);
    Value nearZero = div(s, math::SqrtOp::create(b, loc, add(one, mul(s, s))));
    Value e = exp64(mul(ax, floatConst(-2, t)));
    Value far = math::CopySignOp::create(b, loc, div(sub(one, e), add(one, e)), x);
    return select(cmp(arith::CmpFPredicate::OLT, ax, one), nearZero, far);
  }
  /// tanh: MLIR's rational approximation for f32; tanh64 for f64.
  Value tanh(Value x) {
    return x.getType().isF64() ? tanh64(x) : Value(math::TanhOp::create(b, loc, x));
  }
  /// log(1 + y), accurate for small y: log(u) y / (u - 1), u = fl(1 + y)
  /// (Goldberg's compensation; y where u rounds to 1; log(u) where u - 1
  /// is y, as when y is infinite): MLIR's log is accurate near 1, its
  /// log1p off by ~1e-3 near 0.
  Value log1p(Value y) {
    Type t = y.getType();
    Value one = floatConst(1, t);
    Value u = arith::AddFOp::create(b, loc, one, y);
    Value um1 = arith::SubFOp::create(b, loc, u, one);
    Value ratio = arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, um1, y), one,
        arith::DivFOp::create(b, loc, y, um1));
    return arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, one), y,
        arith::MulFOp::create(b, loc, log(u), ratio));
  }
  /// atan(x) of f32 x, within ~2 ulps: |x| reduced to at most tan(pi/8)
  /// (pi/2 - atan(1/|x|) past tan(3 pi/8), pi/4 + atan((|x| - 1) / (|x| +
  /// 1)) past tan(pi/8)), then Cephes's atanf polynomial; the sign put back.
  Value atanF32(Value x) {
    Type t = x.getType();
    auto c = [&](double v) { return floatConst(v, t); };
    Value a = math::AbsFOp::create(b, loc, x);
    auto past = [&](double edge) {
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a, c(edge)).getResult();
    };
    Value far = past(2.414213562373095), mid = past(0.4142135623730950);
    Value one = c(1);
    Value reduced = arith::SelectOp::create(
        b, loc, far, arith::DivFOp::create(b, loc, c(-1), a),
        arith::SelectOp::create(b, loc, mid,
                                arith::DivFOp::create(b, loc,
                                                      arith::SubFOp::create(b, loc, a, one),
                                                      arith::AddFOp::create(b, loc, a, one)),
                                a));
    Value base = arith::SelectOp::create(
        b, loc, far, c(M_PI / 2), arith::SelectOp::create(b, loc, mid, c(M_PI / 4), c(0)));
    Value z = arith::MulFOp::create(b, loc, reduced, reduced);
    Value p = c(8.05374449538e-2);
    for (double k : {-1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1})
      p = arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, p, z), c(k));
    Value r = arith::AddFOp::create(
        b, loc, base,
        arith::AddFOp::create(
            b, loc,
            arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, p, z), reduced),
            reduced));
    return math::CopySignOp::create(b, loc, r, x);
  }
  /// ln x: MLIR's polynomial approximation for f32, which takes a
  /// subnormal x as FLT_MIN (ln 3e-39 was -87.34, not -88.70): such an x
  /// is scaled by 2^23 first (exact, and enough to make the smallest,
  /// 2^-149, normal); log64 for f64.
  Value log(Value x) {
    if (x.getType().isF64())
      return log64(x);
    Type t = x.getType();
    Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                        floatConst(std::numeric_limits<float>::min(), t));
    Value scaled = arith::SelectOp::create(
        b, loc, small, arith::MulFOp::create(b, loc, x, floatConst(0x1p23, t)), x);
    Value l = math::LogOp::create(b, loc, scaled);
    return arith::SelectOp::create(
        b, loc, small, arith::SubFOp::create(b, loc, l, floatConst(23 * std::numbers::ln2, t)), l);
  }

  /// C's fmod(x, y) of f32 or f64 values without libm, exact: |x| less
  /// the largest |y| 2^k that fits, then each smaller one that still fits
  /// (every subtraction exact by Sterbenz's lemma, as t <= r < 2t). NaN
  /// where x is not finite or y is 0 or NaN; x where y is infinite.
  Value fmod(Value x, Value y) {
    Type t = x.getType();
    Value zero = floatConst(0, t), one = floatConst(1, t);
    Value inf = floatConst(std::numeric_limits<double>::infinity(), t);
    Value ax = math::AbsFOp::create(b, loc, x), ay = math::AbsFOp::create(b, loc, y);
    Value xFinite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, ax, inf);
    Value yUsable = arith::AndIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, ay, inf),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, ay, zero));
    // (The loops run on 0 mod 1 where the result is decided otherwise.)
    Value loopable = arith::AndIOp::create(b, loc, xFinite, yUsable);
    Value r0 = arith::SelectOp::create(b, loc, loopable, ax, zero);
    Value m = arith::SelectOp::create(b, loc, loopable, ay, one);
    auto grow = scf::WhileOp::create(
        b, loc, TypeRange{t}, ValueRange{m},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value twice = arith::AddFOp::create(nb, l, a[0], a[0]);
          Value fits = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLE, twice, r0);
          // (The loop's result is what it stopped on: the largest that fits,
          // not its double, which may be inf.)
          scf::ConditionOp::create(
              nb, l, fits, ValueRange{arith::SelectOp::create(nb, l, fits, twice, a[0])});
        },
        [&](OpBuilder &nb, Location l, ValueRange a) { scf::YieldOp::create(nb, l, a); });
    Value half = floatConst(0.5, t);
    auto reduce = scf::WhileOp::create(
        b, loc, TypeRange{t, t}, ValueRange{r0, grow.getResult(0)},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value more = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGE, a[1], m);
          scf::ConditionOp::create(nb, l, more, a);
        },
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value fits = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGE, a[0], a[1]);
          Value r = arith::SelectOp::create(nb, l, fits,
                                            arith::SubFOp::create(nb, l, a[0], a[1]), a[0]);
          scf::YieldOp::create(nb, l, ValueRange{r, arith::MulFOp::create(nb, l, a[1], half)});
        });
    Value r = math::CopySignOp::create(b, loc, reduce.getResult(0), x);
    Value nan = floatConst(std::numeric_limits<double>::quiet_NaN(), t);
    Value yInfinite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, ay, inf);
    Value result = arith::SelectOp::create(b, loc, yUsable, r, nan);
    result = arith::SelectOp::create(b, loc, yInfinite, x, result);
    return arith::SelectOp::create(b, loc, xFinite, result, nan);
  }

  /// e^x of an f64 x without libm, within ~2 ulp: x = k ln2 + r with ln2 in
  /// two parts (k ln2_hi exact), |r| <= ln2/2, e^r by its Taylor series to
  /// r^13 (error < 1e-17), times 2^k built from the exponent bits in two
  /// halves (so a subnormal result rounds once). Overflow gives inf,
  /// underflow 0, NaN NaN.
  Value exp64(Value x) {
    Type f64 = b.getF64Type(), i64 = b.getI64Type();
    auto c = [&](double v) { return floatConst(v, f64); };
    const double ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10;
    // (maxnumf takes NaN to -746, then the result 0; NaN is put back last.)
    Value xc = arith::MinNumFOp::create(b, loc, arith::MaxNumFOp::create(b, loc, x, c(-746)),
                                        c(710));
    Value k = math::RoundEvenOp::create(b, loc, mul(xc, c(1.4426950408889634074)));
    Value r = sub(sub(xc, mul(k, c(ln2Hi))), mul(k, c(ln2Lo)));
    Value p = c(1.0 / 6227020800.0);
    for (int i = 12; i >= 0; --i) {
      double f = 1;
      for (int j = 2; j <= i; ++j)
        f *= j;
      p = add(mul(p, r), c(1.0 / f));
    }
    Value ki = arith::FPToSIOp::create(b, loc, i64, k);
    Value half = arith::ShRSIOp::create(b, loc, ki, intConst(1, i64));
    Value rest = arith::SubIOp::create(b, loc, ki, half);
    auto pow2 = [&](Value e) {
      Value bits = arith::ShLIOp::create(
          b, loc, arith::AddIOp::create(b, loc, e, intConst(1023, i64)), intConst(52, i64));
      return arith::BitcastOp::create(b, loc, f64, bits).getResult();
    };
    Value y = mul(mul(p, pow2(half)), pow2(rest));
    y = arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, c(709.782712893384)),
        c(INFINITY), y);
    y = arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, c(-745.2)), c(0), y);
    return arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x), x, y);
  }

  /// ln x of an f64 x without libm, within ~2 ulp: x = m 2^e with m in
  /// [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^54 first), ln m =
  /// 2 atanh(f), f = (m - 1) / (m + 1), |f| <= 0.172, by its series to f^23
  /// (error < 1e-18), plus e ln2 in two parts. ln 0 = -inf, ln inf = inf,
  /// negative or NaN x gives NaN.
  Value log64(Value x) {
    Type f64 = b.getF64Type(), i64 = b.getI64Type();
    auto c = [&](double v) { return floatConst(v, f64); };
    auto i = [&](int64_t v) { return intConst(v, i64); };
    Value tiny = cmp(arith::CmpFPredicate::OLT, x, c(0x1p-1022));
    Value scaled = select(tiny, mul(x, c(0x1p54)), x);
    Value bits = arith::BitcastOp::create(b, loc, i64, scaled);
    Value e = arith::SubIOp::create(b, loc, arith::ShRUIOp::create(b, loc, bits, i(52)), i(1023));
    e = select(tiny, arith::SubIOp::create(b, loc, e, i(54)), e);
    Value mantissa = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, bits, i((int64_t{1} << 52) - 1)),
        i(int64_t{1023} << 52));
    Value m = arith::BitcastOp::create(b, loc, f64, mantissa);
    Value high = cmp(arith::CmpFPredicate::OGT, m, c(1.41421356237309504880));
    m = select(high, mul(m, c(0.5)), m);
    e = select(high, arith::AddIOp::create(b, loc, e, i(1)), e);
    Value f = arith::DivFOp::create(b, loc, sub(m, c(1)), add(m, c(1)));
    Value s = mul(f, f);
    Value series = c(1.0 / 23);
    for (int d = 21; d >= 1; d -= 2)
      series = add(mul(series, s), c(1.0 / d));
    Value lnM = mul(mul(c(2), f), series);
    Value ef = arith::SIToFPOp::create(b, loc, f64, e);
    Value y = add(mul(ef, c(6.93147180369123816490e-01)),
                  add(mul(ef, c(1.90821492927058770002e-10)), lnM));
    y = select(cmp(arith::CmpFPredicate::OEQ, x, c(0)), c(-INFINITY), y);
    y = select(cmp(arith::CmpFPredicate::OEQ, x, c(INFINITY)), c(INFINITY), y);
    // x < 0 or NaN: NaN.
    return select(cmp(arith::CmpFPredicate::OGE, x, c(0)), y, c(NAN));
  }

  /// sin(x) or cos(x) of an f32 x, without libm, to within ~1e-7 over the
  /// whole f32 range (MLIR's polynomial approximation is off by ~6e-6 at
  /// |x| = 100 and gives inf past ~1e9). In f64: |x| times 2/pi in eight
  /// 24-bit pieces (fdlibm's table), each product exact, each taken mod 4
  /// (exact), summed: the quadrant and the fraction r of |x| / (pi/2) to
  /// ~2^-50; then Taylor series of sin and cos on |r pi/2| <= pi/4 (terms
  /// to r^16: error < 1e-16). inf and NaN give NaN.
  Value sinCos(Value x, bool cosine) {
    Type f64 = b.getF64Type(), i64 = b.getI64Type();
    auto c = [&](double v) { return floatConst(v, f64); };
    Value d = math::AbsFOp::create(b, loc, arith::ExtFOp::create(b, loc, f64, x));
    static constexpr uint32_t kTwoOverPi[] = {0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1,
                                              0xF534DD, 0xC0DB62, 0x95993C, 0x439041};
    Value sum = c(0);
    for (int i = 0; i < 8; ++i) {
      Value t = mul(d, c(std::ldexp(static_cast<double>(kTwoOverPi[i]), -24 * (i + 1))));
      sum = add(sum, sub(t, mul(c(4), math::FloorOp::create(b, loc, mul(t, c(0.25))))));
    }
    Value k = math::RoundEvenOp::create(b, loc, sum);
    Value r = mul(sub(sum, k), c(1.57079632679489661923));
    Value r2 = mul(r, r);
    // sin r = r (1 - r^2/3! + r^4/5! - ...), cos r = 1 - r^2/2! + r^4/4! - ...
    Value sp = c(-1.0 / 1307674368000.0), cp = c(1.0 / 20922789888000.0);
    const double sinTerms[] = {1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0,
                               -1.0 / 5040.0,       1.0 / 120.0,       -1.0 / 6.0, 1.0};
    const double cosTerms[] = {-1.0 / 87178291200.0, 1.0 / 479001600.0, -1.0 / 3628800.0,
                               1.0 / 40320.0,        -1.0 / 720.0,      1.0 / 24.0,
                               -1.0 / 2.0,           1.0};
    for (double t : sinTerms)
      sp = add(mul(sp, r2), c(t));
    for (double t : cosTerms)
      cp = add(mul(cp, r2), c(t));
    Value sinR = mul(sp, r), cosR = cp;
    // The quadrant k mod 4 (k < 36; 0 where the sum is NaN), one more for
    // cos (cos y = sin(y + pi/2)); sin is odd, cos even.
    Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, k, k);
    Value kInt = arith::FPToSIOp::create(b, loc, i64,
                                         arith::SelectOp::create(b, loc, isNan, c(0), k));
    if (cosine)
      kInt = arith::AddIOp::create(b, loc, kInt, intConst(1, i64));
    Value q = arith::AndIOp::create(b, loc, kInt, intConst(3, i64));
    Value odd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                      arith::AndIOp::create(b, loc, q, intConst(1, i64)),
                                      intConst(0, i64));
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, q,
                                           intConst(2, i64));
    if (!cosine) {
      // (The sign bit: sin(-0) is -0.)
      Type i32 = b.getI32Type();
      Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          arith::BitcastOp::create(b, loc, i32, x),
                                          intConst(0, i32));
      negative = arith::XOrIOp::create(b, loc, negative, below);
    }
    Value v = arith::SelectOp::create(b, loc, odd, cosR, sinR);
    v = arith::SelectOp::create(b, loc, negative, arith::NegFOp::create(b, loc, v), v);
    return arith::TruncFOp::create(b, loc, b.getF32Type(), v);
  }

  /// act(x) for the fused ops' activation names.
  Value activation(Value x, StringRef kind, float lo, float hi, float alpha = 0.01f,
                   float beta = 0) {
    Type t = x.getType();
    if (kind == "none")
      return x;
    if (kind == "silu")
      return arith::MulFOp::create(b, loc, x, activation(x, "sigmoid", 0, 0));
    if (kind == "hard_sigmoid" || kind == "hard_swish") {
      // The bounds as Clip's (NaN stays NaN), after alpha x + beta rounded twice.
      Value h = arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, x, floatConst(alpha, t)), floatConst(beta, t));
      h = arith::MinNumFOp::create(b, loc, arith::MaxNumFOp::create(b, loc, h, floatConst(0, t)),
                                   floatConst(1, t));
      return kind == "hard_swish" ? Value(arith::MulFOp::create(b, loc, x, h)) : h;
    }
    if (kind == "leaky_relu")
      return arith::SelectOp::create(
          b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, floatConst(0, t)),
          arith::MulFOp::create(b, loc, x, floatConst(alpha, t)), x);
    if (kind == "relu")
      return arith::MaxNumFOp::create(b, loc, x, floatConst(0, t));
    if (kind == "clip")
      return arith::MinNumFOp::create(
          b, loc, arith::MaxNumFOp::create(b, loc, x, floatConst(lo, t)), floatConst(hi, t));
    if (kind == "sigmoid")
      return arith::DivFOp::create(
          b, loc, floatConst(1, t),
          arith::AddFOp::create(b, loc, floatConst(1, t),
                                exp(arith::NegFOp::create(b, loc, x))));
    if (kind == "tanh")
      return tanh(x);
    if (kind == "gelu") {
      Value e = math::ErfOp::create(b, loc, arith::MulFOp::create(b, loc, x, floatConst(M_SQRT1_2, t)));
      return arith::MulFOp::create(
          b, loc, arith::MulFOp::create(b, loc, x, floatConst(0.5, t)),
          arith::AddFOp::create(b, loc, e, floatConst(1, t)));
    }
    // gelu_tanh
    Value x3 = arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
    Value inner = arith::MulFOp::create(
        b, loc, floatConst(0.7978845608028654, t),
        arith::AddFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x3, floatConst(0.044715, t))));
    return arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, x, floatConst(0.5, t)),
        arith::AddFOp::create(b, loc, tanh(inner), floatConst(1, t)));
  }

  /// A fused op's epilogue activation: its kind, then the post Mul and Add.
  Value epilogue(Value x, const EpilogueActivation &e) {
    Value y = activation(x, e.kind, e.min, e.max, e.alpha, e.beta);
    Type t = x.getType();
    if (e.postMul != 1.f)
      y = arith::MulFOp::create(b, loc, y, floatConst(e.postMul, t));
    if (e.postAdd != 0.f)
      y = arith::AddFOp::create(b, loc, y, floatConst(e.postAdd, t));
    return y;
  }

  /// Converts a compute-type value to the compute type of `to` with ONNX
  /// Cast rules; float-to-int saturates (no poison for out-of-range values).
  Value convert(Value v, Type from, Type to) {
    Type dst = computeType(to);
    Type src = v.getType();
    if (src == dst && isUnsigned(from) == isUnsigned(to))
      return v;
    bool srcFloat = isa<FloatType>(src), dstFloat = isa<FloatType>(dst);
    if (to.isInteger(1)) {
      if (srcFloat)
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, floatConst(0, src));
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, intConst(0, src));
    }
    if (srcFloat && dstFloat) {
      unsigned sw = src.getIntOrFloatBitWidth(), dw = dst.getIntOrFloatBitWidth();
      if (sw == dw)
        return v;
      return sw < dw ? Value(arith::ExtFOp::create(b, loc, dst, v))
                     : Value(arith::TruncFOp::create(b, loc, dst, v));
    }
    if (!srcFloat && dstFloat) {
      if (from.isInteger(1) || isUnsigned(from))
        return arith::UIToFPOp::create(b, loc, dst, v);
      return arith::SIToFPOp::create(b, loc, dst, v);
    }
    if (srcFloat) {
      // Clamp to the target's range and map NaN to 0 before converting.
      unsigned w = dst.getIntOrFloatBitWidth();
      double lo = isUnsigned(to) ? 0.0 : -std::ldexp(1.0, w - 1);
      double past = isUnsigned(to) ? std::ldexp(1.0, w) : std::ldexp(1.0, w - 1);
      // The largest in range: past - 1 is not a double at 64 bits (it rounds
      // to past, whose conversion overflows); those take the largest code
      // below by a select.
      bool exactTop = w < 53;
      double hi = exactTop ? past - 1 : std::nextafter(past, 0.0);
      Type wide = b.getF64Type();
      Value x = src.isF64() ? v : Value(arith::ExtFOp::create(b, loc, wide, v));
      Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
      Value over = exactTop ? Value()
                            : Value(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                                          floatConst(past, wide)));
      x = arith::MaximumFOp::create(b, loc, x, floatConst(lo, wide));
      x = arith::MinimumFOp::create(b, loc, x, floatConst(hi, wide));
      x = arith::SelectOp::create(b, loc, isNan, floatConst(0, wide), x);
      Value code = isUnsigned(to) ? Value(arith::FPToUIOp::create(b, loc, dst, x))
                                  : Value(arith::FPToSIOp::create(b, loc, dst, x));
      if (exactTop)
        return code;
      int64_t top = isUnsigned(to) ? -1 : std::numeric_limits<int64_t>::max();
      return arith::SelectOp::create(b, loc, over, intConst(top, dst), code);
    }
    unsigned sw = src.getIntOrFloatBitWidth(), dw = dst.getIntOrFloatBitWidth();
    if (sw == dw)
      return v;
    if (sw > dw)
      return arith::TruncIOp::create(b, loc, dst, v);
    if (from.isInteger(1) || isUnsigned(from))
      return arith::ExtUIOp::create(b, loc, dst, v);
    return arith::ExtSIOp::create(b, loc, dst, v);
  }

  Value toIndex(Value v) { return arith::IndexCastOp::create(b, loc, b.getIndexType(), v); }
};

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }
Type elementOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }

} // namespace

//===----------------------------------------------------------------------===//
// Kernel bodies
//===----------------------------------------------------------------------===//

namespace {

class GenericEmitter {
public:
  GenericEmitter(KernelBuilder &k, Operation *op, ArrayRef<Value> args)
      : k(k), b(k.b), loc(k.loc), op(op), args(args) {}

  /// Emits the body; returns the status value (i32).
  FailureOr<Value> emit();

private:
  KernelBuilder &k;
  OpBuilder &b;
  Location loc;
  Operation *op;
  ArrayRef<Value> args; // memrefs: operands, results, [scratch]

  Value operandMem(unsigned i) { return args[i]; }
  Value resultMem(unsigned i = 0) { return args[op->getNumOperands() + i]; }
  Value scratchMem() { return args.back(); }

  LogicalResult unsupported(const Twine &why) {
    return op->emitError() << "the compiler cannot lower this op: " << why;
  }

  /// out = fn(readers...) over the result's shape.
  void elementwise(ArrayRef<Reader> readers,
                   llvm::function_ref<Value(ArrayRef<Value>)> fn, unsigned result = 0) {
    Value out = resultMem(result);
    Type element = elementOf(op->getResult(result));
    k.forEach(shapeOf(op->getResult(result)), [&](ValueRange ivs) {
      SmallVector<Value> scalars;
      for (const Reader &r : readers)
        scalars.push_back(r(ivs));
      k.write(fn(scalars), out, ivs, element);
    });
  }
  Reader bcast(unsigned operand) {
    Value v = op->getOperand(operand);
    return k.broadcast(operandMem(operand), shapeOf(v), shapeOf(op->getResult(0)).size(),
                       elementOf(v));
  }

  LogicalResult emitElementwise();
  LogicalResult emitDataMovement(Value &status);
  /// x (f32) rounded to a per-tensor !quant.uniform grid, as fake_quantize.
  /// x rounded to `grid` (FakeQuantize); a roundingZeroPoint is added to
  /// the quotient before the rounding and taken off after (average_pool's
  /// output_quantization).
  Value roundToGrid(Value x, Type grid, float roundingZeroPoint = 0);
  LogicalResult emitReduction();
  LogicalResult emitContraction();
  LogicalResult emitWindowed();
  /// A softmax on its grids (onnxruntime's QLinearSoftmax; see the op):
  /// each row of `outer` along `axis`.
  LogicalResult emitQLinearSoftmax(SoftmaxOp s, ArrayRef<int64_t> outer, int64_t axis);
  LogicalResult emitQuantized();
  /// Col2Im: each output pixel gathers its taps.
  LogicalResult emitCol2Im();
  /// Resize: per-dim tap tables as constant globals.
  LogicalResult emitResize();
  /// GridSample: per output pixel its taps' indices and weights from the
  /// grid, then each channel's sum.
  LogicalResult emitGridSample();
  /// A constant global of `values` in the kernel module, read here.
  Value constantTable(ArrayRef<int64_t> shape, Type element, ArrayRef<Attribute> values);

  /// x rounded half to even and saturated to the integer type outEl.
  Value roundToInteger(Value x, Type outEl) {
    Type ct = KernelBuilder::computeType(outEl);
    unsigned w = ct.getIntOrFloatBitWidth();
    bool u = KernelBuilder::isUnsigned(outEl);
    double lo = u ? 0 : -std::ldexp(1.0, w - 1);
    double hi = u ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
    Value r = math::RoundEvenOp::create(b, loc, x);
    // NaN: the lowest code, as the evaluator and onnxruntime give (maxnum
    // takes the bound where the other operand is NaN).
    r = arith::MaxNumFOp::create(b, loc, r, k.floatConst(lo, r.getType()));
    r = arith::MinimumFOp::create(b, loc, r, k.floatConst(hi, r.getType()));
    return u ? Value(arith::FPToUIOp::create(b, loc, ct, r))
             : Value(arith::FPToSIOp::create(b, loc, ct, r));
  }
};

FailureOr<Value> GenericEmitter::emit() {
  Value status = k.i32(0);
  LogicalResult r = success();
  if (isa<AddOp, SubOp, MulOp, DivOp, PowOp, EqualOp, GreaterOp, MinOp, MaxOp, ModOp,
          BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, ShiftLeftOp, ShiftRightOp, WhereOp, SqrtOp,
          ErfOp, ExpOp, LogOp, SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp,
          AsinhOp, AcoshOp, AtanhOp, SoftplusOp, AbsOp, TanhOp, FloorOp, CeilOp, RoundOp,
          ReluOp, LeakyReluOp, HardSigmoidOp, HardSwishOp, SiluOp, SigmoidOp, GeluOp, ClipOp,
          CastOp, ExpandOp, BatchNormOp>(op))
    r = emitElementwise();
  else if (isa<TransposeOp, SliceOp, PadOp, ConcatOp, GatherOp, GatherElementsOp, GatherNDOp,
               ScatterNDOp, ScatterElementsOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp,
               IdentityOp, ConstantOfShapeOp, ShapeOp>(op))
    r = emitDataMovement(status);
  else if (isa<ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp, ArgMaxOp,
               ArgMinOp, CumSumOp, CumProdOp, TopKOp, SoftmaxOp, LayerNormOp,
               GlobalAveragePoolOp>(op))
    r = emitReduction();
  else if (isa<MatMulOp, GemmOp, LinearOp, AttentionOp>(op))
    r = emitContraction();
  else if (isa<ConvOp, FusedConvOp, ConvIntegerOp, QLinearConvOp, MaxPoolOp, AveragePoolOp>(op))
    r = emitWindowed();
  else if (isa<Col2ImOp>(op))
    r = emitCol2Im();
  else if (isa<ResizeOp>(op))
    r = emitResize();
  else if (isa<GridSampleOp>(op))
    r = emitGridSample();
  else if (isa<QuantizeLinearOp, DequantizeLinearOp, FakeQuantizeOp, DynamicQuantizeLinearOp,
               DynamicFakeQuantizeOp, MatMulIntegerOp, QLinearMatMulOp>(op))
    r = emitQuantized();
  else
    r = unsupported("no generic lowering for " + op->getName().getStringRef());
  if (failed(r))
    return failure();
  return status;
}

LogicalResult GenericEmitter::emitElementwise() {
  Type outElem = elementOf(op->getResult(0));
  bool outUnsigned = KernelBuilder::isUnsigned(outElem);
  // Add/Sub/Mul/Div's output grid, last (f32 only: the verifier says so).
  auto outputGrid = op->getAttrOfType<TypeAttr>("output_quantization");
  auto rounded = [&](Value v) { return outputGrid ? roundToGrid(v, outputGrid.getValue()) : v; };
  auto binaryArith = [&](auto floatOp, auto intOp) {
    elementwise({bcast(0), bcast(1)}, [&](ArrayRef<Value> s) -> Value {
      if (isa<FloatType>(s[0].getType()))
        return rounded(decltype(floatOp)::create(b, loc, s[0], s[1]));
      return decltype(intOp)::create(b, loc, s[0], s[1]);
    });
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](AddOp) { binaryArith(arith::AddFOp(), arith::AddIOp()); return success(); })
      .Case([&](SubOp) { binaryArith(arith::SubFOp(), arith::SubIOp()); return success(); })
      .Case([&](MulOp) { binaryArith(arith::MulFOp(), arith::MulIOp()); return success(); })
      .Case([&](DivOp) {
        elementwise({bcast(0), bcast(1)}, [&](ArrayRef<Value> s) -> Value {
          if (isa<FloatType>(s[0].getType()))
            return rounded(arith::DivFOp::create(b, loc, s[0], s[1]));
          // Integer division by zero gives 0 instead of a trap; x / -1 is
          // 0 - x so that INT_MIN / -1 wraps.
          Type t = s[0].getType();
          Value zero = k.intConst(0, t), one = k.intConst(1, t);
          Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s[1], zero);
          Value safe = arith::SelectOp::create(b, loc, isZero, one, s[1]);
          Value q;
          if (outUnsigned) {
            q = arith::DivUIOp::create(b, loc, s[0], safe);
          } else {
            Value isMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s[1],
                                                     k.intConst(-1, t));
            Value neg = arith::SubIOp::create(b, loc, zero, s[0]);
            Value div = arith::DivSIOp::create(
                b, loc, s[0], arith::SelectOp::create(b, loc, isMinusOne, one, safe));
            q = arith::SelectOp::create(b, loc, isMinusOne, neg, div);
          }
          return arith::SelectOp::create(b, loc, isZero, zero, q);
        });
        return success();
      })
      .Case([&](PowOp p) {
        Type baseElem = elementOf(p.getLhs()), expElem = elementOf(p.getRhs());
        // pow as C defines it: exp(y log|x|), negated for a negative x and an
        // odd integral y, NaN for a negative x and a fractional y, 1 for
        // y = 0 (math.powf's expansion gives NaN for every negative x, and
        // the variance of an unfused LayerNorm is Pow(x - mean, 2)).
        auto pow = [&](Value x, Value y) -> Value {
          Type t = x.getType();
          Value zero = k.floatConst(0, t), one = k.floatConst(1, t);
          // (k.exp and k.log: f64 without libm.)
          Value magnitude = k.exp(
              arith::MulFOp::create(b, loc, y, k.log(math::AbsFOp::create(b, loc, x))));
          Value rounded = math::RoundEvenOp::create(b, loc, y);
          Value integral = k.cmp(arith::CmpFPredicate::OEQ, rounded, y);
          Value half = arith::MulFOp::create(b, loc, y, k.floatConst(0.5, t));
          Value odd = arith::AndIOp::create(
              b, loc, integral,
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE,
                                    math::FloorOp::create(b, loc, half), half));
          Value negative =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
          Value signedResult = arith::SelectOp::create(
              b, loc, odd, arith::NegFOp::create(b, loc, magnitude), magnitude);
          Value nan = k.floatConst(std::numeric_limits<double>::quiet_NaN(), t);
          Value ofNegative = arith::SelectOp::create(b, loc, integral, signedResult, nan);
          Value result = arith::SelectOp::create(b, loc, negative, ofNegative, magnitude);
          // C's special cases that exp(y log|x|) misses (onnxruntime calls
          // std::pow): -inf to a fractional (or infinite) power is +inf or
          // +0 by y's sign; a zero to an odd power keeps its sign; 1 to any
          // power and -1 to an infinite one are 1.
          auto eq = [&](Value a, double v) {
            return k.cmp(arith::CmpFPredicate::OEQ, a, k.floatConst(v, t));
          };
          Value inf = k.floatConst(std::numeric_limits<double>::infinity(), t);
          // (Unordered: a NaN y is not fractional, and pow(-inf, NaN) is NaN.)
          Value fractional = k.cmp(arith::CmpFPredicate::ONE, rounded, y);
          Value fractionalOfMinusInf = arith::AndIOp::create(
              b, loc, eq(x, -std::numeric_limits<double>::infinity()), fractional);
          result = k.select(fractionalOfMinusInf,
                            k.select(k.cmp(arith::CmpFPredicate::OGT, y, zero), inf, zero),
                            result);
          Value oddOfZero = arith::AndIOp::create(b, loc, eq(x, 0), odd);
          result = k.select(oddOfZero, math::CopySignOp::create(b, loc, magnitude, x), result);
          Value absX = math::AbsFOp::create(b, loc, x);
          Value isOne = arith::OrIOp::create(
              b, loc, eq(x, 1),
              arith::AndIOp::create(b, loc, eq(absX, 1),
                                    eq(math::AbsFOp::create(b, loc, y),
                                       std::numeric_limits<double>::infinity())));
          Value yZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, y, zero);
          return k.select(arith::OrIOp::create(b, loc, yZero, isOne), one, result);
        };
        // An integer to a non-negative integer power: exact, by squaring in
        // 64 bits, wrapping around as the integer type does (numpy's
        // power; a double would round past 2^53 and pow's exp/log form
        // lands below integers). Negative exponents take the double form.
        auto integerPow = [&](Value base, Value e) -> Value {
          Type i64 = b.getI64Type();
          Value zero = k.intConst(0, i64), one = k.intConst(1, i64);
          auto loop = scf::ForOp::create(
              b, loc, k.intConst(0, i64), k.intConst(64, i64), one, ValueRange{one, base, e},
              [&](OpBuilder &nested, Location, Value, ValueRange acc) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
                Value bit = arith::AndIOp::create(b, loc, acc[2], one);
                Value odd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit, zero);
                Value times = arith::MulIOp::create(b, loc, acc[0], acc[1]);
                Value result = arith::SelectOp::create(b, loc, odd, times, acc[0]);
                Value square = arith::MulIOp::create(b, loc, acc[1], acc[1]);
                Value rest = arith::ShRUIOp::create(b, loc, acc[2], one);
                scf::YieldOp::create(b, loc, ValueRange{result, square, rest});
              });
          return loop.getResult(0);
        };
        // An integer base: exact for a whole exponent in [0, 2^62] (a float
        // one too, as the evaluator).
        bool integral = isa<IntegerType>(baseElem) && !baseElem.isInteger(1);
        elementwise({bcast(0), bcast(1)}, [&](ArrayRef<Value> s) -> Value {
          Type f = b.getF64Type();
          if (s[0].getType().isF32() && isa<FloatType>(s[1].getType())) {
            Value e = k.convert(s[1], expElem, b.getF32Type());
            return pow(s[0], e);
          }
          Value base = k.convert(s[0], baseElem, f), e = k.convert(s[1], expElem, f);
          Value viaDouble = k.convert(pow(base, e), f, baseElem);
          if (!integral)
            return viaDouble;
          Type i64 = b.getI64Type();
          Value exponent = k.convert(s[1], expElem, i64);
          Value exact = k.convert(integerPow(k.convert(s[0], baseElem, i64), exponent), i64,
                                  baseElem);
          if (isa<FloatType>(expElem)) {
            // Whole and within [0, 2^62] (e is s[1] in f64; NaN fails).
            Value whole = k.cmp(arith::CmpFPredicate::OEQ, math::FloorOp::create(b, loc, e), e);
            Value inRange = arith::AndIOp::create(
                b, loc, k.cmp(arith::CmpFPredicate::OGE, e, k.floatConst(0, f)),
                k.cmp(arith::CmpFPredicate::OLE, e, k.floatConst(std::ldexp(1.0, 62), f)));
            return k.select(arith::AndIOp::create(b, loc, whole, inRange), exact, viaDouble);
          }
          if (k.isUnsigned(expElem))
            return exact;
          Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, exponent,
                                                 k.intConst(0, i64));
          return arith::SelectOp::create(b, loc, negative, viaDouble, exact);
        });
        return success();
      })
      .Case([&](EqualOp e) {
        elementwise({bcast(0), bcast(1)}, [&](ArrayRef<Value> s) -> Value {
          if (isa<FloatType>(s[0].getType()))
            return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, s[0], s[1]);
          return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s[0], s[1]);
        });
        return success();
      })
      .Case([&](GreaterOp g) {
        bool unsignedInt = KernelBuilder::isUnsigned(elementOf(g.getLhs()));
        elementwise({bcast(0), bcast(1)}, [&](ArrayRef<Value> s) -> Value {
          if (isa<FloatType>(s[0].getType()))
            return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, s[0], s[1]);
          return arith::CmpIOp::create(
              b, loc, unsignedInt ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt, s[0],
              s[1]);
        });
        return success();
      })
      .Case<MinOp, MaxOp>([&](Operation *o) {
        // (maximumf / minimumf: NaN where either is, as numpy's.)
        bool max = isa<MaxOp>(o), unsignedInt = KernelBuilder::isUnsigned(outElem);
        elementwise({bcast(0), bcast(1)}, [&](ArrayRef<Value> s) -> Value {
          if (isa<FloatType>(s[0].getType()))
            return max ? Value(arith::MaximumFOp::create(b, loc, s[0], s[1]))
                       : Value(arith::MinimumFOp::create(b, loc, s[0], s[1]));
          return max ? k.max(s[0], s[1], unsignedInt) : k.min(s[0], s[1], unsignedInt);
        });
        return success();
      })
      .Case([&](ModOp mod) {
        bool fmod = mod.getFmod();
        elementwise({bcast(0), bcast(1)}, [&](ArrayRef<Value> s) -> Value {
          Value x = s[0], y = s[1];
          Type t = x.getType();
          if (isa<FloatType>(t)) {
            Value r = k.fmod(x, y);
            if (fmod)
              return r;
            // numpy's remainder: the divisor's sign; a zero signed as it.
            Value zero = k.floatConst(0, t);
            Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, r, zero);
            Value signsDiffer = arith::XOrIOp::create(
                b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero),
                arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, zero));
            Value adjusted = arith::SelectOp::create(
                b, loc, signsDiffer, arith::AddFOp::create(b, loc, r, y), r);
            return arith::SelectOp::create(b, loc, isZero,
                                           math::CopySignOp::create(b, loc, zero, y), adjusted);
          }
          // Integers: 0 for a zero divisor (no trap), and x % -1 is 0
          // (INT_MIN % -1 would trap).
          Value zero = k.intConst(0, t), one = k.intConst(1, t);
          Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
          if (outUnsigned) {
            Value r = arith::RemUIOp::create(b, loc, x, arith::SelectOp::create(b, loc, isZero,
                                                                                 one, y));
            return arith::SelectOp::create(b, loc, isZero, zero, r);
          }
          Value isMinusOne =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, k.intConst(-1, t));
          Value trivial = arith::OrIOp::create(b, loc, isZero, isMinusOne);
          Value r = arith::RemSIOp::create(b, loc, x,
                                           arith::SelectOp::create(b, loc, trivial, one, y));
          r = arith::SelectOp::create(b, loc, trivial, zero, r);
          if (fmod)
            return r;
          Value signsDiffer = arith::XOrIOp::create(
              b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero));
          Value adjust = arith::AndIOp::create(
              b, loc, signsDiffer,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero));
          return arith::SelectOp::create(b, loc, adjust, arith::AddIOp::create(b, loc, r, y), r);
        });
        return success();
      })
      .Case([&](BitwiseAndOp) { binaryArith(arith::AndIOp(), arith::AndIOp()); return success(); })
      .Case([&](BitwiseOrOp) { binaryArith(arith::OrIOp(), arith::OrIOp()); return success(); })
      .Case([&](BitwiseXorOp) { binaryArith(arith::XOrIOp(), arith::XOrIOp()); return success(); })
      .Case<ShiftLeftOp, ShiftRightOp>([&](Operation *o) {
        bool left = isa<ShiftLeftOp>(o);
        elementwise({bcast(0), bcast(1)}, [&](ArrayRef<Value> s) -> Value {
          Type t = s[0].getType();
          unsigned width = t.getIntOrFloatBitWidth();
          // A negative amount, read unsigned, is past the width too.
          Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, s[1],
                                             k.intConst(width, t));
          Value zero = k.intConst(0, t);
          if (left || outUnsigned) {
            Value amount = arith::SelectOp::create(b, loc, past, zero, s[1]);
            Value shifted = left ? Value(arith::ShLIOp::create(b, loc, s[0], amount))
                                 : Value(arith::ShRUIOp::create(b, loc, s[0], amount));
            return arith::SelectOp::create(b, loc, past, zero, shifted);
          }
          // Signed: a shift by width - 1 gives what every bit shifted out would.
          Value amount =
              arith::SelectOp::create(b, loc, past, k.intConst(width - 1, t), s[1]);
          return arith::ShRSIOp::create(b, loc, s[0], amount);
        });
        return success();
      })
      .Case([&](AbsOp) {
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) -> Value {
          if (isa<FloatType>(s[0].getType()))
            return math::AbsFOp::create(b, loc, s[0]);
          if (outUnsigned)
            return s[0];
          return math::AbsIOp::create(b, loc, s[0]); // (|INT_MIN| wraps to INT_MIN)
        });
        return success();
      })
      .Case<ExpOp, LogOp, SinOp, CosOp, SoftplusOp>([&](Operation *o) -> LogicalResult {
        // f32 (f16 and bf16 computed in f32): MLIR's polynomial
        // approximations; f64: exp64 and log64 (sin and cos of f64 would
        // need a wider reduction than sinCos's).
        if (!KernelBuilder::computeType(outElem).isF32() && isa<SinOp, CosOp>(o))
          return unsupported(o->getName().getStringRef() + " of f64");
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) -> Value {
          return llvm::TypeSwitch<Operation *, Value>(o)
              .Case([&](ExpOp) { return k.exp(s[0]); })
              .Case([&](LogOp) { return k.log(s[0]); })
              .Case([&](SinOp) { return k.sinCos(s[0], /*cosine=*/false); })
              .Case([&](CosOp) { return k.sinCos(s[0], /*cosine=*/true); })
              .Default([&](Operation *) -> Value {
                // Softplus: max(x, 0) + log1p(exp(-|x|)), finite where
                // log(exp(x) + 1) overflows, exp(x) where it underflows to
                // 0, as onnxruntime computes it.
                Type t = s[0].getType();
                Value e =
                    k.exp(arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, s[0])));
                return arith::AddFOp::create(b, loc, k.max(s[0], k.floatConst(0, t), false),
                                             k.log1p(e));
              });
        });
        return success();
      })
      .Case<TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp>(
          [&](Operation *o) -> LogicalResult {
        // The circular ones from sinCos and atanF32 (f32 only, as sin and
        // cos); the hyperbolic ones from exp and log, written to stay
        // accurate near 0 and finite as far as the result is (each within
        // ~4 ulps of the exact value).
        if (!KernelBuilder::computeType(outElem).isF32() &&
            isa<TanOp, AsinOp, AcosOp, AtanOp>(o))
          return unsupported(o->getName().getStringRef() + " of f64");
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) -> Value {
          Value x = s[0];
          Type t = x.getType();
          auto c = [&](double v) { return k.floatConst(v, t); };
          auto sqrt = [&](Value a) { return math::SqrtOp::create(b, loc, a).getResult(); };
          auto less = [&](Value a, Value v) { return k.cmp(arith::CmpFPredicate::OLT, a, v); };
          auto withSignOf = [&](Value magnitude) {
            return math::CopySignOp::create(b, loc, magnitude, x).getResult();
          };
          Value ax = math::AbsFOp::create(b, loc, x);
          const double ln2 = 0.69314718055994530942;
          // e^|x| / 2 as h (h / 2), h = e^(|x| / 2): finite until sinh and
          // cosh themselves overflow, without the rounding of |x| - ln 2.
          auto halfExp = [&]() {
            Value h = k.exp(k.mul(ax, c(0.5)));
            return k.mul(h, k.mul(h, c(0.5)));
          };
          // Past 2^12 (f64: 2^28): log(2|x|), asinh's and acosh's value to
          // within 1 / (4 x^2), below half an ulp; x^2 would overflow.
          auto logTwice = [&](Value a) { return k.add(k.log(a), c(ln2)); };
          const double big = t.isF64() ? 268435456.0 : 4096.0;
          return llvm::TypeSwitch<Operation *, Value>(o)
              .Case([&](TanOp) { return k.div(k.sinCos(x, false), k.sinCos(x, true)); })
              .Case([&](AtanOp) { return k.atanF32(x); })
              .Case([&](AsinOp) {
                // atan(x / sqrt(1 - x^2)), 1 - x^2 as (1 - x)(1 + x).
                return k.atanF32(k.div(x, sqrt(k.mul(k.sub(c(1), x), k.add(c(1), x)))));
              })
              .Case([&](AcosOp) {
                // 2 atan(sqrt((1 - x) / (1 + x))): accurate near 1 too.
                return k.mul(c(2), k.atanF32(sqrt(k.div(k.sub(c(1), x), k.add(c(1), x)))));
              })
              .Case([&](SinhOp) {
                Value e = halfExp();
                return k.select(less(ax, c(1)), k.sinhSeries(x),
                                withSignOf(k.sub(e, k.div(c(0.25), e))));
              })
              .Case([&](CoshOp) {
                Value e = halfExp();
                return k.add(e, k.div(c(0.25), e));
              })
              .Case([&](AsinhOp) {
                // log1p(|x| + x^2 / (1 + sqrt(1 + x^2))).
                Value p = k.mul(ax, ax);
                Value near = k.log1p(k.add(ax, k.div(p, k.add(c(1), sqrt(k.add(c(1), p))))));
                return withSignOf(k.select(less(c(big), ax), logTwice(ax), near));
              })
              .Case([&](AcoshOp) {
                // log1p((x - 1) + sqrt((x - 1)(x + 1))); NaN below 1 (where
                // the product is positive again past -1).
                Value d = k.sub(x, c(1));
                Value near = k.log1p(k.add(d, sqrt(k.mul(d, k.add(x, c(1))))));
                return k.select(less(x, c(1)), c(NAN),
                                k.select(less(c(big), x), logTwice(x), near));
              })
              .Default([&](Operation *) {
                // atanh of |x|, the sign put back: log1p(2|x| / (1 - |x|))
                // / 2; from 1/2 on, log((1 + |x|) / (1 - |x|)) / 2, where
                // 1 - |x| is exact. NaN past 1.
                Value near = k.log1p(k.div(k.add(ax, ax), k.sub(c(1), ax)));
                Value far = k.log(k.div(k.add(c(1), ax), k.sub(c(1), ax)));
                return withSignOf(k.mul(c(0.5), k.select(less(ax, c(0.5)), near, far)));
              });
        });
        return success();
      })
      .Case([&](WhereOp) {
        elementwise({bcast(0), bcast(1), bcast(2)}, [&](ArrayRef<Value> s) -> Value {
          return arith::SelectOp::create(b, loc, s[0], s[1], s[2]);
        });
        return success();
      })
      .Case<SqrtOp, FloorOp, CeilOp, RoundOp, ErfOp>([&](Operation *o) -> LogicalResult {
        // One math op each (Round: halves to even, as ONNX). Erf: MLIR's
        // polynomial for f32; none for f64 (nor would libm be there).
        if (isa<ErfOp>(o) && !KernelBuilder::computeType(outElem).isF32())
          return unsupported("erf of f64");
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) -> Value {
          return llvm::TypeSwitch<Operation *, Value>(o)
              .Case([&](SqrtOp) { return math::SqrtOp::create(b, loc, s[0]); })
              .Case([&](FloorOp) { return math::FloorOp::create(b, loc, s[0]); })
              .Case([&](CeilOp) { return math::CeilOp::create(b, loc, s[0]); })
              .Case([&](RoundOp) { return math::RoundEvenOp::create(b, loc, s[0]); })
              .Default([&](Operation *) { return math::ErfOp::create(b, loc, s[0]); });
        });
        return success();
      })
      .Case([&](TanhOp) {
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) { return k.activation(s[0], "tanh", 0, 0); });
        return success();
      })
      .Case([&](SigmoidOp) {
        elementwise({bcast(0)},
                    [&](ArrayRef<Value> s) { return k.activation(s[0], "sigmoid", 0, 0); });
        return success();
      })
      .Case([&](GeluOp g) {
        // f32 (f16 and bf16 computed in f32); f64 only in the tanh form
        // (no erf of f64 without libm).
        if (g.hasGrids())
          return unsupported("gelu with quantization grids");
        if (!KernelBuilder::computeType(outElem).isF32() && g.getApproximate() != "tanh")
          return unsupported("gelu of f64 (erf of f64)");
        StringRef kind = g.getApproximate() == "tanh" ? "gelu_tanh" : "gelu";
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) { return k.activation(s[0], kind, 0, 0); });
        return success();
      })
      .Case([&](ReluOp) {
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) -> Value {
          Value zero = isa<FloatType>(s[0].getType()) ? k.floatConst(0, s[0].getType())
                                                      : k.intConst(0, s[0].getType());
          return k.max(s[0], zero, false);
        });
        return success();
      })
      .Case<HardSigmoidOp, HardSwishOp>([&](auto h) {
        StringRef kind = isa<HardSigmoidOp>(op) ? "hard_sigmoid" : "hard_swish";
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) {
          return k.activation(s[0], kind, 0, 0, h.getAlpha().convertToFloat(),
                              h.getBeta().convertToFloat());
        });
        return success();
      })
      .Case([&](SiluOp) {
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) {
          return k.activation(s[0], "silu", 0, 0);
        });
        return success();
      })
      .Case([&](LeakyReluOp l) {
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) -> Value {
          Type t = s[0].getType();
          Value negative =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, s[0], k.floatConst(0, t));
          Value scaled = arith::MulFOp::create(
              b, loc, s[0], k.floatConst(l.getAlpha().convertToDouble(), t));
          return arith::SelectOp::create(b, loc, negative, scaled, s[0]);
        });
        return success();
      })
      .Case([&](ClipOp c) {
        SmallVector<Reader> readers{bcast(0)};
        int minIdx = -1, maxIdx = -1, next = 1;
        if (c.getMin()) {
          minIdx = readers.size();
          readers.push_back(bcast(next++));
        }
        if (c.getMax()) {
          maxIdx = readers.size();
          readers.push_back(bcast(next++));
        }
        elementwise(readers, [&](ArrayRef<Value> s) -> Value {
          Value v = s[0];
          bool u = outUnsigned;
          if (minIdx >= 0)
            v = isa<FloatType>(v.getType())
                    ? Value(arith::SelectOp::create(
                          b, loc,
                          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v, s[minIdx]),
                          s[minIdx], v))
                    : k.max(v, s[minIdx], u);
          if (maxIdx >= 0)
            v = isa<FloatType>(v.getType())
                    ? Value(arith::SelectOp::create(
                          b, loc,
                          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, v, s[maxIdx]),
                          s[maxIdx], v))
                    : k.min(v, s[maxIdx], u);
          return v;
        });
        return success();
      })
      .Case([&](CastOp c) {
        Type from = elementOf(c.getInput());
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) { return k.convert(s[0], from, c.getTo()); });
        return success();
      })
      .Case([&](ExpandOp) {
        elementwise({bcast(0)}, [&](ArrayRef<Value> s) { return s[0]; });
        return success();
      })
      .Case([&](BatchNormOp bn) {
        int64_t c = shapeOf(bn.getInput())[1];
        Type el = elementOf(bn.getInput());
        SmallVector<Reader> readers{bcast(0)};
        for (unsigned i = 1; i < 5; ++i)
          readers.push_back(k.perAxis(operandMem(i), c, 1, el));
        double eps = bn.getEpsilon().convertToFloat();
        elementwise(readers, [&](ArrayRef<Value> s) -> Value {
          Type t = s[0].getType();
          Value x = s[0];
          if (std::optional<Type> grid = bn.getInputQuantization())
            x = roundToGrid(x, *grid);
          Value inv = arith::DivFOp::create(
              b, loc, k.floatConst(1, t),
              math::SqrtOp::create(b, loc, arith::AddFOp::create(b, loc, s[4], k.floatConst(eps, t))));
          Value centered = arith::SubFOp::create(b, loc, x, s[3]);
          Value y = arith::AddFOp::create(
              b, loc, arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, centered, inv), s[1]),
              s[2]);
          if (std::optional<Type> grid = bn.getOutputQuantization())
            y = roundToGrid(y, *grid);
          return y;
        });
        return success();
      })
      .Default([&](Operation *) { return unsupported("elementwise"); });
}

Value GenericEmitter::roundToGrid(Value x, Type grid, float roundingZeroPoint) {
  auto q = cast<quant::UniformQuantizedType>(grid);
  Type f32 = b.getF32Type();
  float scale = static_cast<float>(q.getScale()), zp = q.getZeroPoint();
  Value quotient = arith::DivFOp::create(b, loc, x, k.floatConst(scale, f32));
  Value z = k.floatConst(roundingZeroPoint, f32);
  if (roundingZeroPoint != 0)
    quotient = arith::AddFOp::create(b, loc, quotient, z);
  Value r = math::RoundEvenOp::create(b, loc, quotient);
  if (roundingZeroPoint != 0)
    r = arith::SubFOp::create(b, loc, r, z);
  // NaN: the lowest code's value, as roundToInteger.
  r = arith::MaxNumFOp::create(b, loc, r, k.floatConst(q.getStorageTypeMin() - zp, f32));
  r = arith::MinimumFOp::create(b, loc, r, k.floatConst(q.getStorageTypeMax() - zp, f32));
  return arith::MulFOp::create(b, loc, r, k.floatConst(scale, f32));
}

LogicalResult GenericEmitter::emitDataMovement(Value &status) {
  Type outElem = elementOf(op->getResult(0));
  ArrayRef<int64_t> outShape = shapeOf(op->getResult(0));
  Value out = resultMem();
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, IdentityOp>([&](Operation *) {
        // Views normally alias; a copy in element order when one lands here.
        Value in = operandMem(0);
        ArrayRef<int64_t> inShape = shapeOf(op->getOperand(0));
        SmallVector<int64_t> strides(inShape.size(), 1);
        for (int64_t d = (int64_t)inShape.size() - 2; d >= 0; --d)
          strides[d] = strides[d + 1] * inShape[d + 1];
        SmallVector<int64_t> outStrides(outShape.size(), 1);
        for (int64_t d = (int64_t)outShape.size() - 2; d >= 0; --d)
          outStrides[d] = outStrides[d + 1] * outShape[d + 1];
        k.forEach(outShape, [&](ValueRange ivs) {
          Value flat = k.index(0);
          for (size_t d = 0; d < ivs.size(); ++d)
            flat = arith::AddIOp::create(b, loc, flat,
                                         arith::MulIOp::create(b, loc, ivs[d], k.index(outStrides[d])));
          SmallVector<Value> idx;
          for (size_t d = 0; d < inShape.size(); ++d)
            idx.push_back(arith::RemUIOp::create(
                b, loc, arith::DivUIOp::create(b, loc, flat, k.index(strides[d])),
                k.index(inShape[d])));
          k.write(k.read(in, idx, outElem), out, ivs, outElem);
        });
        return success();
      })
      .Case([&](PadOp p) -> LogicalResult {
        std::optional<SmallVector<int64_t>> pads = getConstantInts(p.getPads());
        std::optional<SmallVector<int64_t>> axes =
            p.getAxes() ? getConstantInts(p.getAxes()) : SmallVector<int64_t>();
        if (!pads || !axes)
          return unsupported("Pad with pads or axes computed at run time");
        ArrayRef<int64_t> inShape = shapeOf(p.getInput());
        const int64_t rank = inShape.size();
        if (p.getAxes()) {
          llvm::Expected<shape::Dims> full = shape::spreadPads(*pads, *axes, rank);
          if (!full)
            return unsupported(llvm::toString(full.takeError()));
          pads = SmallVector<int64_t>(full->begin(), full->end());
        }
        StringRef mode = p.getMode();
        Type ct = KernelBuilder::computeType(outElem);
        Value fill;
        if (p.getConstantValue()) {
          SmallVector<Value> zeros(shapeOf(p.getConstantValue()).size(), k.index(0));
          fill = k.read(operandMem(2), zeros, outElem);
        } else {
          fill = isa<FloatType>(ct) ? k.floatConst(0, ct) : k.intConst(0, ct);
        }
        auto cmp = [&](arith::CmpIPredicate pred, Value a, Value c) {
          return arith::CmpIOp::create(b, loc, pred, a, c).getResult();
        };
        k.forEach(outShape, [&](ValueRange ivs) {
          SmallVector<Value> idx;
          Value inside;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t begin = (*pads)[d], end = (*pads)[d + rank], n = inShape[d];
            Value j = ivs[d];
            if (begin != 0)
              j = arith::SubIOp::create(b, loc, j, k.index(begin));
            if (begin <= 0 && end <= 0) { // only cropped: always inside
              idx.push_back(j);
              continue;
            }
            Value low = cmp(arith::CmpIPredicate::slt, j, k.index(0));
            Value high = cmp(arith::CmpIPredicate::sge, j, k.index(n));
            Value mapped;
            if (mode == "constant") {
              Value in = arith::AndIOp::create(
                  b, loc, arith::XOrIOp::create(b, loc, low, k.intConst(1, b.getI1Type())),
                  arith::XOrIOp::create(b, loc, high, k.intConst(1, b.getI1Type())));
              inside = inside ? arith::AndIOp::create(b, loc, inside, in).getResult() : in;
              mapped = arith::SelectOp::create(b, loc, in, j, k.index(0));
            } else if (mode == "edge") {
              mapped = arith::SelectOp::create(
                  b, loc, low, k.index(0),
                  arith::SelectOp::create(b, loc, high, k.index(n - 1), j));
            } else if (mode == "wrap") {
              Value r = arith::RemSIOp::create(b, loc, j, k.index(n));
              mapped = arith::RemSIOp::create(
                  b, loc, arith::AddIOp::create(b, loc, r, k.index(n)), k.index(n));
            } else { // reflect (pads < n: one mirror)
              Value neg = arith::SubIOp::create(b, loc, k.index(0), j);
              Value far = arith::SubIOp::create(b, loc, k.index(2 * (n - 1)), j);
              mapped = arith::SelectOp::create(b, loc, low, neg,
                                               arith::SelectOp::create(b, loc, high, far, j));
            }
            idx.push_back(mapped);
          }
          Value v = k.read(operandMem(0), idx, outElem);
          if (inside)
            v = arith::SelectOp::create(b, loc, inside, v, fill);
          k.write(v, out, ivs, outElem);
        });
        return success();
      })
      .Case([&](TransposeOp t) {
        ArrayRef<int64_t> perm = t.getPerm();
        const int64_t rank = perm.size();
        auto copy = [&](ValueRange ivs) {
          SmallVector<Value> idx(rank);
          for (int64_t i = 0; i < rank; ++i)
            idx[perm[i]] = ivs[i];
          k.write(k.read(operandMem(0), idx, outElem), out, ivs, outElem);
        };
        // The output dim that runs along the input's rows (its last dim).
        const int64_t along = rank ? llvm::find(perm, rank - 1) - perm.begin() : 0;
        // The last dim moves: in element order the input is read a stride
        // apart, a cache line (and past 64, a TLB entry) per element of an
        // output row. Past 64 elements a row, 16 x 16 tiles of the two dims
        // keep both sides' lines in L1 (a [128, 1536] f32 transpose ~5x
        // faster); up to 64 the lines of a row stay in L1 from one row to
        // the next, and tiles only add loop overhead (an NCHW-to-NHWC
        // transpose of 64 channels 1.3x slower tiled).
        if (rank < 2 || along == rank - 1 || outShape.back() <= 64) {
          k.forEach(outShape, copy);
          return success();
        }
        constexpr int64_t kTile = 16;
        SmallVector<Value> lbs, ubs, steps;
        for (int64_t d = 0; d < rank; ++d) {
          bool tiled = d == along || d == rank - 1;
          lbs.push_back(k.index(0));
          ubs.push_back(k.index(outShape[d]));
          steps.push_back(k.index(tiled ? kTile : 1));
        }
        scf::buildLoopNest(
            b, loc, lbs, ubs, steps, [&](OpBuilder &nested, Location, ValueRange outer) {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
              SmallVector<Value> tileLbs, tileUbs;
              for (int64_t d : {along, rank - 1}) {
                tileLbs.push_back(outer[d]);
                tileUbs.push_back(arith::MinSIOp::create(
                    b, loc, arith::AddIOp::create(b, loc, outer[d], k.index(kTile)),
                    k.index(outShape[d])));
              }
              scf::buildLoopNest(
                  b, loc, tileLbs, tileUbs, {k.index(1), k.index(1)},
                  [&](OpBuilder &inner, Location, ValueRange ij) {
                    OpBuilder::InsertionGuard guard(b);
                    b.setInsertionPoint(inner.getInsertionBlock(), inner.getInsertionPoint());
                    SmallVector<Value> ivs(outer.begin(), outer.end());
                    ivs[along] = ij[0];
                    ivs[rank - 1] = ij[1];
                    copy(ivs);
                  });
            });
        return success();
      })
      .Case([&](SliceOp s) {
        std::optional<SmallVector<int64_t>> starts = getConstantInts(s.getStarts()),
                                            ends = getConstantInts(s.getEnds());
        std::optional<SmallVector<int64_t>> axes = SmallVector<int64_t>(),
                                            steps = SmallVector<int64_t>();
        if (s.getAxes())
          axes = getConstantInts(s.getAxes());
        if (s.getSteps())
          steps = getConstantInts(s.getSteps());
        if (!starts || !ends || !axes || !steps)
          return unsupported("Slice with starts/ends/axes/steps that are not constants");
        auto dims = shape::slice(shapeOf(s.getData()), *starts, *ends, *axes, *steps);
        if (!dims) {
          llvm::consumeError(dims.takeError());
          return unsupported("bad Slice parameters");
        }
        k.forEach(outShape, [&](ValueRange ivs) {
          SmallVector<Value> idx;
          for (auto [d, sd] : llvm::enumerate(*dims))
            idx.push_back(arith::AddIOp::create(
                b, loc, k.index(sd.start), arith::MulIOp::create(b, loc, ivs[d], k.index(sd.step))));
          k.write(k.read(operandMem(0), idx, outElem), out, ivs, outElem);
        });
        return success();
      })
      .Case([&](ConcatOp c) {
        int64_t axis = shape::wrapAxis(c.getAxis(), outShape.size());
        int64_t offset = 0;
        for (auto [i, in] : llvm::enumerate(c.getInputs())) {
          k.forEach(shapeOf(in), [&](ValueRange ivs) {
            SmallVector<Value> idx(ivs.begin(), ivs.end());
            idx[axis] = arith::AddIOp::create(b, loc, ivs[axis], k.index(offset));
            k.write(k.read(operandMem(i), ivs, outElem), out, idx, outElem);
          });
          offset += shapeOf(in)[axis];
        }
        return success();
      })
      .Case([&](GatherOp g) {
        ArrayRef<int64_t> data = shapeOf(g.getData()), indices = shapeOf(g.getIndices());
        int64_t axis = shape::wrapAxis(g.getAxis(), data.size());
        int64_t dim = data[axis];
        Type idxElem = elementOf(g.getIndices());
        Value idxMem = operandMem(1);
        // Indices are data: check all of them before reading anything.
        Value bad = k.reduce(indices, arith::ConstantIntOp::create(b, loc, 0, 1),
                             [&](ValueRange ivs, Value acc) -> Value {
                               Value i = k.read(idxMem, ivs, idxElem);
                               Type t = i.getType();
                               Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                                                 i, k.intConst(-dim, t));
                               Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                                                  i, k.intConst(dim, t));
                               return arith::OrIOp::create(
                                   b, loc, acc, arith::OrIOp::create(b, loc, low, high));
                             });
        auto ifOp = scf::IfOp::create(b, loc, bad, /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(ifOp.elseBlock());
          size_t ri = indices.size();
          k.forEach(outShape, [&](ValueRange ivs) {
            SmallVector<Value> idxIvs(ivs.begin() + axis, ivs.begin() + axis + ri);
            Value i = k.read(idxMem, idxIvs, idxElem);
            Type t = i.getType();
            Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, k.intConst(0, t));
            i = arith::SelectOp::create(b, loc, neg,
                                        arith::AddIOp::create(b, loc, i, k.intConst(dim, t)), i);
            SmallVector<Value> dataIdx(ivs.begin(), ivs.begin() + axis);
            dataIdx.push_back(k.toIndex(i));
            dataIdx.append(ivs.begin() + axis + ri, ivs.end());
            k.write(k.read(operandMem(0), dataIdx, outElem), out, ivs, outElem);
          });
        }
        status = arith::SelectOp::create(b, loc, bad, k.i32(1), k.i32(0));
        return success();
      })
      .Case([&](GatherElementsOp g) {
        ArrayRef<int64_t> indices = shapeOf(g.getIndices());
        int64_t axis = shape::wrapAxis(g.getAxis(), indices.size());
        int64_t dim = shapeOf(g.getData())[axis];
        Type idxElem = elementOf(g.getIndices());
        Value idxMem = operandMem(1);
        // Indices are data: check all of them before reading anything.
        auto outside = [&](Value i) {
          Type t = i.getType();
          return arith::OrIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, k.intConst(-dim, t)),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, k.intConst(dim, t)));
        };
        Value bad = k.reduce(indices, arith::ConstantIntOp::create(b, loc, 0, 1),
                             [&](ValueRange ivs, Value acc) -> Value {
                               return arith::OrIOp::create(
                                   b, loc, acc, outside(k.read(idxMem, ivs, idxElem)));
                             });
        auto ifOp = scf::IfOp::create(b, loc, bad, /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(ifOp.elseBlock());
          k.forEach(outShape, [&](ValueRange ivs) {
            Value i = k.read(idxMem, ivs, idxElem);
            Type t = i.getType();
            Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, k.intConst(0, t));
            i = arith::SelectOp::create(b, loc, neg,
                                        arith::AddIOp::create(b, loc, i, k.intConst(dim, t)), i);
            SmallVector<Value> dataIdx(ivs.begin(), ivs.end());
            dataIdx[axis] = k.toIndex(i);
            k.write(k.read(operandMem(0), dataIdx, outElem), out, ivs, outElem);
          });
        }
        status = arith::SelectOp::create(b, loc, bad, k.i32(1), k.i32(0));
        return success();
      })
      .Case<GatherNDOp, ScatterNDOp, ScatterElementsOp>([&](Operation *) -> LogicalResult {
        // Index tuples (GatherND, ScatterND: the last dim of indices, entry
        // e for data dim first + e) or elements along an axis
        // (ScatterElements): all checked before anything is read or
        // written; then the copy (scatters start from data) and the moves.
        auto gnd = dyn_cast<GatherNDOp>(op);
        auto snd = dyn_cast<ScatterNDOp>(op);
        auto sel = dyn_cast<ScatterElementsOp>(op);
        Value dataV = op->getOperand(0), indicesV = op->getOperand(1);
        ArrayRef<int64_t> data = shapeOf(dataV), indices = shapeOf(indicesV);
        const int64_t r = data.size(), q = indices.size();
        const int64_t batch = gnd ? static_cast<int64_t>(gnd.getBatchDims()) : 0;
        const int64_t axis = sel ? shape::wrapAxis(sel.getAxis(), r) : 0;
        Type idxElem = elementOf(indicesV), el = elementOf(dataV);
        Value idxMem = operandMem(1);
        // The data dim an index at `ivs` of indices counts in.
        auto dimOf = [&](ValueRange ivs) -> Value {
          if (sel)
            return k.intConst(data[axis], idxElem);
          SmallVector<Attribute> dims;
          for (int64_t e = 0; e < indices.back(); ++e)
            dims.push_back(b.getIntegerAttr(idxElem, data[batch + e]));
          Value table = constantTable({indices.back()}, idxElem, dims);
          return k.read(table, ValueRange{ivs.back()}, idxElem);
        };
        Value bad = k.reduce(indices, arith::ConstantIntOp::create(b, loc, 0, 1),
                             [&](ValueRange ivs, Value acc) -> Value {
                               Value i = k.read(idxMem, ivs, idxElem), dim = dimOf(ivs);
                               Value low = arith::CmpIOp::create(
                                   b, loc, arith::CmpIPredicate::slt, i,
                                   arith::SubIOp::create(b, loc, k.intConst(0, idxElem), dim));
                               Value high = arith::CmpIOp::create(
                                   b, loc, arith::CmpIPredicate::sge, i, dim);
                               return arith::OrIOp::create(
                                   b, loc, acc, arith::OrIOp::create(b, loc, low, high));
                             });
        auto normalized = [&](Value i, int64_t dim) {
          Type t = i.getType();
          Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, k.intConst(0, t));
          return k.toIndex(arith::SelectOp::create(
              b, loc, neg, arith::AddIOp::create(b, loc, i, k.intConst(dim, t)), i));
        };
        StringRef reduction = snd ? snd.getReduction() : sel ? sel.getReduction() : "none";
        Type ct = KernelBuilder::computeType(el);
        bool unsignedInt = KernelBuilder::isUnsigned(el);
        auto reduce = [&](Value old, Value v) -> Value {
          if (reduction == "none")
            return v;
          bool f = isa<FloatType>(ct);
          if (reduction == "add")
            return k.add(old, v);
          if (reduction == "mul")
            return f ? Value(arith::MulFOp::create(b, loc, old, v))
                     : Value(arith::MulIOp::create(b, loc, old, v));
          if (reduction == "max")
            return f ? Value(arith::MaxNumFOp::create(b, loc, old, v))
                     : k.max(old, v, unsignedInt);
          return f ? Value(arith::MinNumFOp::create(b, loc, old, v)) : k.min(old, v, unsignedInt);
        };
        auto ifOp = scf::IfOp::create(b, loc, bad, /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(ifOp.elseBlock());
          if (gnd) {
            // out[batch, tuple, slice] = data[batch, index tuple, slice]
            const int64_t tupleDims = q - 1 - batch, kk = indices.back();
            k.forEach(outShape, [&](ValueRange ivs) {
              SmallVector<Value> dataIdx(ivs.begin(), ivs.begin() + batch);
              SmallVector<Value> at(ivs.begin(), ivs.begin() + batch + tupleDims);
              for (int64_t e = 0; e < kk; ++e) {
                at.push_back(k.index(e));
                dataIdx.push_back(normalized(k.read(idxMem, at, idxElem), data[batch + e]));
                at.pop_back();
              }
              dataIdx.append(ivs.begin() + batch + tupleDims, ivs.end());
              k.write(k.read(operandMem(0), dataIdx, el), out, ivs, el);
            });
          } else {
            k.forEach(data, [&](ValueRange ivs) {
              k.write(k.read(operandMem(0), ivs, el), out, ivs, el);
            });
            Value updMem = operandMem(2);
            ArrayRef<int64_t> updates = shapeOf(op->getOperand(2));
            // In order, so that repeated indices apply one after another.
            k.forEach(updates, [&](ValueRange ivs) {
              SmallVector<Value> dataIdx;
              if (sel) {
                dataIdx.assign(ivs.begin(), ivs.end());
                dataIdx[axis] = normalized(k.read(idxMem, ivs, idxElem), data[axis]);
              } else {
                const int64_t kk = indices.back();
                SmallVector<Value> at(ivs.begin(), ivs.begin() + (q - 1));
                for (int64_t e = 0; e < kk; ++e) {
                  at.push_back(k.index(e));
                  dataIdx.push_back(normalized(k.read(idxMem, at, idxElem), data[e]));
                  at.pop_back();
                }
                dataIdx.append(ivs.begin() + (q - 1), ivs.end());
              }
              Value v = k.read(updMem, ivs, el);
              if (reduction != "none")
                v = reduce(k.read(out, dataIdx, el), v);
              k.write(v, out, dataIdx, el);
            });
          }
        }
        status = arith::SelectOp::create(b, loc, bad, k.i32(1), k.i32(0));
        return success();
      })
      .Case([&](ConstantOfShapeOp c) {
        SmallVector<char> raw;
        Attribute value;
        if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
          value = dense.getValues<Attribute>()[0];
        if (!value)
          return unsupported("ConstantOfShape with a non-dense value");
        Type storage = cast<MemRefType>(out.getType()).getElementType();
        Value v;
        if (auto f = dyn_cast<FloatAttr>(value))
          v = k.floatConst(f.getValueAsDouble(), storage);
        else if (auto i = dyn_cast<IntegerAttr>(value))
          v = k.intConst(i.getValue().getSExtValue(), storage);
        else if (auto bl = dyn_cast<BoolAttr>(value))
          v = k.intConst(bl.getValue(), storage);
        k.forEach(outShape, [&](ValueRange ivs) { memref::StoreOp::create(b, loc, v, out, ivs); });
        return success();
      })
      .Case([&](ShapeOp s) {
        ArrayRef<int64_t> in = shapeOf(s.getData());
        int64_t rank = in.size();
        auto clampIndex = [&](int64_t i) {
          return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
        };
        int64_t start = clampIndex(s.getStart()), end = clampIndex(s.getEnd().value_or(rank));
        for (int64_t i = start; i < end; ++i)
          memref::StoreOp::create(b, loc, k.intConst(in[i], b.getI64Type()), out,
                                  ValueRange{k.index(i - start)});
        return success();
      })
      .Default([&](Operation *) { return unsupported("data movement"); });
}

LogicalResult GenericEmitter::emitReduction() {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<ArgMaxOp, ArgMinOp>([&](auto a) -> LogicalResult {
        ArrayRef<int64_t> in = shapeOf(a.getData());
        const int64_t rank = in.size(), axis = shape::wrapAxis(a.getAxis(), rank);
        if (in[axis] == 0)
          return unsupported("ArgMax/ArgMin over an empty axis");
        bool max = isa<ArgMaxOp>(op), last = a.getSelectLastIndex() != 0;
        Type el = elementOf(a.getData()), ct = KernelBuilder::computeType(el);
        bool unsignedInt = KernelBuilder::isUnsigned(el);
        SmallVector<int64_t> kept(in);
        kept[axis] = 1;
        ArrayRef<int64_t> outShape = shapeOf(op->getResult(0));
        Type i64 = b.getI64Type();
        k.forEach(kept, [&](ValueRange ivs) {
          auto at = [&](Value i) {
            SmallVector<Value> idx(ivs);
            idx[axis] = i;
            return k.read(operandMem(0), idx, el);
          };
          Value first = at(k.index(0));
          auto loop = scf::ForOp::create(
              b, loc, k.index(1), k.index(in[axis]), k.index(1), ValueRange{first, k.index(0)},
              [&](OpBuilder &nested, Location, Value i, ValueRange acc) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
                Value v = at(i), best = acc[0];
                Value better, tie;
                if (isa<FloatType>(ct)) {
                  // A NaN beats any number (numpy's argmax and argmin).
                  Value vNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
                  Value bNan =
                      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, best, best);
                  Value notBNan =
                      arith::XOrIOp::create(b, loc, bNan, k.intConst(1, b.getI1Type()));
                  better = arith::OrIOp::create(
                      b, loc,
                      arith::CmpFOp::create(b, loc,
                                            max ? arith::CmpFPredicate::OGT
                                                : arith::CmpFPredicate::OLT,
                                            v, best),
                      arith::AndIOp::create(b, loc, vNan, notBNan));
                  tie = arith::OrIOp::create(
                      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v, best),
                      arith::AndIOp::create(b, loc, vNan, bNan));
                } else {
                  auto pred = max ? (unsignedInt ? arith::CmpIPredicate::ugt
                                                 : arith::CmpIPredicate::sgt)
                                  : (unsignedInt ? arith::CmpIPredicate::ult
                                                 : arith::CmpIPredicate::slt);
                  better = arith::CmpIOp::create(b, loc, pred, v, best);
                  tie = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v, best);
                }
                Value take = last ? Value(arith::OrIOp::create(b, loc, better, tie)) : better;
                scf::YieldOp::create(
                    nested, loc,
                    ValueRange{arith::SelectOp::create(b, loc, take, v, best),
                               arith::SelectOp::create(b, loc, take, i, acc[1])});
              });
          Value index = arith::IndexCastOp::create(b, loc, i64, loop.getResult(1));
          SmallVector<Value> outIdx;
          for (int64_t d = 0; d < rank; ++d)
            if (d != axis || static_cast<int64_t>(outShape.size()) == rank)
              outIdx.push_back(d == axis ? k.index(0) : ivs[d]);
          k.write(index, resultMem(), outIdx, i64);
        });
        return success();
      })
      .Case([&](TopKOp t) -> LogicalResult {
        // Each line along the axis: its elements in order, each inserted into
        // the sorted list of the best so far (the outputs themselves): after
        // the ones it does not beat (an equal one came first), the rest
        // moved down one, the last falling off.
        ArrayRef<int64_t> in = shapeOf(t.getInput());
        const int64_t rank = in.size(), axis = shape::wrapAxis(t.getAxis(), rank);
        const int64_t n = in[axis], count = t.getK();
        if (count == 0)
          return success();
        bool largest = t.getLargest() != 0;
        Type el = elementOf(t.getInput()), ct = KernelBuilder::computeType(el);
        bool unsignedInt = KernelBuilder::isUnsigned(el);
        Type i64 = b.getI64Type();
        Value values = resultMem(0), indices = resultMem(1);
        SmallVector<int64_t> kept(in);
        kept[axis] = 1;
        // v beats w: larger (smaller), or a number against NaN.
        auto beats = [&](Value v, Value w) -> Value {
          if (!isa<FloatType>(ct)) {
            auto pred = largest ? (unsignedInt ? arith::CmpIPredicate::ugt
                                               : arith::CmpIPredicate::sgt)
                                : (unsignedInt ? arith::CmpIPredicate::ult
                                               : arith::CmpIPredicate::slt);
            return arith::CmpIOp::create(b, loc, pred, v, w);
          }
          Value order = arith::CmpFOp::create(
              b, loc, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, v, w);
          Value numberOverNan = arith::AndIOp::create(
              b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, w, w),
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, v, v));
          return arith::OrIOp::create(b, loc, order, numberOverNan);
        };
        auto forLoop = [&](Value lo, Value hi, ValueRange init,
                           llvm::function_ref<SmallVector<Value>(Value, ValueRange)> body) {
          return scf::ForOp::create(
              b, loc, lo, hi, k.index(1), init,
              [&](OpBuilder &nested, Location, Value i, ValueRange acc) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
                scf::YieldOp::create(nested, loc, body(i, acc));
              });
        };
        auto ifThen = [&](Value cond, llvm::function_ref<void()> body) {
          auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(ifOp.thenBlock());
          body();
        };
        k.forEach(kept, [&](ValueRange ivs) {
          auto along = [&](Value s) {
            SmallVector<Value> idx(ivs);
            idx[axis] = s;
            return idx;
          };
          forLoop(k.index(0), k.index(n), {}, [&](Value s, ValueRange) {
            Value v = k.read(operandMem(0), along(s), el);
            // Most elements of a long line beat none of a full list: one
            // comparison with its last.
            Value full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, s,
                                               k.index(count));
            Value enters = arith::OrIOp::create(
                b, loc, arith::XOrIOp::create(b, loc, full, k.intConst(1, b.getI1Type())),
                beats(v, k.read(values, along(k.index(count - 1)), el)));
            ifThen(enters, [&] {
              Value filled = arith::MinSIOp::create(b, loc, s, k.index(count));
              // How many of the list v does not beat.
              auto count1 = [&](Value j, ValueRange acc) {
                Value notBeaten =
                    arith::XOrIOp::create(b, loc, beats(v, k.read(values, along(j), el)),
                                          k.intConst(1, b.getI1Type()));
                Value step = arith::SelectOp::create(b, loc, notBeaten, k.index(1), k.index(0));
                return SmallVector<Value>{arith::AddIOp::create(b, loc, acc[0], step)};
              };
              Value place = forLoop(k.index(0), filled, {k.index(0)}, count1).getResult(0);
              // Move [place, filled) down one (from the end), within the list.
              Value moved = arith::SubIOp::create(b, loc, filled, place);
              forLoop(k.index(0), moved, {}, [&](Value r, ValueRange) {
                Value j = arith::SubIOp::create(
                    b, loc, arith::SubIOp::create(b, loc, filled, k.index(1)), r);
                Value next = arith::AddIOp::create(b, loc, j, k.index(1));
                ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, next,
                                             k.index(count)),
                       [&] {
                         k.write(k.read(values, along(j), el), values, along(next), el);
                         k.write(k.read(indices, along(j), i64), indices, along(next), i64);
                       });
                return SmallVector<Value>{};
              });
              ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, place,
                                           k.index(count)),
                     [&] {
                       k.write(v, values, along(place), el);
                       k.write(arith::IndexCastOp::create(b, loc, i64, s), indices, along(place),
                               i64);
                     });
            });
            return SmallVector<Value>{};
          });
        });
        return success();
      })
      .Case<CumSumOp, CumProdOp>([&](Operation *c) -> LogicalResult {
        // Each line along the axis: a running sum (product) carried by the
        // loop, in the compute type (integers wrap), in order or from the
        // end.
        const bool product = isa<CumProdOp>(c);
        ArrayRef<int64_t> in = shapeOf(c->getOperand(0));
        const int64_t rank = in.size();
        const int64_t axis = shape::wrapAxis(c->getAttrOfType<IntegerAttr>("axis").getInt(), rank);
        const int64_t n = in[axis];
        bool exclusive = c->getAttrOfType<IntegerAttr>("exclusive").getInt() != 0,
             reverse = c->getAttrOfType<IntegerAttr>("reverse").getInt() != 0;
        Type el = elementOf(c->getOperand(0)), ct = KernelBuilder::computeType(el);
        SmallVector<int64_t> kept(in);
        kept[axis] = 1;
        const double start = product ? 1 : 0;
        Value zero = isa<FloatType>(ct) ? k.floatConst(start, ct)
                                        : k.intConst(static_cast<int64_t>(start), ct);
        k.forEach(kept, [&](ValueRange ivs) {
          scf::ForOp::create(
              b, loc, k.index(0), k.index(n), k.index(1), ValueRange{zero},
              [&](OpBuilder &nested, Location, Value s, ValueRange acc) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
                SmallVector<Value> idx(ivs);
                idx[axis] = reverse ? Value(arith::SubIOp::create(b, loc, k.index(n - 1), s)) : s;
                Value x = k.read(operandMem(0), idx, el);
                Value sum = product ? k.mul(acc[0], x) : k.add(acc[0], x);
                k.write(exclusive ? acc[0] : sum, resultMem(), idx, el);
                scf::YieldOp::create(nested, loc, ValueRange{sum});
              });
        });
        return success();
      })
      .Case<ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>([&](Operation *) {
        Value axesValue = op->getNumOperands() > 1 ? op->getOperand(1) : Value();
        std::optional<SmallVector<int64_t>> axes = SmallVector<int64_t>();
        if (axesValue)
          axes = getConstantInts(axesValue);
        if (!axes)
          return unsupported("reduction axes that are not constant");
        ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
        bool noop = op->getAttrOfType<IntegerAttr>("noop_with_empty_axes") &&
                    op->getAttrOfType<IntegerAttr>("noop_with_empty_axes").getInt();
        auto red = shape::reducedAxes(in.size(), *axes, noop);
        if (!red) {
          llvm::consumeError(red.takeError());
          return unsupported("bad reduction axes");
        }
        SmallVector<int64_t> kept, reducedDims;
        for (size_t d = 0; d < in.size(); ++d) {
          if (llvm::is_contained(*red, (int64_t)d)) {
            kept.push_back(1);
            reducedDims.push_back(in[d]);
          } else {
            kept.push_back(in[d]);
          }
        }
        int64_t count = 1;
        for (int64_t d : reducedDims)
          count *= d;
        Type el = elementOf(op->getOperand(0));
        Type ct = KernelBuilder::computeType(el);
        bool isMean = isa<ReduceMeanOp>(op);
        Value out = resultMem();
        ArrayRef<int64_t> outShape = shapeOf(op->getResult(0));
        // Loop over the kept dims in the input's rank; the result is written
        // at those coordinates with the reduced dims dropped when keepdims=0.
        bool isMax = isa<ReduceMaxOp>(op), isMin = isa<ReduceMinOp>(op);
        bool unsignedInt = KernelBuilder::isUnsigned(el) || el.isInteger(1); // (bool: 0 < 1)
        // Max / min start from their identity (-inf / +inf, or the type's
        // lowest / highest) and let NaN win (maximumf / minimumf).
        bool isProd = isa<ReduceProdOp>(op);
        auto init = [&]() -> Value {
          if (!isMax && !isMin)
            return isa<FloatType>(ct) ? k.floatConst(isProd ? 1 : 0, ct)
                                      : k.intConst(isProd ? 1 : 0, ct);
          if (isa<FloatType>(ct))
            return k.floatConst(isMax ? -INFINITY : INFINITY, ct);
          unsigned w = ct.getIntOrFloatBitWidth();
          APInt v = unsignedInt ? (isMax ? APInt::getMinValue(w) : APInt::getMaxValue(w))
                                : (isMax ? APInt::getSignedMinValue(w)
                                         : APInt::getSignedMaxValue(w));
          return arith::ConstantOp::create(b, loc, ct, b.getIntegerAttr(ct, v));
        };
        auto combine = [&](Value acc, Value v) -> Value {
          if (isProd)
            return isa<FloatType>(ct) ? Value(arith::MulFOp::create(b, loc, acc, v))
                                      : Value(arith::MulIOp::create(b, loc, acc, v));
          if (!isMax && !isMin)
            return k.add(acc, v);
          if (isa<FloatType>(ct))
            return isMax ? Value(arith::MaximumFOp::create(b, loc, acc, v))
                         : Value(arith::MinimumFOp::create(b, loc, acc, v));
          return isMax ? k.max(acc, v, unsignedInt) : k.min(acc, v, unsignedInt);
        };
        k.forEach(kept, [&](ValueRange ivs) {
          Value sum = k.reduce(reducedDims, init(), [&](ValueRange rivs, Value acc) {
            SmallVector<Value> idx;
            size_t r = 0;
            for (size_t d = 0; d < in.size(); ++d)
              idx.push_back(llvm::is_contained(*red, (int64_t)d) ? rivs[r++] : ivs[d]);
            return combine(acc, k.read(operandMem(0), idx, el));
          });
          if (isMean) {
            if (isa<FloatType>(ct))
              sum = arith::DivFOp::create(b, loc, sum, k.floatConst(count, ct));
            else
              sum = KernelBuilder::isUnsigned(el)
                        ? Value(arith::DivUIOp::create(b, loc, sum, k.intConst(count, ct)))
                        : Value(arith::DivSIOp::create(b, loc, sum, k.intConst(count, ct)));
          }
          SmallVector<Value> outIdx;
          for (size_t d = 0; d < in.size(); ++d)
            if (!llvm::is_contained(*red, (int64_t)d) || outShape.size() == in.size())
              outIdx.push_back(llvm::is_contained(*red, (int64_t)d) ? k.index(0) : ivs[d]);
          k.write(sum, out, outIdx, el);
        });
        return success();
      })
      .Case([&](SoftmaxOp s) {
        ArrayRef<int64_t> shape = shapeOf(s.getInput());
        int64_t axis = shape::wrapAxis(s.getAxis(), shape.size());
        Type el = elementOf(s.getInput());
        SmallVector<int64_t> outer(shape);
        outer[axis] = 1;
        Value in = operandMem(0), out = resultMem();
        if (s.getInputQuantization())
          return emitQLinearSoftmax(s, outer, axis);
        k.forEach(outer, [&](ValueRange ivs) {
          auto at = [&](Value j) {
            SmallVector<Value> idx(ivs.begin(), ivs.end());
            idx[axis] = j;
            return idx;
          };
          Type ct = KernelBuilder::computeType(el);
          Value maxV = k.reduce({shape[axis]}, k.floatConst(-INFINITY, ct),
                                [&](ValueRange j, Value acc) {
                                  return arith::MaxNumFOp::create(b, loc, acc,
                                                                  k.read(in, at(j[0]), el));
                                });
          Value sum = k.reduce({shape[axis]}, k.floatConst(0, ct), [&](ValueRange j, Value acc) {
            Value e = k.exp(arith::SubFOp::create(b, loc, k.read(in, at(j[0]), el), maxV));
            return arith::AddFOp::create(b, loc, acc, e);
          });
          Value inv = arith::DivFOp::create(b, loc, k.floatConst(1, ct), sum);
          k.forEach({shape[axis]}, [&](ValueRange j) {
            Value e = k.exp(arith::SubFOp::create(b, loc, k.read(in, at(j[0]), el), maxV));
            k.write(arith::MulFOp::create(b, loc, e, inv), out, at(j[0]), el);
          });
        });
        return success();
      })
      .Case([&](LayerNormOp ln) {
        ArrayRef<int64_t> shape = shapeOf(ln.getInput());
        int64_t axis = shape::wrapAxis(ln.getAxis(), shape.size());
        Type el = elementOf(ln.getInput());
        Type ct = KernelBuilder::computeType(el);
        ArrayRef<int64_t> outer = shape.take_front(axis), inner = shape.drop_front(axis);
        int64_t n = 1;
        for (int64_t d : inner)
          n *= d;
        Reader scale = k.broadcast(operandMem(1), shapeOf(ln.getScale()), shape.size(), el);
        std::optional<Reader> bias;
        if (ln.getBias())
          bias = k.broadcast(operandMem(2), shapeOf(ln.getBias()), shape.size(), el);
        Value in = operandMem(0);
        Value out = resultMem(0), meanOut = resultMem(1), invOut = resultMem(2);
        Type statsEl = elementOf(ln.getMean());
        double eps = ln.getEpsilon().convertToFloat();
        k.forEach(outer, [&](ValueRange o) {
          auto full = [&](ValueRange i) {
            SmallVector<Value> idx(o.begin(), o.end());
            idx.append(i.begin(), i.end());
            return idx;
          };
          Value mean = k.floatConst(0, ct); // rms: none subtracted
          if (!ln.getRms()) {
            Value sum = k.reduce(inner, k.floatConst(0, ct), [&](ValueRange i, Value acc) {
              return arith::AddFOp::create(b, loc, acc, k.read(in, full(i), el));
            });
            mean = arith::DivFOp::create(b, loc, sum, k.floatConst(n, ct));
          }
          Value sq = k.reduce(inner, k.floatConst(0, ct), [&](ValueRange i, Value acc) {
            Value d = arith::SubFOp::create(b, loc, k.read(in, full(i), el), mean);
            return arith::AddFOp::create(b, loc, acc, arith::MulFOp::create(b, loc, d, d));
          });
          Value var = arith::DivFOp::create(b, loc, sq, k.floatConst(n, ct));
          Value inv = arith::DivFOp::create(
              b, loc, k.floatConst(1, ct),
              math::SqrtOp::create(b, loc, arith::AddFOp::create(b, loc, var, k.floatConst(eps, ct))));
          k.forEach(inner, [&](ValueRange i) {
            SmallVector<Value> idx = full(i);
            Value d = arith::SubFOp::create(b, loc, k.read(in, idx, el), mean);
            Value y = arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, d, inv), scale(idx));
            if (bias)
              y = arith::AddFOp::create(b, loc, y, (*bias)(idx));
            k.write(y, out, idx, el);
          });
          SmallVector<Value> statIdx(o.begin(), o.end());
          for (size_t d = 0; d < inner.size(); ++d)
            statIdx.push_back(k.index(0));
          k.write(k.convert(mean, ct, statsEl), meanOut, statIdx, statsEl);
          k.write(k.convert(inv, ct, statsEl), invOut, statIdx, statsEl);
        });
        return success();
      })
      .Case([&](GlobalAveragePoolOp g) -> LogicalResult {
        if (g.getInputQuantization())
          return g.emitError("the generic kernels do not average codes (the window kernel does)");
        ArrayRef<int64_t> shape = shapeOf(g.getInput());
        Type el = elementOf(g.getInput());
        Type ct = KernelBuilder::computeType(el);
        ArrayRef<int64_t> spatial = shape.drop_front(2);
        int64_t count = 1;
        for (int64_t d : spatial)
          count *= d;
        k.forEach(shape.take_front(2), [&](ValueRange nc) {
          Value sum = k.reduce(spatial, k.floatConst(0, ct), [&](ValueRange s, Value acc) {
            SmallVector<Value> idx(nc.begin(), nc.end());
            idx.append(s.begin(), s.end());
            return arith::AddFOp::create(b, loc, acc, k.read(operandMem(0), idx, el));
          });
          SmallVector<Value> idx(nc.begin(), nc.end());
          for (size_t d = 0; d < spatial.size(); ++d)
            idx.push_back(k.index(0));
          k.write(arith::DivFOp::create(b, loc, sum, k.floatConst(count, ct)), resultMem(), idx, el);
        });
        return success();
      })
      .Default([&](Operation *) { return unsupported("reduction"); });
}

LogicalResult GenericEmitter::emitContraction() {
  /// sum_k a(k) * b(k) over [0, K) in the compute type.
  auto dot = [&](int64_t kDim, Type ct, llvm::function_ref<Value(Value)> a,
                 llvm::function_ref<Value(Value)> bv) {
    Value zero = isa<FloatType>(ct) ? k.floatConst(0, ct) : k.intConst(0, ct);
    return k.reduce({kDim}, zero, [&](ValueRange kk, Value acc) {
      return k.add(acc, k.mul(a(kk[0]), bv(kk[0])));
    });
  };
  /// Indices of a [..., rows, cols] operand for batch ivs broadcast into it.
  auto batchIdx = [&](ArrayRef<int64_t> shape, ValueRange batch) {
    SmallVector<Value> idx;
    size_t own = shape.size() >= 2 ? shape.size() - 2 : 0;
    size_t offset = batch.size() - own;
    for (size_t d = 0; d < own; ++d)
      idx.push_back(shape[d] == 1 ? k.index(0) : batch[offset + d]);
    return idx;
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](MatMulOp m) {
        ArrayRef<int64_t> a = shapeOf(m.getA()), bs = shapeOf(m.getB()),
                          out = shapeOf(m.getResult());
        bool aVec = a.size() == 1, bVec = bs.size() == 1;
        size_t batchRank = out.size() - (aVec ? 0 : 1) - (bVec ? 0 : 1);
        Type el = elementOf(m.getA()), ct = KernelBuilder::computeType(el);
        Type storage = cast<MemRefType>(resultMem().getType()).getElementType();
        if (!aVec && !bVec && ct == storage && elementOf(m.getB()) == el) {
          // Row by row: C[row, :] += A[row, k] * B[k, :] for k in order.
          // Each element sums its products in the same order as a dot
          // product would (identical results), but the inner loop runs
          // along contiguous rows of B and C, which LLVM vectorizes.
          SmallVector<int64_t> rows(out.begin(), out.end() - 1);
          int64_t n = out.back(), kDim = a.back();
          Value zero = isa<FloatType>(ct) ? k.floatConst(0, ct) : k.intConst(0, ct);
          k.forEach(rows, [&](ValueRange ivs) {
            ValueRange batch = ivs.take_front(batchRank);
            Value row = ivs[batchRank];
            auto cIdx = [&](Value col) {
              SmallVector<Value> idx(ivs.begin(), ivs.end());
              idx.push_back(col);
              return idx;
            };
            // f32 rows go 16 columns at a time as explicit vectors (LLVM
            // does not vectorize the short, fully unrolled rows of attention
            // heads by itself), then column by column.
            int64_t lanes = ct.isF32() ? 16 : 1, full = lanes > 1 ? n / lanes * lanes : 0;
            auto vecType = VectorType::get({lanes}, ct);
            auto columns = [&](llvm::function_ref<void(Value, bool)> body) {
              if (full > 0)
                scf::buildLoopNest(b, loc, {k.index(0)}, {k.index(full)}, {k.index(lanes)},
                                   [&](OpBuilder &nested, Location, ValueRange j) {
                                     OpBuilder::InsertionGuard guard(b);
                                     b.setInsertionPoint(nested.getInsertionBlock(),
                                                         nested.getInsertionPoint());
                                     body(j[0], true);
                                   });
              if (full < n)
                scf::buildLoopNest(b, loc, {k.index(full)}, {k.index(n)},
                                   {k.index(1)}, [&](OpBuilder &nested, Location, ValueRange j) {
                                     OpBuilder::InsertionGuard guard(b);
                                     b.setInsertionPoint(nested.getInsertionBlock(),
                                                         nested.getInsertionPoint());
                                     body(j[0], false);
                                   });
            };
            columns([&](Value j, bool vector) {
              if (vector)
                vector::StoreOp::create(
                    b, loc, vector::BroadcastOp::create(b, loc, vecType, zero), resultMem(),
                    cIdx(j));
              else
                k.write(zero, resultMem(), cIdx(j), el);
            });
            k.forEach({kDim}, [&](ValueRange kk) {
              SmallVector<Value> aIdx = batchIdx(a, batch);
              aIdx.push_back(row);
              aIdx.push_back(kk[0]);
              Value av = k.read(operandMem(0), aIdx, el);
              Value avs = lanes > 1 ? Value(vector::BroadcastOp::create(b, loc, vecType, av))
                                    : Value();
              SmallVector<Value> bIdx = batchIdx(bs, batch);
              bIdx.push_back(kk[0]);
              columns([&](Value j, bool vector) {
                SmallVector<Value> bj = bIdx;
                bj.push_back(j);
                if (vector) {
                  Value c = vector::LoadOp::create(b, loc, vecType, resultMem(), cIdx(j));
                  Value bv = vector::LoadOp::create(b, loc, vecType, operandMem(1), bj);
                  Value sum = arith::AddFOp::create(b, loc, c,
                                                    arith::MulFOp::create(b, loc, avs, bv));
                  vector::StoreOp::create(b, loc, sum, resultMem(), cIdx(j));
                  return;
                }
                Value sum = k.add(k.read(resultMem(), cIdx(j), el),
                                  k.mul(av, k.read(operandMem(1), bj, el)));
                k.write(sum, resultMem(), cIdx(j), el);
              });
            });
          });
          return success();
        }
        k.forEach(out, [&](ValueRange ivs) {
          ValueRange batch = ivs.take_front(batchRank);
          Value row = aVec ? Value() : ivs[batchRank];
          Value col = bVec ? Value() : ivs.back();
          Value acc = dot(a.back(), ct,
                          [&](Value kk) {
                            SmallVector<Value> idx = batchIdx(a, batch);
                            if (!aVec)
                              idx.push_back(row);
                            idx.push_back(kk);
                            return k.read(operandMem(0), idx, el);
                          },
                          [&](Value kk) {
                            SmallVector<Value> idx = batchIdx(bs, batch);
                            idx.push_back(kk);
                            if (!bVec)
                              idx.push_back(col);
                            return k.read(operandMem(1), idx, el);
                          });
          k.write(acc, resultMem(), ivs, el);
        });
        return success();
      })
      .Case([&](GemmOp g) {
        ArrayRef<int64_t> a = shapeOf(g.getA()), out = shapeOf(g.getResult());
        bool ta = g.getTransA(), tb = g.getTransB();
        int64_t kDim = ta ? a[0] : a[1];
        Type el = elementOf(g.getA()), ct = KernelBuilder::computeType(el);
        std::optional<Reader> c;
        if (g.getC())
          c = k.broadcast(operandMem(2), shapeOf(g.getC()), 2, el);
        double alpha = g.getAlpha().convertToFloat(), beta = g.getBeta().convertToFloat();
        k.forEach(out, [&](ValueRange ivs) {
          Value acc = dot(kDim, ct,
                          [&](Value kk) {
                            return k.read(operandMem(0),
                                          ta ? SmallVector<Value>{kk, ivs[0]}
                                             : SmallVector<Value>{ivs[0], kk},
                                          el);
                          },
                          [&](Value kk) {
                            return k.read(operandMem(1),
                                          tb ? SmallVector<Value>{ivs[1], kk}
                                             : SmallVector<Value>{kk, ivs[1]},
                                          el);
                          });
          if (isa<FloatType>(ct)) {
            acc = arith::MulFOp::create(b, loc, acc, k.floatConst(alpha, ct));
            if (c)
              acc = arith::AddFOp::create(
                  b, loc, acc, arith::MulFOp::create(b, loc, (*c)(ivs), k.floatConst(beta, ct)));
          } else {
            acc = arith::MulIOp::create(b, loc, acc, k.intConst((int64_t)alpha, ct));
            if (c)
              acc = arith::AddIOp::create(
                  b, loc, acc, arith::MulIOp::create(b, loc, (*c)(ivs), k.intConst((int64_t)beta, ct)));
          }
          k.write(acc, resultMem(), ivs, el);
        });
        return success();
      })
      .Case([&](LinearOp l) {
        ArrayRef<int64_t> in = shapeOf(l.getInput()), out = shapeOf(l.getResult());
        int64_t kDim = in.back();
        Type el = elementOf(l.getInput()), ct = KernelBuilder::computeType(el);
        unsigned next = 2;
        int biasArg = l.getBias() ? next++ : -1;
        int residualArg = l.getResidual() ? next++ : -1;
        EpilogueActivation act = EpilogueActivation::of(l);
        k.forEach(out, [&](ValueRange ivs) {
          Value acc = dot(kDim, ct,
                          [&](Value kk) {
                            SmallVector<Value> idx(ivs.drop_back());
                            idx.push_back(kk);
                            return k.read(operandMem(0), idx, el);
                          },
                          [&](Value kk) {
                            return k.read(operandMem(1), ValueRange{kk, ivs.back()}, el);
                          });
          if (biasArg >= 0)
            acc = arith::AddFOp::create(b, loc, acc,
                                        k.read(operandMem(biasArg), ValueRange{ivs.back()}, el));
          if (residualArg >= 0)
            acc = arith::AddFOp::create(b, loc, acc, k.read(operandMem(residualArg), ivs, el));
          k.write(k.epilogue(acc, act), resultMem(), ivs, el);
        });
        return success();
      })
      .Case([&](AttentionOp at) {
        int64_t batch = shapeOf(at.getQuery())[0], s = at.queryLength(), t = at.keyLength();
        int64_t heads = at.getNumHeads(), d = at.headDim();
        int64_t group = heads / at.numKvHeads();
        Type el = elementOf(at.getQuery()), ct = KernelBuilder::computeType(el);
        std::optional<Reader> mask;
        if (at.getMask())
          mask = k.broadcast(operandMem(3), shapeOf(at.getMask()), 4, el);
        double scale = at.getScale().convertToFloat();
        // A QDQ model's grid on an intermediate (f32 values), where it has one.
        auto grid = [&](Value x, std::optional<Type> g) {
          if (!g)
            return x;
          return k.convert(roundToGrid(k.convert(x, ct, b.getF32Type()), *g), b.getF32Type(), ct);
        };
        Value probs = scratchMem(); // memref<T x f32>: one row of probabilities
        k.forEach({batch, heads, s}, [&](ValueRange bhi) {
          // Key and value head of query head h (grouped query heads).
          Value kvHead = group == 1 ? bhi[1]
                                    : arith::DivUIOp::create(b, loc, bhi[1], k.index(group))
                                          .getResult();
          // Element dd of row `row` of operand i's head (3: the result's):
          // [B, H, L, D], or [B, L, H*D] with the heads from the operand's
          // offset (packed operands).
          auto at4 = [&](unsigned i, Value row, Value dd) -> SmallVector<Value> {
            Value head = i == 1 || i == 2 ? kvHead : bhi[1];
            if (at.isHeadsMajor(i))
              return {bhi[0], head, row, dd};
            Value c = arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, head, k.index(d)), dd);
            if (int64_t offset = i < 3 ? at.inputOffset(i) : 0)
              c = arith::AddIOp::create(b, loc, c, k.index(offset));
            return {bhi[0], row, c};
          };
          // scores into the scratch row, tracking the max
          Value maxV = k.reduce({t}, k.floatConst(-INFINITY, ct), [&](ValueRange j, Value acc) {
            Value sc = dot(d, ct,
                           [&](Value dd) {
                             return k.read(operandMem(0), at4(0, bhi[2], dd), el);
                           },
                           [&](Value dd) {
                             return k.read(operandMem(1), at4(1, j[0], dd), el);
                           });
            sc = grid(sc, at.getScoresQuantization());
            sc = arith::MulFOp::create(b, loc, sc, k.floatConst(scale, ct));
            sc = grid(sc, at.getScaledQuantization());
            if (mask)
              sc = arith::AddFOp::create(b, loc, sc, (*mask)(ValueRange{bhi[0], bhi[1], bhi[2], j[0]}));
            sc = grid(sc, at.getLogitsQuantization());
            memref::StoreOp::create(b, loc, k.convert(sc, ct, b.getF32Type()), probs, j);
            return arith::MaxNumFOp::create(b, loc, acc, sc);
          });
          Value sum = k.reduce({t}, k.floatConst(0, ct), [&](ValueRange j, Value acc) {
            Value sc = k.convert(memref::LoadOp::create(b, loc, probs, j), b.getF32Type(), ct);
            Value e = k.exp(arith::SubFOp::create(b, loc, sc, maxV));
            memref::StoreOp::create(b, loc, k.convert(e, ct, b.getF32Type()), probs, j);
            return arith::AddFOp::create(b, loc, acc, e);
          });
          Value inv = arith::DivFOp::create(b, loc, k.floatConst(1, ct), sum);
          // Rounded probabilities are normalized before P V, not after.
          std::optional<Type> probsGrid = at.getProbsQuantization();
          k.forEach({d}, [&](ValueRange dd) {
            Value acc = k.reduce({t}, k.floatConst(0, ct), [&](ValueRange j, Value a) {
              Value p = k.convert(memref::LoadOp::create(b, loc, probs, j), b.getF32Type(), ct);
              if (probsGrid)
                p = grid(arith::MulFOp::create(b, loc, p, inv), probsGrid);
              Value v = k.read(operandMem(2), at4(2, j[0], dd[0]), el);
              return arith::AddFOp::create(b, loc, a, arith::MulFOp::create(b, loc, p, v));
            });
            Value out = probsGrid ? acc : arith::MulFOp::create(b, loc, acc, inv).getResult();
            k.write(grid(out, at.getOutputQuantization()), resultMem(), at4(3, bhi[2], dd[0]),
                    el);
          });
        });
        return success();
      })
      .Default([&](Operation *) { return unsupported("contraction"); });
}

LogicalResult GenericEmitter::emitWindowed() {
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0)), out = shapeOf(op->getResult(0));
  size_t nd = in.size() - 2;
  auto ints = [&](StringRef name) {
    return SmallVector<int64_t>(cast<DenseI64ArrayAttr>(op->getAttr(name)).asArrayRef());
  };
  StringRef autoPad = "NOTSET";
  if (auto a = op->getAttrOfType<StringAttr>("auto_pad"))
    autoPad = a.getValue();
  bool ceil = op->getAttrOfType<IntegerAttr>("ceil_mode") &&
              op->getAttrOfType<IntegerAttr>("ceil_mode").getInt();
  auto geom = shape::window(in.drop_front(2), ints("kernel_shape"), ints("strides"),
                            ints("dilations"), ints("pads"), autoPad, ceil);
  if (!geom) {
    llvm::consumeError(geom.takeError());
    return unsupported("bad window attributes");
  }
  Type el = elementOf(op->getOperand(0)), ct = KernelBuilder::computeType(el);
  /// Input coordinate of tap `kk` for output position `o` along spatial dim d,
  /// and whether it is inside the input.
  auto coord = [&](size_t d, Value o, Value kk) -> std::pair<Value, Value> {
    Value x = arith::AddIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, arith::MulIOp::create(b, loc, o, k.index(geom->strides[d])),
                              k.index(geom->padsBegin[d])),
        arith::MulIOp::create(b, loc, kk, k.index(geom->dilations[d])));
    Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, x, k.index(0));
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, k.index(in[2 + d]));
    Value clamped = arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, x, k.index(0)),
                                           k.index(in[2 + d] - 1));
    return {clamped, arith::AndIOp::create(b, loc, ge, lt)};
  };
  /// The input element a conv reads for output `ivs` and tap `t` (channel
  /// in the group, then spatial offsets), and whether it is inside.
  auto convTap = [&](ValueRange ivs, ValueRange t, Value gIdx,
                     int64_t cg) -> std::pair<SmallVector<Value>, Value> {
    Value c = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, gIdx, k.index(cg)),
                                    t[0]);
    SmallVector<Value> xIdx{ivs[0], c};
    Value inside = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (size_t d = 0; d < nd; ++d) {
      auto [x, ok] = coord(d, ivs[2 + d], t[1 + d]);
      xIdx.push_back(x);
      inside = arith::AndIOp::create(b, loc, inside, ok);
    }
    return {xIdx, inside};
  };
  if (isa<ConvIntegerOp, QLinearConvOp>(op)) {
    // (x - x_zp) * (w - w_zp[m]) summed in i32; padded taps contribute 0.
    // QLinearConv adds its i32 bias and requantizes as the evaluator does.
    auto qc = dyn_cast<QLinearConvOp>(op);
    int wArg = qc ? 3 : 1;
    ArrayRef<int64_t> w = shapeOf(op->getOperand(wArg));
    int64_t group = cast<IntegerAttr>(op->getAttr("group")).getInt(), mg = w[0] / group,
            cg = w[1];
    Type i32t = b.getI32Type(), wEl = elementOf(op->getOperand(wArg));
    int xzArg = -1, wzArg = -1;
    if (qc) {
      xzArg = 2;
      wzArg = 5;
    } else {
      auto ci = cast<ConvIntegerOp>(op);
      unsigned next = 2;
      xzArg = ci.getInputZeroPoint() ? next++ : -1;
      wzArg = ci.getWeightZeroPoint() ? next++ : -1;
    }
    // A scalar or per-output-channel parameter, converted to `to`.
    auto param = [&](int arg, Type to, Value channel) -> Value {
      auto t = cast<RankedTensorType>(op->getOperand(arg).getType());
      SmallVector<Value> idx(t.getRank(), t.getNumElements() == 1 ? k.index(0) : channel);
      return k.convert(k.read(operandMem(arg), idx, t.getElementType()), t.getElementType(), to);
    };
    auto zeroPoint = [&](int arg, Value channel) -> Value {
      return arg < 0 ? k.intConst(0, i32t) : param(arg, i32t, channel);
    };
    SmallVector<int64_t> taps{cg};
    taps.append(w.begin() + 2, w.end());
    k.forEach(out, [&](ValueRange ivs) {
      Value gIdx = arith::DivUIOp::create(b, loc, ivs[1], k.index(mg));
      Value xz = zeroPoint(xzArg, Value()), wz = zeroPoint(wzArg, ivs[1]);
      Value acc = k.reduce(taps, k.intConst(0, i32t), [&](ValueRange t, Value a) {
        auto [xIdx, inside] = convTap(ivs, t, gIdx, cg);
        Value xv = arith::SubIOp::create(
            b, loc, k.convert(k.read(operandMem(0), xIdx, el), el, i32t), xz);
        xv = arith::SelectOp::create(b, loc, inside, xv, k.intConst(0, i32t));
        SmallVector<Value> wIdx{ivs[1], t[0]};
        wIdx.append(t.begin() + 1, t.end());
        Value wv = arith::SubIOp::create(
            b, loc, k.convert(k.read(operandMem(wArg), wIdx, wEl), wEl, i32t), wz);
        return arith::AddIOp::create(b, loc, a, arith::MulIOp::create(b, loc, xv, wv));
      });
      if (!qc) {
        k.write(acc, resultMem(), ivs, i32t);
        return;
      }
      if (qc.getBias())
        acc = arith::AddIOp::create(b, loc, acc, param(8, i32t, ivs[1]));
      Type f32 = b.getF32Type(), f64 = b.getF64Type(), outEl = elementOf(op->getResult(0));
      Value mult = arith::DivFOp::create(
          b, loc, arith::MulFOp::create(b, loc, param(1, f32, Value()), param(4, f32, ivs[1])),
          param(6, f32, Value()));
      Value v = arith::MulFOp::create(b, loc, k.convert(acc, i32t, f64),
                                      arith::ExtFOp::create(b, loc, f64, mult));
      v = arith::AddFOp::create(b, loc, v, param(7, f64, Value()));
      k.write(roundToInteger(v, outEl), resultMem(), ivs, outEl);
    });
    return success();
  }
  auto isConv = isa<ConvOp, FusedConvOp>(op);
  if (isConv) {
    ArrayRef<int64_t> w = shapeOf(op->getOperand(1));
    int64_t group = cast<IntegerAttr>(op->getAttr("group")).getInt();
    int64_t mg = w[0] / group, cg = w[1];
    Value bias, residual;
    EpilogueActivation act;
    unsigned next = 2;
    if (auto f = dyn_cast<FusedConvOp>(op)) {
      if (f.getBias())
        bias = operandMem(next++);
      if (f.getResidual())
        residual = operandMem(next++);
      act = EpilogueActivation::of(f);
    } else if (cast<ConvOp>(op).getBias()) {
      bias = operandMem(2);
    }
    SmallVector<int64_t> taps{cg};
    taps.append(w.begin() + 2, w.end());
    k.forEach(out, [&](ValueRange ivs) {
      Value gIdx = arith::DivUIOp::create(b, loc, ivs[1], k.index(mg));
      Value init = bias ? k.read(bias, ValueRange{ivs[1]}, el) : k.floatConst(0, ct);
      Value acc = k.reduce(taps, init, [&](ValueRange t, Value a) {
        auto [xIdx, inside] = convTap(ivs, t, gIdx, cg);
        Value xv = arith::SelectOp::create(b, loc, inside, k.read(operandMem(0), xIdx, el),
                                           k.floatConst(0, ct));
        SmallVector<Value> wIdx{ivs[1], t[0]};
        wIdx.append(t.begin() + 1, t.end());
        return arith::AddFOp::create(b, loc, a,
                                     arith::MulFOp::create(b, loc, xv, k.read(operandMem(1), wIdx, el)));
      });
      if (residual)
        acc = arith::AddFOp::create(b, loc, acc, k.read(residual, ivs, el));
      k.write(k.epilogue(acc, act), resultMem(), ivs, el);
    });
    return success();
  }
  bool isMax = isa<MaxPoolOp>(op);
  bool includePad = op->getAttrOfType<IntegerAttr>("count_include_pad") &&
                    op->getAttrOfType<IntegerAttr>("count_include_pad").getInt();
  bool isFloat = isa<FloatType>(ct);
  k.forEach(out, [&](ValueRange ivs) {
    Value init = isMax ? (isFloat ? k.floatConst(-INFINITY, ct)
                                  : k.intConst(KernelBuilder::isUnsigned(el)
                                                   ? 0
                                                   : llvm::minIntN(ct.getIntOrFloatBitWidth()),
                                               ct))
                       : k.floatConst(0, ct);
    Value zeroCount = k.intConst(0, b.getI64Type());
    // One tap t (a kernel position per dim): (acc, count) with it.
    auto tapStep = [&](ValueRange t, Value acc, Value counted) -> scf::ValueVector {
      SmallVector<Value> xIdx{ivs[0], ivs[1]};
      Value inside = arith::ConstantIntOp::create(b, loc, 1, 1);
      Value inPadded = arith::ConstantIntOp::create(b, loc, 1, 1);
      for (size_t d = 0; d < nd; ++d) {
        auto [x, ok] = coord(d, ivs[2 + d], t[d]);
        xIdx.push_back(x);
        inside = arith::AndIOp::create(b, loc, inside, ok);
        // Position inside the padded extent (for count_include_pad).
        Value raw = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, ivs[2 + d], k.index(geom->strides[d])),
            arith::MulIOp::create(b, loc, t[d], k.index(geom->dilations[d])));
        Value below = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, raw,
            k.index(in[2 + d] + geom->padsBegin[d] + geom->padsEnd[d]));
        inPadded = arith::AndIOp::create(b, loc, inPadded, below);
      }
      Value v = k.read(operandMem(0), xIdx, el);
      Value next;
      if (isMax) {
        Value cand = k.max(acc, v, KernelBuilder::isUnsigned(el));
        next = arith::SelectOp::create(b, loc, inside, cand, acc);
      } else {
        next = arith::SelectOp::create(b, loc, inside, arith::AddFOp::create(b, loc, acc, v), acc);
      }
      Value count = arith::AddIOp::create(
          b, loc, counted,
          arith::ExtUIOp::create(b, loc, b.getI64Type(), includePad ? inPadded : inside));
      return {next, count};
    };
    auto loops = [&](ArrayRef<int64_t> extents, ValueRange inits,
                     function_ref<scf::ValueVector(ValueRange, ValueRange)> body) {
      SmallVector<Value> lbs, ubs, steps;
      for (int64_t e : extents) {
        lbs.push_back(k.index(0));
        ubs.push_back(k.index(e));
        steps.push_back(k.index(1));
      }
      return scf::buildLoopNest(
          b, loc, lbs, ubs, steps, inits,
          [&](OpBuilder &nested, Location, ValueRange t, ValueRange accs) -> scf::ValueVector {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
            return body(t, accs);
          });
    };
    auto avg = dyn_cast<AveragePoolOp>(op);
    scf::LoopNest nest;
    if (avg && avg.getOrderedF32Arithmetic() && avg.sumsColumnsFirst()) {
      // MLAS's f32 order: each last-dim column summed over the other dims,
      // then the columns left to right.
      ArrayRef<int64_t> kernel = geom->kernel;
      nest = loops(kernel.take_back(), ValueRange{init, zeroCount},
                   [&](ValueRange last, ValueRange accs) -> scf::ValueVector {
                     scf::LoopNest column = loops(
                         kernel.drop_back(), ValueRange{k.floatConst(0, ct), accs[1]},
                         [&](ValueRange t, ValueRange colAccs) {
                           SmallVector<Value> taps(t.begin(), t.end());
                           taps.push_back(last[0]);
                           return tapStep(taps, colAccs[0], colAccs[1]);
                         });
                     return {arith::AddFOp::create(b, loc, accs[0], column.results[0]),
                             column.results[1]};
                   });
    } else {
      nest = loops(geom->kernel, ValueRange{init, zeroCount},
                   [&](ValueRange t, ValueRange accs) { return tapStep(t, accs[0], accs[1]); });
    }
    Value result = nest.results[0];
    if (!isMax) {
      Value n = arith::SIToFPOp::create(b, loc, ct, nest.results[1]);
      result = arith::DivFOp::create(b, loc, result, n);
      if (std::optional<Type> grid = avg.getOutputQuantization())
        result = roundToGrid(result, *grid, static_cast<float>(avg.roundingZeroPoint()));
    }
    k.write(result, resultMem(), ivs, el);
  });
  return success();
}

LogicalResult GenericEmitter::emitQLinearSoftmax(SoftmaxOp s, ArrayRef<int64_t> outer,
                                                 int64_t axis) {
  auto gx = cast<quant::UniformQuantizedType>(*s.getInputQuantization());
  auto gy = cast<quant::UniformQuantizedType>(*s.getOutputQuantization());
  const float sx = static_cast<float>(gx.getScale()), sy = static_cast<float>(gy.getScale());
  const int64_t n = shapeOf(s.getInput())[axis];
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  SmallVector<Attribute> entries;
  for (float e : qlinearSoftmaxTable(sx, n))
    entries.push_back(b.getF32FloatAttr(e));
  Value table = constantTable({256}, f32, entries);
  Value in = operandMem(0), out = resultMem();
  // (The factor's numerator, floor(fl(1 / s_y)), as qlinearSoftmaxFactor.)
  Value numerator = k.floatConst(std::floor(1.0f / sy), f32);
  Value top = k.floatConst(255.f - static_cast<float>(gy.getZeroPoint()), f32);
  k.forEach(outer, [&](ValueRange ivs) {
    auto at = [&](Value j) {
      SmallVector<Value> idx(ivs.begin(), ivs.end());
      idx[axis] = j;
      return idx;
    };
    // Each value's step on the input grid: |step| <= 255, so the product
    // by fl(1 / s_x) is within a few ulps of the integer, rounded exactly.
    auto step = [&](Value j) {
      Value x = k.read(in, at(j), f32);
      return math::RoundEvenOp::create(
          b, loc, arith::MulFOp::create(b, loc, x, k.floatConst(1.f / sx, f32)));
    };
    Value largest = k.reduce({n}, k.floatConst(-INFINITY, f32), [&](ValueRange j, Value acc) {
      return arith::MaxNumFOp::create(b, loc, acc, step(j[0]));
    });
    // T[255 - m + k_j], the index clamped into the table.
    auto exp = [&](Value j) {
      Value i = arith::AddFOp::create(
          b, loc, arith::SubFOp::create(b, loc, k.floatConst(255, f32), largest), step(j));
      i = arith::MaximumFOp::create(b, loc, i, k.floatConst(0, f32));
      i = arith::MinimumFOp::create(b, loc, i, k.floatConst(255, f32));
      Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                               arith::FPToSIOp::create(b, loc, i32, i));
      return memref::LoadOp::create(b, loc, table, ValueRange{index}).getResult();
    };
    // Summed in row order, as onnxruntime's loop.
    Value sum = k.reduce({n}, k.floatConst(0, f32), [&](ValueRange j, Value acc) {
      return arith::AddFOp::create(b, loc, acc, exp(j[0]));
    });
    Value factor = arith::DivFOp::create(b, loc, numerator, sum);
    k.forEach({n}, [&](ValueRange j) {
      Value q = math::RoundEvenOp::create(b, loc, arith::MulFOp::create(b, loc, exp(j[0]), factor));
      q = arith::MinimumFOp::create(b, loc, q, top);
      k.write(arith::MulFOp::create(b, loc, q, k.floatConst(sy, f32)), out, at(j[0]), f32);
    });
  });
  return success();
}

Value GenericEmitter::constantTable(ArrayRef<int64_t> shape, Type element,
                                    ArrayRef<Attribute> values) {
  auto fn = b.getInsertionBlock()->getParent()->getParentOfType<func::FuncOp>();
  auto module = fn->getParentOfType<ModuleOp>();
  std::string name;
  for (int i = 0;; ++i) {
    name = (fn.getSymName() + "_table" + Twine(i)).str();
    if (!module.lookupSymbol(name))
      break;
  }
  auto type = MemRefType::get(shape, element);
  auto init = DenseElementsAttr::get(RankedTensorType::get(shape, element), values);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(fn);
    memref::GlobalOp::create(b, loc, name, b.getStringAttr("private"), type, init,
                             /*constant=*/true, /*alignment=*/IntegerAttr());
  }
  return memref::GetGlobalOp::create(b, loc, type, name);
}

LogicalResult GenericEmitter::emitCol2Im() {
  auto col2im = cast<Col2ImOp>(op);
  Value in = operandMem(0), out = resultMem();
  Type element = elementOf(op->getResult(0));
  ArrayRef<int64_t> outShape = shapeOf(op->getResult(0));
  Type ct = KernelBuilder::computeType(element);
  auto lt = [&](Value a, int64_t c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, k.index(c));
  };
  auto ge = [&](Value a, int64_t c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, a, k.index(c));
  };

  // Gathers each image element's sum: block l's tap `offset` lands on
  // position l * stride - pad + offset * dilation.
  std::optional<SmallVector<int64_t>> image = getConstantInts(col2im.getImageShape()),
                                      block = getConstantInts(col2im.getBlockShape());
  if (!image || !block)
    return unsupported("Col2Im whose image_shape or block_shape is not a constant");
  ArrayRef<int64_t> strides = col2im.getStrides(), dilations = col2im.getDilations(),
                    pads = col2im.getPads();
  int64_t nd = block->size();
  auto blocks = shape::col2imBlocks(*image, *block, strides, dilations, pads);
  if (!blocks) {
    llvm::consumeError(blocks.takeError());
    return unsupported("bad Col2Im parameters");
  }
  // Where no block is longer than its stride (undilated), a position has
  // one tap per dim at most: (pos + pad) mod stride. ConvTranspose with
  // kernel = stride, the decoders' upsampling, is that case.
  bool oneTap = true;
  for (int64_t d = 0; d < nd; ++d)
    oneTap &= (*block)[d] <= strides[d] && dilations[d] == 1;
  k.forEach(outShape, [&](ValueRange ivs) {
    // The tap `taps` of this position, or 0 where it falls on no block.
    auto term = [&](ValueRange taps, Value ok) {
      Value row = ivs[1], l = k.index(0);
      for (int64_t d = 0; d < nd; ++d) {
        row = arith::AddIOp::create(b, loc,
                                    arith::MulIOp::create(b, loc, row, k.index((*block)[d])),
                                    taps[d]);
        // q = pos + pad - tap * dilation must be a block start.
        Value q = arith::SubIOp::create(
            b, loc, arith::AddIOp::create(b, loc, ivs[2 + d], k.index(pads[d])),
            arith::MulIOp::create(b, loc, taps[d], k.index(dilations[d])));
        Value qc = arith::MaxSIOp::create(b, loc, q, k.index(0));
        Value bi = arith::DivUIOp::create(b, loc, qc, k.index(strides[d]));
        Value aligned = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq,
            arith::RemUIOp::create(b, loc, qc, k.index(strides[d])), k.index(0));
        ok = arith::AndIOp::create(
            b, loc, ok,
            arith::AndIOp::create(b, loc, arith::AndIOp::create(b, loc, ge(q, 0), aligned),
                                  lt(bi, (*blocks)[d])));
        bi = arith::MinUIOp::create(b, loc, bi, k.index((*blocks)[d] - 1));
        l = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, l, k.index((*blocks)[d])),
                                  bi);
      }
      Value v = k.read(in, ValueRange{ivs[0], row, l}, element);
      return Value(arith::SelectOp::create(b, loc, ok, v, k.floatConst(0, ct)));
    };
    Value all = arith::ConstantIntOp::create(b, loc, 1, 1);
    Value sum;
    if (oneTap) {
      SmallVector<Value> taps;
      Value ok = all;
      for (int64_t d = 0; d < nd; ++d) {
        Value t = arith::RemUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, ivs[2 + d], k.index(pads[d])),
            k.index(strides[d]));
        ok = arith::AndIOp::create(b, loc, ok, lt(t, (*block)[d]));
        taps.push_back(arith::MinUIOp::create(b, loc, t, k.index((*block)[d] - 1)));
      }
      sum = term(taps, ok);
    } else {
      sum = k.reduce(*block, k.floatConst(0, ct), [&](ValueRange taps, Value acc) {
        return arith::AddFOp::create(b, loc, acc, term(taps, all));
      });
    }
    k.write(sum, out, ivs, element);
  });
  return success();

}

LogicalResult GenericEmitter::emitGridSample() {
  auto gs = cast<GridSampleOp>(op);
  Value in = operandMem(0), grid = operandMem(1), out = resultMem();
  Type element = elementOf(op->getResult(0));
  Type ct = KernelBuilder::computeType(element), i64 = b.getI64Type();
  ArrayRef<int64_t> inShape = shapeOf(op->getOperand(0)), outShape = shapeOf(op->getResult(0));
  const int64_t channels = inShape[1], height = inShape[2], width = inShape[3];
  const StringRef mode = gs.getMode(), padding = gs.getPaddingMode();
  const bool align = gs.getAlignCorners(), zeros = padding == "zeros",
             border = padding == "border";
  auto c = [&](double v) { return k.floatConst(v, ct); };
  auto less = [&](Value a, Value v) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a, v).getResult();
  };
  auto clampF = [&](Value v, double lo, double hi) {
    return arith::MinNumFOp::create(b, loc, arith::MaxNumFOp::create(b, loc, v, c(lo)), c(hi))
        .getResult();
  };
  // The borders of a dim of d pixels (see the evaluator's gridSample).
  auto lo = [&](int64_t) { return align ? 0.0 : -0.5; };
  auto hi = [&](int64_t d) { return align ? double(d - 1) : double(d) - 0.5; };
  auto reflect = [&](Value v, int64_t d) -> Value {
    const double l = lo(d), u = hi(d), range = u - l;
    if (range <= 0)
      return c(l);
    auto side = [&](Value dx, double near, double far) {
      Value turns = math::TruncOp::create(b, loc, arith::DivFOp::create(b, loc, dx, c(range)));
      Value r = k.sub(dx, k.mul(turns, c(range)));
      Value half = math::FloorOp::create(b, loc, k.mul(turns, c(0.5)));
      Value even = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                         k.sub(turns, k.mul(half, c(2))), c(0));
      Value fromNear = near < far ? k.add(c(near), r) : k.sub(c(near), r);
      Value fromFar = near < far ? k.sub(c(far), r) : k.add(c(far), r);
      return k.select(even, fromNear, fromFar);
    };
    Value below = side(k.sub(c(l), v), l, u), above = side(k.sub(v, c(u)), u, l);
    return k.select(less(v, c(l)), below, k.select(less(c(u), v), above, v));
  };
  auto coordinate = [&](Value g, int64_t d) {
    Value v = align ? k.mul(k.mul(k.add(g, c(1)), c(0.5)), c(double(d - 1)))
                    : k.mul(k.sub(k.mul(k.add(g, c(1)), c(double(d))), c(1)), c(0.5));
    // (Far-off coordinates, NaN to the low end, stay where the integer
    // conversions are exact.)
    const double far = ct.isF64() ? 4503599627370496.0 : 16777216.0;
    v = clampF(v, -far, far);
    if (mode == "nearest")
      v = math::RoundEvenOp::create(b, loc, v);
    if (mode == "cubic")
      return v; // (its taps are brought inside one by one)
    Value outside = arith::OrIOp::create(b, loc, less(v, c(lo(d))), less(c(hi(d)), v));
    if (border)
      return k.select(outside, clampF(v, 0, double(d - 1)), v);
    if (!zeros)
      return k.select(outside, reflect(v, d), v);
    return v;
  };
  // Tap i (i64) of a dim of d pixels: its index (valid memory) and whether
  // it reads the pixel (zeros: not outside).
  auto tap = [&](Value i, int64_t d) -> std::pair<Value, Value> {
    Value zero = k.intConst(0, i64), last = k.intConst(d - 1, i64);
    Value inside = arith::AndIOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, i, last));
    Value at = i;
    if (!zeros && !border) {
      Value r = arith::FPToSIOp::create(
          b, loc, i64, reflect(arith::SIToFPOp::create(b, loc, ct, i), d));
      at = k.select(inside, i, r);
    }
    at = arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, at, zero), last);
    Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), at);
    return {index, zeros ? inside : Value()};
  };
  auto cubic = [&](Value t, SmallVectorImpl<Value> &w) {
    const double a = -0.75;
    t = math::AbsFOp::create(b, loc, t);
    // Keys's kernel: ((a u - 5a) u + 8a) u - 4a for 1 <= u < 2, ((a + 2) u
    // - (a + 3)) u^2 + 1 below 1.
    auto far = [&](Value u) {
      return k.sub(k.mul(k.add(k.mul(k.sub(k.mul(c(a), u), c(5 * a)), u), c(8 * a)), u),
                   c(4 * a));
    };
    auto near = [&](Value u) {
      return k.add(k.mul(k.mul(k.sub(k.mul(c(a + 2), u), c(a + 3)), u), u), c(1));
    };
    w.push_back(far(k.add(t, c(1))));
    w.push_back(near(t));
    w.push_back(near(k.sub(c(1), t)));
    w.push_back(far(k.sub(c(2), t)));
  };
  k.forEach({outShape[0], outShape[2], outShape[3]}, [&](ValueRange ivs) {
    Value gx = k.read(grid, {ivs[0], ivs[1], ivs[2], k.index(0)}, element);
    Value gy = k.read(grid, {ivs[0], ivs[1], ivs[2], k.index(1)}, element);
    Value cx = coordinate(gx, width), cy = coordinate(gy, height);
    SmallVector<Value> wx, wy;
    Value x0, y0;
    int64_t first = 0;
    if (mode == "nearest") {
      x0 = arith::FPToSIOp::create(b, loc, i64, cx);
      y0 = arith::FPToSIOp::create(b, loc, i64, cy);
      wx.push_back(c(1));
      wy.push_back(c(1));
    } else {
      Value fx = math::FloorOp::create(b, loc, cx), fy = math::FloorOp::create(b, loc, cy);
      x0 = arith::FPToSIOp::create(b, loc, i64, fx);
      y0 = arith::FPToSIOp::create(b, loc, i64, fy);
      if (mode == "linear") {
        Value dx = k.sub(cx, fx), dy = k.sub(cy, fy);
        wx.append({k.sub(c(1), dx), dx});
        wy.append({k.sub(c(1), dy), dy});
      } else {
        cubic(k.sub(cx, fx), wx);
        cubic(k.sub(cy, fy), wy);
        first = -1;
      }
    }
    SmallVector<std::pair<Value, Value>> xs, ys;
    for (int64_t t = 0; t < (int64_t)wx.size(); ++t) {
      xs.push_back(tap(arith::AddIOp::create(b, loc, x0, k.intConst(first + t, i64)), width));
      ys.push_back(tap(arith::AddIOp::create(b, loc, y0, k.intConst(first + t, i64)), height));
    }
    k.forEach({channels}, [&](ValueRange ch) {
      Value sum = c(0);
      for (size_t ty = 0; ty < ys.size(); ++ty) {
        Value row = c(0);
        for (size_t tx = 0; tx < xs.size(); ++tx) {
          Value p = k.read(in, {ivs[0], ch[0], ys[ty].first, xs[tx].first}, element);
          if (zeros)
            p = k.select(arith::AndIOp::create(b, loc, ys[ty].second, xs[tx].second), p, c(0));
          row = k.add(row, k.mul(wx[tx], p));
        }
        sum = k.add(sum, k.mul(wy[ty], row));
      }
      k.write(sum, out, {ivs[0], ch[0], ivs[1], ivs[2]}, element);
    });
  });
  return success();
}

LogicalResult GenericEmitter::emitResize() {
  Value in = operandMem(0), out = resultMem();
  Type element = elementOf(op->getResult(0));
  ArrayRef<int64_t> inShape = shapeOf(op->getOperand(0)), outShape = shapeOf(op->getResult(0));
  Type ct = KernelBuilder::computeType(element);

  auto resize = cast<ResizeOp>(op);
  std::optional<SmallVector<double>> roi, scales;
  std::optional<SmallVector<int64_t>> sizes;
  if (!resize.getConstantInputs(roi, scales, sizes))
    return unsupported("Resize whose roi, scales or sizes are not constants");
  shape::ResizeParams params = resize.getResizeParams();
  auto plan = shape::resize(inShape, params, roi, scales, sizes);
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return unsupported("bad Resize parameters");
  }
  int64_t rank = inShape.size();
  bool nearest = params.mode == "nearest";
  // Per resized dim: its taps' input positions and weights, and where the
  // output is the extrapolation value.
  struct Table {
    int64_t dim, taps;
    Value index, weight, extrapolated;
  };
  SmallVector<Table> tables;
  // Nearest: whether output row o + 1 (along dim rank - 2) reads the input
  // row that row o reads.
  SmallVector<bool> repeatsRow;
  Type i32 = b.getI32Type(), f32 = b.getF32Type(), i8 = b.getI8Type();
  for (int64_t d = 0; d < rank; ++d) {
    shape::ResizeAxis a = shape::resizeAxis(params, inShape[d], outShape[d], plan->scales[d],
                                            plan->roiStart[d], plan->roiEnd[d]);
    if (a.identity)
      continue;
    Table t{d, a.taps, {}, {}, {}};
    SmallVector<Attribute> idx, w, ex;
    for (int64_t v : a.index)
      idx.push_back(b.getI32IntegerAttr(static_cast<int32_t>(v)));
    t.index = constantTable({outShape[d], a.taps}, i32, idx);
    if (!nearest) {
      for (double v : a.weight)
        w.push_back(b.getF32FloatAttr(static_cast<float>(v)));
      t.weight = constantTable({outShape[d], a.taps}, f32, w);
    }
    if (nearest && d == rank - 2)
      for (int64_t o = 1; o < outShape[d]; ++o)
        repeatsRow.push_back(a.index[o] == a.index[o - 1]);
    if (llvm::is_contained(a.extrapolated, 1)) {
      for (uint8_t v : a.extrapolated)
        ex.push_back(b.getI8IntegerAttr(v));
      t.extrapolated = constantTable({outShape[d]}, i8, ex);
    }
    tables.push_back(t);
  }
  float extrapolation = resize.getExtrapolationValue().convertToFloat();
  bool anyExtrapolated = llvm::any_of(tables, [](const Table &t) { return !!t.extrapolated; });
  if (llvm::is_contained(repeatsRow, true) && !anyExtrapolated) {
    // Nearest upsampling (an FPN's): a row that reads the previous row's
    // input row copies that output row (contiguous, vectorized) instead of
    // gathering it again.
    SmallVector<Attribute> flags{b.getI8IntegerAttr(0)};
    for (bool r : repeatsRow)
      flags.push_back(b.getI8IntegerAttr(r));
    Value repeat = constantTable({outShape[rank - 2]}, i8, flags);
    int64_t width = outShape[rank - 1];
    k.forEach(outShape.drop_back(), [&](ValueRange rowIvs) {
      Value again = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          memref::LoadOp::create(b, loc, repeat, ValueRange{rowIvs[rank - 2]}), k.intConst(0, i8));
      auto ifOp = scf::IfOp::create(b, loc, again, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      k.forEach({width}, [&](ValueRange j) {
        SmallVector<Value> from(rowIvs.begin(), rowIvs.end()), to(rowIvs.begin(), rowIvs.end());
        from[rank - 2] = arith::SubIOp::create(b, loc, rowIvs[rank - 2], k.index(1));
        from.push_back(j[0]);
        to.push_back(j[0]);
        memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, out, from), out, to);
      });
      b.setInsertionPointToStart(ifOp.elseBlock());
      k.forEach({width}, [&](ValueRange j) {
        SmallVector<Value> ivs(rowIvs.begin(), rowIvs.end());
        ivs.push_back(j[0]);
        SmallVector<Value> idx(ivs);
        for (const Table &t : tables)
          idx[t.dim] = k.toIndex(
              memref::LoadOp::create(b, loc, t.index, ValueRange{ivs[t.dim], k.index(0)}));
        memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, in, idx), out, ivs);
      });
    });
    return success();
  }
  k.forEach(outShape, [&](ValueRange ivs) {
    auto source = [&](ValueRange taps) {
      SmallVector<Value> idx(ivs.begin(), ivs.end());
      for (auto [j, t] : llvm::enumerate(tables))
        idx[t.dim] = k.toIndex(memref::LoadOp::create(
            b, loc, t.index, ValueRange{ivs[t.dim], taps.empty() ? k.index(0) : taps[j]}));
      return idx;
    };
    Value v;
    if (nearest) {
      v = k.read(in, source({}), element);
    } else {
      SmallVector<int64_t> tapDims;
      for (const Table &t : tables)
        tapDims.push_back(t.taps);
      v = k.reduce(tapDims, k.floatConst(0, ct), [&](ValueRange taps, Value acc) {
        Value w = k.floatConst(1, f32);
        for (auto [j, t] : llvm::enumerate(tables))
          w = arith::MulFOp::create(
              b, loc, w, memref::LoadOp::create(b, loc, t.weight, ValueRange{ivs[t.dim], taps[j]}));
        if (ct != f32)
          w = arith::ExtFOp::create(b, loc, ct, w);
        return arith::AddFOp::create(
            b, loc, acc, arith::MulFOp::create(b, loc, w, k.read(in, source(taps), element)));
      });
    }
    Value outside;
    for (const Table &t : tables) {
      if (!t.extrapolated)
        continue;
      Value flag = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          memref::LoadOp::create(b, loc, t.extrapolated, ValueRange{ivs[t.dim]}),
          k.intConst(0, i8));
      outside = outside ? Value(arith::OrIOp::create(b, loc, outside, flag)) : flag;
    }
    if (outside) {
      Value e = isa<FloatType>(ct)  ? k.floatConst(extrapolation, ct)
                : ct.isInteger(1) ? k.intConst(extrapolation != 0, ct)
                                  : k.intConst(static_cast<int64_t>(extrapolation), ct);
      v = arith::SelectOp::create(b, loc, outside, e, v);
    }
    k.write(v, out, ivs, element);
  });
  return success();
}

LogicalResult GenericEmitter::emitQuantized() {
  Type f32 = b.getF32Type();
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](QuantizeLinearOp q) {
        ArrayRef<int64_t> shape = shapeOf(q.getInput());
        int64_t axis = shape::wrapAxis(q.getAxis(), shape.size());
        int64_t count = cast<RankedTensorType>(q.getScale().getType()).getNumElements();
        Type inEl = elementOf(q.getInput()), outEl = q.getOutputElementType();
        SmallVector<Reader> readers{bcast(0), k.perAxis(operandMem(1), count, axis, inEl)};
        if (q.getZeroPoint())
          readers.push_back(k.perAxis(operandMem(2), count, axis, outEl));
        elementwise(readers, [&](ArrayRef<Value> s) -> Value {
          Value x = k.convert(s[0], inEl, f32), scale = k.convert(s[1], inEl, f32);
          Value r = math::RoundEvenOp::create(b, loc, arith::DivFOp::create(b, loc, x, scale));
          if (s.size() > 2)
            r = arith::AddFOp::create(b, loc, r, k.convert(s[2], outEl, f32));
          return roundToInteger(r, outEl);
        });
        return success();
      })
      .Case([&](DequantizeLinearOp dq) {
        ArrayRef<int64_t> shape = shapeOf(dq.getInput());
        int64_t axis = shape::wrapAxis(dq.getAxis(), shape.size());
        int64_t count = cast<RankedTensorType>(dq.getScale().getType()).getNumElements();
        Type inEl = elementOf(dq.getInput()), scaleEl = elementOf(dq.getScale());
        SmallVector<Reader> readers{bcast(0), k.perAxis(operandMem(1), count, axis, scaleEl)};
        if (dq.getZeroPoint())
          readers.push_back(k.perAxis(operandMem(2), count, axis, inEl));
        elementwise(readers, [&](ArrayRef<Value> s) -> Value {
          Value x = k.convert(s[0], inEl, f32);
          if (s.size() > 2)
            x = arith::SubFOp::create(b, loc, x, k.convert(s[2], inEl, f32));
          return k.convert(arith::MulFOp::create(b, loc, x, k.convert(s[1], scaleEl, f32)), f32,
                           scaleEl);
        });
        return success();
      })
      .Case([&](FakeQuantizeOp f) {
        elementwise({bcast(0)},
                    [&](ArrayRef<Value> s) { return roundToGrid(s[0], f.getQuantization()); });
        return success();
      })
      .Case<DynamicQuantizeLinearOp, DynamicFakeQuantizeOp>([&](Operation *) {
        // DynamicQuantizeLinear's grid from the whole tensor's range, then
        // its codes (and scale, zero point), or the codes' values in f32.
        ArrayRef<int64_t> shape = shapeOf(op->getOperand(0));
        Value in = operandMem(0);
        Value lo = k.reduce(shape, k.floatConst(0, f32), [&](ValueRange i, Value acc) {
          return arith::MinNumFOp::create(b, loc, acc, k.read(in, i, f32));
        });
        Value hi = k.reduce(shape, k.floatConst(0, f32), [&](ValueRange i, Value acc) {
          return arith::MaxNumFOp::create(b, loc, acc, k.read(in, i, f32));
        });
        Value scale = arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, hi, lo),
                                            k.floatConst(255, f32));
        Value zeroScale = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, scale,
                                                k.floatConst(0, f32));
        Value safe = arith::SelectOp::create(b, loc, zeroScale, k.floatConst(1, f32), scale);
        Type u8 = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
        Value zpF = arith::MinimumFOp::create(
            b, loc,
            arith::MaximumFOp::create(b, loc,
                                      arith::SubFOp::create(b, loc, k.floatConst(0, f32),
                                                            arith::DivFOp::create(b, loc, lo, safe)),
                                      k.floatConst(0, f32)),
            k.floatConst(255, f32));
        zpF = arith::SelectOp::create(b, loc, zeroScale, k.floatConst(0, f32),
                                      math::RoundEvenOp::create(b, loc, zpF));
        bool codes = isa<DynamicQuantizeLinearOp>(op);
        k.forEach(shape, [&](ValueRange i) {
          Value q = arith::AddFOp::create(
              b, loc, math::RoundEvenOp::create(b, loc, arith::DivFOp::create(b, loc, k.read(in, i, f32), safe)),
              zpF);
          q = arith::SelectOp::create(b, loc, zeroScale, k.floatConst(0, f32), q);
          Value code = roundToInteger(q, u8);
          if (codes) {
            k.write(code, resultMem(0), i, u8);
            return;
          }
          Value centered = arith::SubFOp::create(b, loc, k.convert(code, u8, f32), zpF);
          k.write(arith::MulFOp::create(b, loc, centered, safe), resultMem(0), i, f32);
        });
        if (codes) {
          k.write(safe, resultMem(1), {}, f32);
          k.write(roundToInteger(zpF, u8), resultMem(2), {}, u8);
        }
        return success();
      })
      .Case<MatMulIntegerOp, QLinearMatMulOp>([&](Operation *) {
        bool qlinear = isa<QLinearMatMulOp>(op);
        Value a = op->getOperand(0), bv = op->getOperand(qlinear ? 3 : 1);
        int aArg = 0, bArg = qlinear ? 3 : 1;
        int azArg = -1, bzArg = -1;
        if (auto mi = dyn_cast<MatMulIntegerOp>(op)) {
          unsigned next = 2;
          if (mi.getAZeroPoint())
            azArg = next++;
          if (mi.getBZeroPoint())
            bzArg = next++;
        } else {
          azArg = 2;
          bzArg = 5;
        }
        ArrayRef<int64_t> as = shapeOf(a), bs = shapeOf(bv), out = shapeOf(op->getResult(0));
        Type aEl = elementOf(a), bEl = elementOf(bv);
        Type i32t = b.getI32Type();
        bool aVec = as.size() == 1, bVec = bs.size() == 1;
        size_t batchRank = out.size() - (aVec ? 0 : 1) - (bVec ? 0 : 1);
        auto zp = [&](int arg, Type el, Value rowOrCol) -> Value {
          if (arg < 0)
            return k.intConst(0, i32t);
          int64_t n = cast<RankedTensorType>(op->getOperand(arg).getType()).getNumElements();
          int64_t rank = cast<RankedTensorType>(op->getOperand(arg).getType()).getRank();
          SmallVector<Value> idx;
          for (int64_t r = 0; r < rank; ++r)
            idx.push_back(n == 1 || !rowOrCol ? k.index(0) : rowOrCol);
          return k.convert(k.read(operandMem(arg), idx, el), el, i32t);
        };
        k.forEach(out, [&](ValueRange ivs) {
          ValueRange batch = ivs.take_front(batchRank);
          Value row = aVec ? Value() : ivs[batchRank];
          Value col = bVec ? Value() : ivs.back();
          Value az = zp(azArg, aEl, row), bz = zp(bzArg, bEl, col);
          auto bIdx = [&](ArrayRef<int64_t> shape) {
            SmallVector<Value> idx;
            size_t own = shape.size() >= 2 ? shape.size() - 2 : 0;
            for (size_t d = 0; d < own; ++d)
              idx.push_back(shape[d] == 1 ? k.index(0) : batch[batch.size() - own + d]);
            return idx;
          };
          Value acc = k.reduce({as.back()}, k.intConst(0, i32t), [&](ValueRange kk, Value s) {
            SmallVector<Value> ai = bIdx(as);
            if (!aVec)
              ai.push_back(row);
            ai.push_back(kk[0]);
            SmallVector<Value> bi = bIdx(bs);
            bi.push_back(kk[0]);
            if (!bVec)
              bi.push_back(col);
            Value x = arith::SubIOp::create(b, loc, k.convert(k.read(operandMem(aArg), ai, aEl), aEl, i32t), az);
            Value y = arith::SubIOp::create(b, loc, k.convert(k.read(operandMem(bArg), bi, bEl), bEl, i32t), bz);
            return arith::AddIOp::create(b, loc, s, arith::MulIOp::create(b, loc, x, y));
          });
          if (!qlinear) {
            k.write(acc, resultMem(), ivs, i32t);
            return;
          }
          Type outEl = elementOf(op->getResult(0));
          auto scaleAt = [&](int arg, Value rc) {
            Type el = elementOf(op->getOperand(arg));
            int64_t n = cast<RankedTensorType>(op->getOperand(arg).getType()).getNumElements();
            int64_t rank = cast<RankedTensorType>(op->getOperand(arg).getType()).getRank();
            SmallVector<Value> idx;
            for (int64_t r = 0; r < rank; ++r)
              idx.push_back(n == 1 || !rc ? k.index(0) : rc);
            return k.convert(k.read(operandMem(arg), idx, el), el, f32);
          };
          Value mult = arith::DivFOp::create(
              b, loc, arith::MulFOp::create(b, loc, scaleAt(1, row), scaleAt(4, col)),
              scaleAt(6, Value()));
          Type f64 = b.getF64Type();
          Value v = arith::MulFOp::create(b, loc, k.convert(acc, i32t, f64),
                                          arith::ExtFOp::create(b, loc, f64, mult));
          SmallVector<Value> zeros(cast<MemRefType>(operandMem(7).getType()).getRank(),
                                   k.index(0));
          Value yz = k.convert(k.read(operandMem(7), zeros, outEl), outEl, f64);
          v = arith::AddFOp::create(b, loc, v, yz);
          k.write(roundToInteger(v, outEl), resultMem(), ivs, outEl);
        });
        return success();
      })
      .Default([&](Operation *) { return unsupported("quantization"); });
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

bool mlir::nunc::genericKernelWorksInPlace(Operation *op, unsigned operand) {
  // Elementwise kernels read operand element i just before writing result
  // element i; with the same shape and element width, one buffer serves.
  if (!isa<AddOp, SubOp, MulOp, DivOp, PowOp, MinOp, MaxOp, ModOp, BitwiseAndOp, BitwiseOrOp,
           BitwiseXorOp, ShiftLeftOp, ShiftRightOp, SqrtOp, ErfOp, ExpOp, LogOp, SinOp,
           CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp,
           SoftplusOp, AbsOp, TanhOp, FloorOp, CeilOp, RoundOp, ReluOp, LeakyReluOp,
           HardSigmoidOp, HardSwishOp, SiluOp, SigmoidOp, GeluOp, ClipOp, CastOp, WhereOp,
           BatchNormOp, FakeQuantizeOp,
           DynamicFakeQuantizeOp>(op) ||
      op->getNumResults() != 1)
    return false;
  auto in = cast<RankedTensorType>(op->getOperand(operand).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  return in.getShape() == out.getShape() &&
         getElementByteWidth(in.getElementType()) == getElementByteWidth(out.getElementType());
}

LogicalResult mlir::nunc::buildGenericKernel(ModuleOp kernels, Operation *op,
                                             llvm::StringRef symbol, bool resultAliasesOperand) {
  // u8 codes of a grid, and a depthwise conv's output grid, are only the
  // target's native kernels'.
  for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
    if (isa<quant::QuantizedType>(getElementTypeOrSelf(v.getType())))
      return op->emitError() << "'" << op->getName()
                             << "' on quantized values has no generic kernel (only the "
                                "target's native kernels read u8 codes of a grid)";
  if (auto f = dyn_cast<FusedConvOp>(op); f && f.getOutputQuantization())
    return op->emitError() << "a fused_conv with an output_quantization has no generic kernel "
                              "(only the target's depthwise kernel rounds to the grid)";
  MLIRContext *ctx = kernels.getContext();
  ctx->loadDialect<func::FuncDialect, arith::ArithDialect, math::MathDialect,
                   memref::MemRefDialect, scf::SCFDialect, vector::VectorDialect>();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(kernels.getBody());
  Location loc = op->getLoc();
  SmallVector<Type> argTypes;
  for (Value v : op->getOperands())
    argTypes.push_back(genericMemRefType(v.getType()));
  for (Value v : op->getResults())
    argTypes.push_back(genericMemRefType(v.getType()));
  if (auto at = dyn_cast<AttentionOp>(op))
    argTypes.push_back(MemRefType::get({at.keyLength()}, b.getF32Type()));
  auto func = func::FuncOp::create(b, loc, symbol,
                                   b.getFunctionType(argTypes, {b.getI32Type()}));
  func.setPrivate();
  // The plan hands a kernel distinct buffers, unless it runs in place. Once
  // inlined, noalias arguments become scope lists on every access, as long
  // as the argument list: LLVM's alias analysis then takes time quadratic in
  // it (a Concat of 1000 inputs: 22 s), so ops with many buffers go without.
  constexpr unsigned kMaxNoAliasArgs = 16;
  if (!resultAliasesOperand && argTypes.size() <= kMaxNoAliasArgs)
    for (unsigned i = 0; i < argTypes.size(); ++i)
      func.setArgAttr(i, "llvm.noalias", b.getUnitAttr());
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  KernelBuilder k(b, loc);
  SmallVector<Value> args(entry->getArguments().begin(), entry->getArguments().end());
  GenericEmitter emitter(k, op, args);
  FailureOr<Value> status = emitter.emit();
  if (failed(status)) {
    func.erase();
    return failure();
  }
  func::ReturnOp::create(b, loc, *status);
  return success();
}

/// A pack kernel's function `symbol` (args) -> i32 at the end of `kernels`,
/// its first two arguments (source, packed) not aliasing; `b` is left at the
/// start of its body.
static Block *packFunction(ModuleOp kernels, OpBuilder &b, llvm::StringRef symbol,
                           ArrayRef<Type> args) {
  auto func = func::FuncOp::create(b, kernels.getLoc(), symbol,
                                   b.getFunctionType(args, {b.getI32Type()}));
  func.setPrivate();
  func.setArgAttr(0, "llvm.noalias", b.getUnitAttr());
  func.setArgAttr(1, "llvm.noalias", b.getUnitAttr());
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  return entry;
}

/// A builder at the end of `kernels`, with the dialects pack kernels use.
static OpBuilder packBuilder(ModuleOp kernels) {
  MLIRContext *ctx = kernels.getContext();
  ctx->loadDialect<func::FuncDialect, arith::ArithDialect, memref::MemRefDialect,
                   scf::SCFDialect>();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(kernels.getBody());
  return b;
}

void mlir::nunc::buildConvPackKernel(ModuleOp kernels, const ConvPackConfig &c,
                                     llvm::StringRef symbol) {
  OpBuilder b = packBuilder(kernels);
  Location loc = kernels.getLoc();
  int64_t p = c.outH * c.outW, nr = c.panelWidth, panels = (p + nr - 1) / nr;
  int64_t ck = c.channels * c.kernelH * c.kernelW;
  Type element = c.zeroPointPadding ? Type(b.getI32Type()) : Type(b.getF32Type());
  auto inType = MemRefType::get({c.batch, c.channels, c.height, c.width}, element);
  auto outType = MemRefType::get({c.batch, panels, ck, nr}, element);
  SmallVector<Type> args{inType, outType};
  if (c.zeroPointPadding)
    args.push_back(MemRefType::get({2}, b.getI32Type()));
  args.push_back(b.getIndexType());
  Block *entry = packFunction(kernels, b, symbol, args);
  KernelBuilder k(b, loc);
  Value in = entry->getArgument(0), out = entry->getArgument(1),
        task = entry->getArguments().back();
  Value n = arith::DivUIOp::create(b, loc, task, k.index(c.channels));
  Value ch = arith::RemUIOp::create(b, loc, task, k.index(c.channels));
  Value zero;
  if (c.zeroPointPadding) {
    // The zero point in each byte of the 32-bit element.
    Value zp = memref::LoadOp::create(b, loc, entry->getArgument(2), ValueRange{k.index(0)});
    zero = arith::MulIOp::create(b, loc, zp, k.i32(0x01010101));
  } else {
    zero = k.floatConst(0, b.getF32Type());
  }
  k.forEach({c.kernelH, c.kernelW}, [&](ValueRange kk) {
    // row of the im2col matrix: (channel, kh, kw)
    Value row = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, ch, k.index(c.kernelH * c.kernelW)),
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, kk[0], k.index(c.kernelW)),
                              kk[1]));
    k.forEach({c.outH}, [&](ValueRange oh) {
      Value ih = arith::AddIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, arith::MulIOp::create(b, loc, oh[0], k.index(c.strideH)),
                                k.index(c.padTop)),
          arith::MulIOp::create(b, loc, kk[0], k.index(c.dilationH)));
      Value rowOk = arith::AndIOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, ih, k.index(0)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ih, k.index(c.height)));
      Value ihC = arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, ih, k.index(0)),
                                         k.index(c.height - 1));
      k.forEach({c.outW}, [&](ValueRange ow) {
        Value iw = arith::AddIOp::create(
            b, loc,
            arith::SubIOp::create(b, loc,
                                  arith::MulIOp::create(b, loc, ow[0], k.index(c.strideW)),
                                  k.index(c.padLeft)),
            arith::MulIOp::create(b, loc, kk[1], k.index(c.dilationW)));
        Value ok = arith::AndIOp::create(
            b, loc, rowOk,
            arith::AndIOp::create(
                b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, iw, k.index(0)),
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iw, k.index(c.width))));
        Value iwC = arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, iw, k.index(0)),
                                           k.index(c.width - 1));
        Value v = memref::LoadOp::create(b, loc, in, ValueRange{n, ch, ihC, iwC});
        v = arith::SelectOp::create(b, loc, ok, v, zero);
        Value pIdx = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, oh[0], k.index(c.outW)), ow[0]);
        Value panel = arith::DivUIOp::create(b, loc, pIdx, k.index(nr));
        Value lane = arith::RemUIOp::create(b, loc, pIdx, k.index(nr));
        memref::StoreOp::create(b, loc, v, out, ValueRange{n, panel, row, lane});
      });
    });
    // Columns past the last output position are zero.
    for (int64_t q = p; q < panels * nr; ++q)
      memref::StoreOp::create(b, loc, zero, out,
                              ValueRange{n, k.index(q / nr), row, k.index(q % nr)});
  });
  func::ReturnOp::create(b, loc, k.i32(0));
}

void mlir::nunc::buildPanelPackKernel(ModuleOp kernels, const PanelPackConfig &c,
                                      llvm::StringRef symbol) {
  OpBuilder b = packBuilder(kernels);
  Location loc = kernels.getLoc();
  const int64_t nr = c.panelWidth, panels = (c.n + nr - 1) / nr;
  Type f32 = b.getF32Type();
  auto inType = MemRefType::get({c.batch, c.k, c.n}, f32);
  auto outType = MemRefType::get({c.batch, panels, c.k, nr}, f32);
  Block *entry = packFunction(kernels, b, symbol, {inType, outType, b.getIndexType()});
  KernelBuilder k(b, loc);
  Value in = entry->getArgument(0), out = entry->getArgument(1), task = entry->getArgument(2);
  Value matrix = arith::DivUIOp::create(b, loc, task, k.index(panels));
  Value panel = arith::RemUIOp::create(b, loc, task, k.index(panels));
  Value first = arith::MulIOp::create(b, loc, panel, k.index(nr));
  Value zero = k.floatConst(0, f32);
  k.forEach({c.k, nr}, [&](ValueRange ivs) {
    Value kk = ivs[0], lane = ivs[1];
    Value col = arith::AddIOp::create(b, loc, first, lane);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, k.index(c.n));
    Value colC = arith::MinUIOp::create(b, loc, col, k.index(c.n - 1));
    Value v = memref::LoadOp::create(b, loc, in, ValueRange{matrix, kk, colC});
    memref::StoreOp::create(b, loc, arith::SelectOp::create(b, loc, inside, v, zero), out,
                            ValueRange{matrix, panel, kk, lane});
  });
  func::ReturnOp::create(b, loc, k.i32(0));
}

LogicalResult mlir::nunc::lowerGenericKernelsToLLVM(ModuleOp kernels) {
  MLIRContext *ctx = kernels.getContext();
  ctx->loadDialect<LLVM::LLVMDialect, cf::ControlFlowDialect>();
  {
    // Math that would call libm becomes polynomials (the generated library
    // depends on nothing but libc); pow becomes exp/log first.
    RewritePatternSet patterns(ctx);
    // (tanh: MLIR's rational approximation, x P(x^2) / Q(x^2), accurate
    // near 0 where the expansion's (1 - e) / (1 + e) cancels.)
    math::populateExpansionPatterns(patterns, {"powf"});
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(kernels, std::move(patterns))))
      return kernels.emitError("math approximation did not converge");
  }
  PassManager pm(ctx);
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcOptions));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  if (failed(runPipeline(pm, kernels)))
    return failure();
  // Conversions can leave a function behind without failing (e.g. a
  // signature the bare-pointer convention rejects): report it here.
  WalkResult leftover = kernels.walk([](func::FuncOp f) {
    f.emitError("internal error: the generic kernel '") << f.getSymName()
                                                        << "' was not lowered to LLVM";
    return WalkResult::interrupt();
  });
  return failure(leftover.wasInterrupted());
}
