//===- ConformanceRunner.cpp - ONNX backend node tests through nunc -------===//
//
// For every node test whose ops nunc claims (all ops supported, default opset
// in nunc's range): import the model with the test's input shapes pinned, run
// the simplify pipeline and the reference evaluator, and compare with the
// expected outputs (numpy allclose with the case's rtol/atol). Tests listed in
// the expected-failure file must fail and those not listed must pass; either
// surprise fails the run, so the list cannot go stale.
//
//===----------------------------------------------------------------------===//

#include "OnnxProtoIO.h"
#include "nunc/Import/OnnxImporter.h"
#include "nunc/Import/OnnxModelInfo.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Codegen/CompileModel.h"
#include "nunc/Codegen/JitModel.h"
#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Pipeline/Pipeline.h"

#include "mlir/Pass/PassManager.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::nunc;
namespace cl = llvm::cl;

static cl::opt<std::string> dataDir(cl::Positional, cl::desc("<node test data dir>"),
                                    cl::Required);
static cl::opt<std::string> expectedFailuresFile(
    "expected-failures", cl::desc("File of 'test_name  reason' lines"), cl::init(""));
static cl::opt<std::string> filter("filter", cl::desc("Only tests matching this regex"),
                                   cl::init(""));
static cl::opt<bool> verbose("v", cl::desc("Print every test's result"));
static cl::opt<bool> compiled(
    "compiled", cl::desc("Also compile each model with nunc compile for this machine and run "
                         "the library in-process"));

namespace {

struct Outcome {
  bool claimed = false;
  bool passed = false;
  std::string reason;
  bool compiledPassed = false;
  std::string compiledReason;
};

/// Whether a test input is a parameter rather than data: an integer tensor
/// or a single element (OneHot's depth, Trilu's k, Dropout's ratio).
/// Parameters that decide shapes must be known when compiling: nunc
/// compiles static shapes, and real models hold them as initializers.
bool isParameterLike(const Tensor &t) {
  return (!isFloat(t.dtype()) && t.dtype() != DType::Bool) || t.numElements() == 1;
}

/// The graph's input names, in order (the test data's input_<i> order).
std::vector<std::string> graphInputNames(const std::string &model) {
  std::vector<std::string> names;
  llvm::Expected<OnnxModelInfo> info = readOnnxModelInfo(model);
  if (!info) {
    llvm::consumeError(info.takeError());
    return names;
  }
  for (const OnnxValueInfo &v : info->inputs)
    names.push_back(v.name);
  return names;
}

/// Compiles the model for this machine, links it in-process and runs it on
/// `inputs`. Inputs that decide shapes (Reshape's shape, Slice's starts...)
/// must be known when compiling; when the first attempt fails, integer inputs
/// become constants of the test's values and it tries again (straight away,
/// with single-element inputs too, when the model does not import with all
/// inputs given at run time); for Resize and Upsample, then every input but
/// the first (their float roi and scales).
std::string runCompiled(const std::string &model, const std::vector<Tensor> &inputs,
                        const std::vector<Tensor> &expected, double rtol, double atol,
                        std::string (*compareFn)(const Tensor &, const Tensor &, double, double)) {
  llvm::Expected<OnnxModelInfo> info = readOnnxModelInfo(model);
  bool resamples =
      info && (info->opHistogram.count("Resize") || info->opHistogram.count("Upsample"));
  if (!info)
    llvm::consumeError(info.takeError());
  int lastAttempt = resamples ? 2 : 1;
  std::vector<std::string> names = graphInputNames(model);
  // Whether the model imports with every input given at run time.
  bool fixParameters = false;
  {
    DialectRegistry registry;
    registerNuncDialects(registry);
    MLIRContext ctx(registry);
    ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
    fixParameters = !importOnnxModel(&ctx, model, {});
  }
  for (int attempt = 0; attempt <= lastAttempt; ++attempt) {
    bool fixIntegers = attempt > 0;
    DialectRegistry registry;
    registerNuncDialects(registry);
    MLIRContext ctx(registry);
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      llvm::raw_string_ostream(diagnostics) << d.str() << "; ";
      return success();
    });
    ImportOptions options;
    std::vector<Tensor> runtimeInputs;
    for (unsigned i = 0; i < names.size() && i < inputs.size(); ++i) {
      const std::string &name = names[i];
      if ((fixIntegers && !isFloat(inputs[i].dtype()) && inputs[i].dtype() != DType::Bool) ||
          (fixParameters && isParameterLike(inputs[i])) || (attempt == 2 && i > 0)) {
        options.constantInputs[name] = attrFromTensor(inputs[i], &ctx, name);
        continue;
      }
      options.inputShapes[name] =
          std::vector<int64_t>(inputs[i].shape().begin(), inputs[i].shape().end());
      runtimeInputs.push_back(inputs[i]);
    }
    OwningOpRef<ModuleOp> module = importOnnxModel(&ctx, model, options);
    if (!module)
      return "import: " + diagnostics;
    PassManager pm(&ctx);
    buildFusionPipeline(pm);
    if (failed(pm.run(*module))) {
      if (attempt < lastAttempt)
        continue;
      return "fusion: " + diagnostics;
    }
    CompileOptions copts;
    copts.name = "conformance_model";
    copts.target = cantFail(resolveTarget("native"));
    FailureOr<CompiledModel> lib = compileModel(*module, copts);
    if (failed(lib)) {
      if (attempt < lastAttempt)
        continue;
      return "compile: " + diagnostics;
    }
    llvm::Expected<std::unique_ptr<JitModel>> jit = JitModel::load(*lib, copts.name, 1);
    if (!jit)
      return "load: " + llvm::toString(jit.takeError());
    auto main = module->lookupSymbol<func::FuncOp>("main");
    std::vector<Tensor> outputs;
    SmallVector<void *> io;
    for (Tensor &t : runtimeInputs)
      io.push_back(t.mutableRaw());
    for (Type type : main.getResultTypes()) {
      auto shaped = cast<RankedTensorType>(type);
      outputs.push_back(cantFail(Tensor::create(*fromMlirType(shaped.getElementType()),
                                                shaped.getShape())));
      io.push_back(outputs.back().mutableRaw());
    }
    std::string detail;
    if (int status = (*jit)->run(io, &detail))
      return "run: status " + std::to_string(status) + " " + detail;
    if (outputs.size() != expected.size())
      return "got " + std::to_string(outputs.size()) + " outputs";
    for (size_t i = 0; i < expected.size(); ++i) {
      std::string diff = compareFn(outputs[i], expected[i], rtol, atol);
      if (!diff.empty())
        return "output " + std::to_string(i) + ": " + diff;
    }
    return "";
  }
  return "unreachable";
}

