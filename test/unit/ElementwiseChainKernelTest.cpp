//===- ElementwiseChainKernelTest.cpp - the chain kernel vs the evaluator ----===//

#include "ElementwiseChainKernel.h"
#include "Kernels.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;
using nunc_test::randomTensor;
using Step = ElementwiseChainConfig::Step;

/// A grid as the kernel takes it and as the evaluator's fake_quantize does.
struct Grid {
  float scale;
  int64_t zeroPoint, qmin, qmax;
  Activation kernel() const {
    return Activation::fakeQuant(scale, static_cast<float>(qmin - zeroPoint),
                                 static_cast<float>(qmax - zeroPoint));
  }
};

Step binary(Step::Op op, int a, int b, float constant = 0) {
  Step s;
  s.op = op;
  s.a = a;
  s.b = b;
  s.constant = constant;
  return s;
}
Step activate(int a, Activation act) {
  Step s;
  s.op = Step::Activate;
  s.a = a;
  s.activation = act;
  return s;
}
/// HardSigmoid (or HardSwish with `swish`) clamp(alpha x + beta, 0, 1).
Activation hard(bool swish, float alpha, float beta = 0.5f) {
  Activation a;
  a.kind = swish ? Activation::HardSwish : Activation::HardSigmoid;
  a.alpha = alpha;
  a.beta = beta;
  return a;
}
Step rounded(Step s, const Grid &g) {
  s.grid = g.kernel();
  return s;
}

/// The chain step by step with the evaluator's tensor kernels (the ops the
/// steps stand for), on `inputs`.
Tensor reference(const ElementwiseChainConfig &c, const std::vector<Tensor> &inputs,
                 const std::vector<std::optional<Grid>> &grids) {
  std::vector<Tensor> values = inputs;
  for (size_t s = 0; s < c.steps.size(); ++s) {
    const Step &step = c.steps[s];
    Tensor constant = cantFail(Tensor::fromValues<float>(DType::F32, {}, step.constant));
    auto value = [&](int i) -> const Tensor & { return i < 0 ? constant : values[i]; };
    auto compute = [&]() -> llvm::Expected<Tensor> {
      if (step.op != Step::Activate) {
        const kernels::BinaryKind kinds[] = {kernels::BinaryKind::Add, kernels::BinaryKind::Sub,
                                             kernels::BinaryKind::Mul, kernels::BinaryKind::Div};
        return kernels::binary(kinds[step.op], value(step.a), value(step.b));
      }
      const Activation &a = step.activation;
      if (a.kind == Activation::Relu)
        return kernels::unary(kernels::UnaryKind::Relu, value(step.a));
      if (a.kind == Activation::Clip) {
        Tensor lo = cantFail(Tensor::fromValues<float>(DType::F32, {}, a.min));
        Tensor hi = cantFail(Tensor::fromValues<float>(DType::F32, {}, a.max));
        return kernels::clip(value(step.a), &lo, &hi);
      }
      if (a.kind == Activation::HardSigmoid || a.kind == Activation::HardSwish)
        return kernels::hardSigmoid(value(step.a), a.alpha, a.beta,
                                    a.kind == Activation::HardSwish);
      return value(step.a);
    };
    Tensor y = cantFail(compute());
    if (grids[s])
      y = cantFail(kernels::fakeQuantize(y, grids[s]->scale, grids[s]->zeroPoint,
                                         grids[s]->qmin, grids[s]->qmax));
    values.push_back(std::move(y));
  }
  return values.back();
}

/// Runs every task of the kernel on copies of `inputs`; y is a fresh buffer
/// (with a guard element after it), or input `inPlace`'s copy.
std::vector<float> runKernel(Isa isa, const ElementwiseChainConfig &c,
                             const std::vector<Tensor> &inputs, int inPlace = -1) {
  std::unique_ptr<JitKernel> kernel = ElementwiseChainKernel::generate(c, isa);
  EXPECT_TRUE(kernel);
  if (!kernel)
    return {};
  std::vector<std::vector<float>> copies;
  for (const Tensor &t : inputs)
    copies.emplace_back(t.as<float>(), t.as<float>() + t.numElements());
  std::vector<float> y(c.elements + 1, -777.f);
  std::vector<const void *> args;
  for (auto &copy : copies)
    args.push_back(copy.data());
  args.push_back(inPlace >= 0 ? copies[inPlace].data() : y.data());
  for (int64_t t = 0; t < ElementwiseChainKernel::numTasks(c); ++t)
    EXPECT_EQ(kernel->function()(args.data(), t, t), 0);
  if (inPlace >= 0)
    return copies[inPlace];
  EXPECT_EQ(y.back(), -777.f) << "wrote past the output";
  y.pop_back();
  return y;
}

