//===- TestSupport.cpp - helpers for nunc's unit tests --------------------===//

#include "TestSupport.h"

#include <cstdlib>
#include <sys/mman.h>
#include <unistd.h>

#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Pipeline/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"

namespace nunc_test {

using namespace mlir;
using namespace mlir::nunc;

Tensor randomTensor(std::mt19937 &rng, std::vector<int64_t> shape, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<double> v(n);
  for (double &x : v)
    x = dist(rng);
  return makeTensor(DType::F32, std::move(shape), std::move(v));
}

Tensor makeTensor(DType dtype, std::vector<int64_t> shape, std::vector<double> vals) {
  Tensor t = llvm::cantFail(Tensor::create(dtype, shape));
  if ((int64_t)vals.size() != t.numElements())
    abort();
  dispatchDType(dtype, [&]<typename T>() {
    T *p = t.mutableAs<T>();
    for (size_t i = 0; i < vals.size(); ++i) {
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
        p[i] = T(static_cast<float>(vals[i]));
      else
        p[i] = static_cast<T>(vals[i]);
    }
  });
  return t;
}

std::vector<double> values(const Tensor &t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numElements(); ++i)
    v.push_back(t.getDouble(i));
  return v;
}

std::vector<Tensor> evaluate(const std::string &mlir, const std::vector<Tensor> &inputs,
                             std::string *error) {
  DialectRegistry registry;
  registerNuncDialects(registry);
  MLIRContext ctx(registry);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(mlir, &ctx);
  if (!module) {
    if (error)
      *error = "parse: " + diagnostics;
    return {};
  }
  auto func = module->lookupSymbol<func::FuncOp>("main");
  llvm::Expected<SmallVector<Tensor>> out = evaluateFunction(func, inputs);
  if (!out) {
    if (error)
      *error = llvm::toString(out.takeError());
    return {};
  }
  // Results may borrow constant attributes owned by the context: copy them.
  std::vector<Tensor> copies;
  for (const Tensor &t : *out)
    copies.push_back(llvm::cantFail(Tensor::copyOf(t.dtype(), t.shape(), t.raw())));
  return copies;
}

std::string evaluationError(const std::string &mlir, const std::vector<Tensor> &inputs) {
  std::string error;
  std::vector<Tensor> out = evaluate(mlir, inputs, &error);
  return out.empty() ? error : "";
}

GuardedBytes::GuardedBytes(size_t size, bool atEnd) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t body = (size + page - 1) / page * page;
  mapped = body + 2 * page;
  void *m = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || mprotect(m, page, PROT_NONE) ||
      mprotect(static_cast<char *>(m) + page + body, page, PROT_NONE))
    std::abort();
  map = static_cast<char *>(m);
  bytes = reinterpret_cast<uint8_t *>(map + page + (atEnd ? body - size : 0));
}

GuardedBytes::~GuardedBytes() { munmap(map, mapped); }

} // namespace nunc_test