llvm::Expected<Tensor> readTensorFile(MLIRContext *ctx, const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("cannot read " + path);
  onnx::TensorProto proto;
  if (!proto.ParseFromArray((*buffer)->getBufferStart(), (*buffer)->getBufferSize()))
    return llvm::createStringError("cannot parse " + path);
  std::optional<Type> element = onnx_io::elementType(ctx, proto.data_type());
  if (!element)
    return llvm::createStringError("element type " + onnx_io::dataTypeName(proto.data_type()) +
                                   " is not supported");
  llvm::Expected<std::unique_ptr<std::string>> bytes =
      onnx_io::readTensorData(proto, llvm::sys::path::parent_path(path));
  if (!bytes)
    return bytes.takeError();
  SmallVector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  return Tensor::copyOf(*fromMlirType(*element), dims, (*bytes)->data());
}

/// numpy.testing.assert_allclose semantics; exact for integers and bools.
std::string compare(const Tensor &got, const Tensor &want, double rtol, double atol) {
  if (got.dtype() != want.dtype())
    return ("dtype " + dtypeName(got.dtype()) + " vs expected " + dtypeName(want.dtype())).str();
  if (got.shape() != want.shape())
    return "shape " + got.describe() + " vs expected " + want.describe();
  bool exact = !isFloat(want.dtype());
  for (int64_t i = 0; i < want.numElements(); ++i) {
    double a = got.getDouble(i), b = want.getDouble(i);
    bool ok;
    if (exact)
      ok = got.getInt(i) == want.getInt(i) && (want.dtype() != DType::U64 || a == b);
    else if (std::isnan(b))
      ok = std::isnan(a);
    else if (std::isinf(b))
      ok = a == b;
    else
      ok = std::fabs(a - b) <= atol + rtol * std::fabs(b);
    if (!ok) {
      std::string s;
      llvm::raw_string_ostream(s) << "element " << i << ": got " << a << ", expected " << b;
      return s;
    }
  }
  return "";
}