void expectSame(const std::vector<float> &got, const Tensor &want, const std::string &what) {
  ASSERT_EQ(static_cast<int64_t>(got.size()), want.numElements()) << what;
  // Bits, so that -0 differs from +0; any NaN equals any NaN.
  for (int64_t i = 0; i < want.numElements(); ++i)
    if (!std::isnan(got[i]) || !std::isnan(want.as<float>()[i]))
      ASSERT_EQ(nunc_test::bits(got[i]), nunc_test::bits(want.as<float>()[i]))
          << what << " at " << i << ": " << got[i] << " vs " << want.as<float>()[i];
}

class ElementwiseChainKernelTest : public ::testing::TestWithParam<Isa> {};

/// A QDQ PP-LCNet block after its conv: the conv output's grid, scale and
/// shift, x * clip(x + 3, 0, 6) / 6 with a grid after each op, scale and
/// shift again; bit for bit the evaluator's, over lengths that end on a
/// masked vector, fill whole unrolled groups or split into several tasks.
TEST_P(ElementwiseChainKernelTest, QdqHardSwishBlockMatchesTheOpsExactly) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const std::vector<std::optional<Grid>> grids = {
      Grid{0.03f, 120, 0, 255}, Grid{0.04f, 110, 0, 255}, Grid{0.035f, 140, 0, 255},
      Grid{6.f / 255, 0, 0, 255}, Grid{0.1f, 60, 0, 255}, Grid{0.02f, 50, 0, 255},
      Grid{0.015f, 55, 0, 255}, std::nullopt};
  ElementwiseChainConfig c;
  c.inputs = 1;
  c.steps = {rounded(activate(0, Activation()), *grids[0]),
             rounded(binary(Step::Mul, -1, 1, 1.25f), *grids[1]),
             rounded(binary(Step::Add, 2, -1, -0.5f), *grids[2]),
             rounded(binary(Step::Add, 3, -1, 3.f), *grids[3]),
             rounded(binary(Step::Mul, 3, 4), *grids[4]),
             rounded(binary(Step::Div, 5, -1, 6.f), *grids[5]),
             rounded(binary(Step::Mul, -1, 6, 0.75f), *grids[6]),
             binary(Step::Add, 7, -1, 0.125f)};
  std::mt19937 rng(7);
  for (int64_t n : {1, 7, 17, 64, 129, 16384 + 64 + 5, 100003}) {
    c.elements = n;
    Tensor x = randomTensor(rng, {n}, -10.f, 10.f);
    expectSame(runKernel(isa, c, {x}), reference(c, {x}, grids), "n=" + std::to_string(n));
  }
}

/// The same block as a lookup: its values at the 256 codes of its first
/// grid (what the compiler computes with the evaluator), looked up per
/// element, give the steps' bits, NaN and both saturated ends included
/// (AVX-512: vpermt2ps; AVX2: a gather).
TEST_P(ElementwiseChainKernelTest, LookupOfTheFirstGridsCodesMatchesTheSteps) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const Grid first{0.03f, 120, 0, 255};
  const std::vector<std::optional<Grid>> grids = {
      first, Grid{0.04f, 110, 0, 255}, Grid{6.f / 255, 0, 0, 255}, Grid{0.1f, 60, 0, 255},
      std::nullopt, Grid{0.015f, 55, 0, 255}};
  ElementwiseChainConfig c;
  c.inputs = 1;
  c.steps = {rounded(activate(0, Activation()), *grids[0]),
             rounded(binary(Step::Mul, -1, 1, 1.25f), *grids[1]),
             rounded(binary(Step::Add, 2, -1, 3.f), *grids[2]),
             rounded(binary(Step::Mul, 2, 3), *grids[3]),
             activate(4, hard(true, 1.f / 6.f)),
             rounded(binary(Step::Sub, -1, 5, 0.5f), *grids[5])};
  // The table: the steps on the grid's values, codes 0-255 in order.
  ElementwiseChainConfig values = c;
  values.elements = 256;
  Tensor codes = cantFail(Tensor::create(DType::F32, {256}));
  for (int q = 0; q < 256; ++q)
    codes.mutableAs<float>()[q] = static_cast<float>(q - first.zeroPoint) * first.scale;
  Tensor table = reference(values, {codes}, grids);
  c.table.assign(table.as<float>(), table.as<float>() + 256);
  c.tableGrid = first.kernel();
  std::mt19937 rng(10);
  for (int64_t n : {1, 7, 17, 129, 16384 + 64 + 5, 100003}) {
    c.elements = n;
    Tensor x = randomTensor(rng, {n}, -10.f, 10.f);
    float *v = x.mutableAs<float>();
    v[0] = std::nanf("");
    if (n > 2) {
      v[1] = 1e30f;
      v[2] = -1e30f;
    }
    Tensor want = reference(c, {x}, grids);
    std::vector<float> got = runKernel(isa, c, {x});
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], want.as<float>()[i]) << "n=" << n << " at " << i << " x=" << v[i];
  }
  c.elements = 64;
  c.table.pop_back(); // a table that does not cover the grid
  EXPECT_FALSE(ElementwiseChainKernel::generate(c, isa));
}