Outcome runTest(const std::string &dir) {
  Outcome out;
  std::string model = dir + "/model.onnx";
  llvm::Expected<OnnxModelInfo> info = readOnnxModelInfo(model);
  if (!info) {
    llvm::consumeError(info.takeError());
    return out;
  }
  auto opset = info->opsets.find("");
  if (!info->unsupportedOps.empty() || info->numNodes == 0 || opset == info->opsets.end() ||
      opset->second < kMinOnnxOpset || opset->second > kMaxOnnxOpset)
    return out;
  out.claimed = true;

  double rtol = 1e-3, atol = 1e-7;
  if (auto tol = llvm::MemoryBuffer::getFile(dir + "/tolerance.txt")) {
    auto [r, a] = (*tol)->getBuffer().trim().split(' ');
    r.getAsDouble(rtol);
    a.getAsDouble(atol);
  }

  std::error_code ec;
  std::vector<std::string> sets;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::path::filename(it->path()).starts_with("test_data_set_"))
      sets.push_back(it->path());
  llvm::sort(sets);

  for (const std::string &set : sets) {
    DialectRegistry registry;
    registerNuncDialects(registry);
    MLIRContext ctx(registry);
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      llvm::raw_string_ostream(diagnostics) << d.str() << "; ";
      return success();
    });
    std::vector<Tensor> inputs, expected;
    for (int i = 0;; ++i) {
      std::string path = set + "/input_" + std::to_string(i) + ".pb";
      if (!llvm::sys::fs::exists(path))
        break;
      llvm::Expected<Tensor> t = readTensorFile(&ctx, path);
      if (!t) {
        out.reason = "input: " + llvm::toString(t.takeError());
        return out;
      }
      inputs.push_back(*t);
    }
    for (int i = 0;; ++i) {
      std::string path = set + "/output_" + std::to_string(i) + ".pb";
      if (!llvm::sys::fs::exists(path))
        break;
      llvm::Expected<Tensor> t = readTensorFile(&ctx, path);
      if (!t) {
        out.reason = "expected output: " + llvm::toString(t.takeError());
        return out;
      }
      expected.push_back(*t);
    }

    // Pin every input to the shape of its data, so that shape inference and
    // constant folding run on static shapes, as in a real compile. A model
    // that does not import with every input given at run time (its output
    // shape depends on one) gets its parameter-like inputs as constants.
    ImportOptions options;
    std::vector<Tensor> runtimeInputs;
    {
      bool fixParameters = !importOnnxModel(&ctx, model, {});
      diagnostics.clear();
      std::vector<std::string> names = graphInputNames(model);
      for (unsigned i = 0; i < names.size() && i < inputs.size(); ++i) {
        if (fixParameters && isParameterLike(inputs[i])) {
          options.constantInputs[names[i]] = attrFromTensor(inputs[i], &ctx, names[i]);
          continue;
        }
        options.inputShapes[names[i]] =
            std::vector<int64_t>(inputs[i].shape().begin(), inputs[i].shape().end());
        runtimeInputs.push_back(inputs[i]);
      }
    }
    OwningOpRef<ModuleOp> module = importOnnxModel(&ctx, model, options);
    if (!module || failed(simplify(*module))) {
      out.reason = "import: " + diagnostics;
      return out;
    }
    auto main = module->lookupSymbol<func::FuncOp>("main");
    llvm::Expected<SmallVector<Tensor>> results = evaluateFunction(main, runtimeInputs);
    if (!results) {
      out.reason = "evaluate: " + llvm::toString(results.takeError());
      return out;
    }
    if (results->size() != expected.size()) {
      out.reason = "got " + std::to_string(results->size()) + " outputs, expected " +
                   std::to_string(expected.size());
      return out;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      std::string diff = compare((*results)[i], expected[i], rtol, atol);
      if (!diff.empty()) {
        out.reason = "output " + std::to_string(i) + ": " + diff;
        return out;
      }
    }
  }
  out.passed = true;
  if (compiled) {
    // The first data set through the compiled library.
    std::vector<Tensor> inputs, expected;
    MLIRContext scratch;
    for (int i = 0;; ++i) {
      std::string path = sets.front() + "/input_" + std::to_string(i) + ".pb";
      if (!llvm::sys::fs::exists(path))
        break;
      inputs.push_back(cantFail(readTensorFile(&scratch, path)));
    }
    for (int i = 0;; ++i) {
      std::string path = sets.front() + "/output_" + std::to_string(i) + ".pb";
      if (!llvm::sys::fs::exists(path))
        break;
      expected.push_back(cantFail(readTensorFile(&scratch, path)));
    }
    out.compiledReason = runCompiled(model, inputs, expected, rtol, atol, compare);
    out.compiledPassed = out.compiledReason.empty();
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "Runs ONNX backend node tests through nunc\n");
  std::map<std::string, std::string> expectedFailures;
  if (!expectedFailuresFile.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(expectedFailuresFile);
    if (!buffer) {
      llvm::errs() << "cannot read " << expectedFailuresFile << "\n";
      return 2;
    }
    SmallVector<llvm::StringRef> lines;
    (*buffer)->getBuffer().split(lines, '\n');
    for (llvm::StringRef line : lines) {
      line = line.trim();
      if (line.empty() || line.starts_with("#"))
        continue;
      auto [name, reason] = line.split(' ');
      expectedFailures[name.str()] = reason.trim().str();
    }
  }
  llvm::Regex re(filter);
  std::vector<std::string> dirs;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dataDir, ec), end; it != end && !ec;
       it.increment(ec))
    if (filter.empty() || re.match(llvm::sys::path::filename(it->path())))
      dirs.push_back(it->path());
  if (ec || dirs.empty()) {
    llvm::errs() << "no node tests found in " << dataDir << "\n";
    return 2;
  }
  llvm::sort(dirs);

  int claimed = 0, passed = 0, xfailed = 0, unexpectedFail = 0, unexpectedPass = 0;
  int cPassed = 0, cXfailed = 0, cUnexpectedFail = 0, cUnexpectedPass = 0, cClaimed = 0;
  std::map<std::string, int> claimedPerOp;
  for (const std::string &dir : dirs) {
    std::string name = llvm::sys::path::filename(dir).str();
    Outcome o = runTest(dir);
    if (!o.claimed)
      continue;
    ++claimed;
    bool listed = expectedFailures.count(name);
    if (o.passed) {
      ++passed;
      if (listed) {
        ++unexpectedPass;
        llvm::outs() << "UNEXPECTED PASS " << name
                     << " (remove it from the expected-failure list)\n";
      } else if (verbose) {
        llvm::outs() << "PASS " << name << "\n";
      }
    } else if (listed) {
      ++xfailed;
      if (verbose)
        llvm::outs() << "XFAIL " << name << ": " << o.reason << "\n";
    } else {
      ++unexpectedFail;
      llvm::outs() << "FAIL " << name << ": " << o.reason << "\n";
    }
    if (!compiled || !o.passed)
      continue;
    // The compiled path is judged on tests the evaluator passes.
    ++cClaimed;
    bool cListed = expectedFailures.count("compiled:" + name);
    if (o.compiledPassed) {
      ++cPassed;
      if (cListed) {
        ++cUnexpectedPass;
        llvm::outs() << "UNEXPECTED PASS (compiled) " << name << "\n";
      }
    } else if (cListed) {
      ++cXfailed;
      if (verbose)
        llvm::outs() << "XFAIL (compiled) " << name << ": " << o.compiledReason << "\n";
    } else {
      ++cUnexpectedFail;
      llvm::outs() << "FAIL (compiled) " << name << ": " << o.compiledReason << "\n";
    }
  }
  for (auto &[name, reason] : expectedFailures)
    if (!llvm::any_of(dirs, [&](const std::string &d) {
          llvm::StringRef n(name);
          n.consume_front("compiled:");
          return llvm::sys::path::filename(d) == n;
        }) && filter.empty())
      llvm::outs() << "note: expected failure " << name << " names no test\n";
  llvm::outs() << "conformance (reference evaluator): " << passed << " passed / " << claimed
               << " claimed; " << xfailed << " expected failures, " << unexpectedFail
               << " unexpected failures, " << unexpectedPass << " unexpected passes\n";
  if (compiled)
    llvm::outs() << "conformance (compiled library): " << cPassed << " passed / " << cClaimed
                 << " claimed; " << cXfailed << " expected failures, " << cUnexpectedFail
                 << " unexpected failures, " << cUnexpectedPass << " unexpected passes\n";
  return unexpectedFail || unexpectedPass || cUnexpectedFail || cUnexpectedPass ? 1 : 0;
}