/// Two inputs, constants on either side of Sub and Div, every activation;
/// y written over either input (in place) gives the same values.
TEST_P(ElementwiseChainKernelTest, TwoInputsAndActivationsInPlace) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  ElementwiseChainConfig c;
  c.inputs = 2;
  Activation relu;
  relu.kind = Activation::Relu;
  c.steps = {binary(Step::Sub, -1, 0, 6.f),             // 2 = 6 - x
             activate(2, hard(true, 1.f / 6.f)),        // 3
             binary(Step::Div, 3, 1),                   // 4 = 3 / r
             activate(1, Activation::fromName("clip", -0.5f, 3.f)), // 5
             binary(Step::Div, -1, 5, 2.f),             // 6 = 2 / 5
             binary(Step::Add, 4, 6),                   // 7
             activate(7, relu),                         // 8
             activate(8, hard(false, 0.2f)),            // 9
             binary(Step::Mul, 9, 0)};                  // 10 = 9 * x
  const std::vector<std::optional<Grid>> grids(c.steps.size());
  std::mt19937 rng(8);
  for (int64_t n : {7, 129, 40000}) {
    c.elements = n;
    Tensor x = randomTensor(rng, {n}, -9.f, 9.f);
    Tensor r = randomTensor(rng, {n}, 0.5f, 4.f);
    Tensor want = reference(c, {x, r}, grids);
    for (int inPlace : {-1, 0, 1})
      expectSame(runKernel(isa, c, {x, r}, inPlace), want,
                 "n=" + std::to_string(n) + " in place of " + std::to_string(inPlace));
  }
}

/// A value's register is free after its last read: a long chain that keeps
/// few values alive fits any ISA; one that keeps 13 alive needs AVX-512's
/// registers (the AVX2 kernel refuses it, and the pass never makes it).
TEST_P(ElementwiseChainKernelTest, RegistersFollowWhatIsAlive) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  ElementwiseChainConfig longChain;
  longChain.inputs = 1;
  longChain.elements = 77;
  for (int s = 0; s < 30; ++s)
    longChain.steps.push_back(binary(s % 2 ? Step::Mul : Step::Add, s, -1, 0.5f + s));
  EXPECT_EQ(ElementwiseChainKernel::registersPerVector(longChain), 1);

  ElementwiseChainConfig wide;
  wide.inputs = 1;
  wide.elements = 77;
  // Values 1-13: x * (s + 1.5), all read at the end (the 13th takes x's
  // register), then summed.
  for (int s = 0; s < 13; ++s)
    wide.steps.push_back(binary(Step::Mul, 0, -1, s + 1.5f));
  wide.steps.push_back(binary(Step::Add, 1, 2)); // 14
  for (int v = 3; v <= 13; ++v)
    wide.steps.push_back(binary(Step::Add, static_cast<int>(wide.steps.size()), v));
  EXPECT_EQ(ElementwiseChainKernel::registersPerVector(wide), 13);
  std::mt19937 rng(9);
  for (ElementwiseChainConfig *c : {&longChain, &wide}) {
    if (c == &wide && isa == Isa::Avx2) {
      EXPECT_FALSE(ElementwiseChainKernel::generate(*c, isa));
      continue;
    }
    Tensor x = randomTensor(rng, {c->elements}, -2.f, 2.f);
    expectSame(runKernel(isa, *c, {x}),
               reference(*c, {x}, std::vector<std::optional<Grid>>(c->steps.size())),
               c == &wide ? "wide" : "long");
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, ElementwiseChainKernelTest,
                         ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? "Avx512" : "Avx2";
                         });

} // namespace
