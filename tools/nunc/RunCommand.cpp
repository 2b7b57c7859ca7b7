//===- RunCommand.cpp - nunc run ------------------------------------------===//

#include "Common.h"

#include "nunc/Interpreter/Evaluator.h"
#include "nunc/Interpreter/Npy.h"
#include "nunc/Codegen/CompileModel.h"
#include "nunc/Codegen/JitModel.h"
#include "nunc/Pipeline/Pipeline.h"
#include "nunc/Quantize/Calibration.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Path.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <random>

namespace cl = llvm::cl;
using namespace mlir;
using namespace mlir::nunc;

namespace nunc_tool {
namespace {
cl::opt<std::string> model(cl::Positional,
                           cl::desc("<model.onnx | model.mlir | model.mlirbc>"), cl::Required,
                           cl::sub(runCommand), cl::cat(category));
cl::opt<std::string> quantize("quantize",
                              cl::desc("none (the default) or int8, as nunc compile; with "
                                       "--reference the evaluator runs the int8 semantics"),
                              cl::init("none"), cl::sub(runCommand), cl::cat(category));
cl::opt<std::string> attentionPrecision(
    "attention",
    cl::desc("With --quantize int8, as nunc compile's: int8 (the default, where this "
             "machine's attention kernel has int8 products) or f32"),
    cl::value_desc("int8|f32"), cl::init("int8"), cl::sub(runCommand), cl::cat(category));
cl::list<std::string> keepF32Names(
    "keep-f32",
    cl::desc("With --quantize int8, as nunc compile's: leave these layers (ONNX node names "
             "or globs over them) in f32"),
    cl::value_desc("node"), cl::CommaSeparated, cl::sub(runCommand), cl::cat(category));
cl::opt<bool> reference("reference",
                        cl::desc("Run with the reference evaluator (exact, slow) instead "
                                 "of compiling the model for this machine"),
                        cl::sub(runCommand), cl::cat(category));
cl::opt<int> threads("threads", cl::desc("Threads of the compiled model (default 1)"),
                     cl::init(1), cl::sub(runCommand), cl::cat(category));
cl::opt<bool> explain("explain",
                      cl::desc("List the kernel chosen for every step of the compiled model "
                               "(on stderr), as nunc compile --explain does"),
                      cl::sub(runCommand), cl::cat(category));
cl::opt<bool> oneStepRequantization(
    "one-step-requantization",
    cl::desc("As nunc compile's (default on): =false rounds a QDQ model's f32 results to "
             "their grids as the reference evaluator does for the ops as written"),
    cl::init(true), cl::sub(runCommand), cl::cat(category));
cl::opt<bool> onnxruntimeRewrites(
    "onnxruntime-rewrites",
    cl::desc("As nunc compile's (default on; the reference evaluator without --quantize "
             "runs the model as written)"),
    cl::init(true), cl::sub(runCommand), cl::cat(category));
cl::opt<std::string> inputFile("input",
                               cl::desc("Inputs as a .npz with one array per graph input, "
                                        "by name"),
                               cl::value_desc("in.npz"), cl::sub(runCommand),
                               cl::cat(category));
cl::opt<bool> randomInputs("random-inputs",
                           cl::desc("Generate inputs: floats uniform in [-1, 1), integers "
                                    "uniform in --int-range, bools 50/50"),
                           cl::sub(runCommand), cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::desc("Seed for --random-inputs"), cl::init(0),
                       cl::sub(runCommand), cl::cat(category));
cl::opt<std::string> intRange("int-range",
                              cl::desc("Range [lo, hi) of random integer inputs"),
                              cl::value_desc("lo:hi"), cl::init("0:100"),
                              cl::sub(runCommand), cl::cat(category));
cl::list<std::string> shapes("shape",
                             cl::desc("Pin a graph input's dims (input_ids=1x128) or a "
                                      "symbolic dim (sequence=128) "
                                      "(repeatable)"),
                             cl::value_desc("name=dims"), cl::sub(runCommand),
                             cl::cat(category));
cl::opt<std::string> output("o", cl::desc("Write the outputs, by graph-output name, to a .npz"),
                            cl::value_desc("out.npz"), cl::sub(runCommand), cl::cat(category));

/// Random tensor of the given type; the same seed gives the same data on
/// every platform (no std distributions).
Tensor randomTensor(DType dtype, ArrayRef<int64_t> shape, std::mt19937_64 &rng,
                    int64_t lo, int64_t hi) {
  Tensor t = cantFail(Tensor::create(dtype, shape));
  auto unit = [&]() { return (rng() >> 11) * (1.0 / 9007199254740992.0); };
  dispatchDType(dtype, [&]<typename T>() {
    T *p = t.mutableAs<T>();
    for (int64_t i = 0; i < t.numElements(); ++i) {
      if constexpr (std::is_same_v<T, bool>)
        p[i] = rng() & 1;
      else if constexpr (std::is_integral_v<T>)
        p[i] = static_cast<T>(lo + static_cast<int64_t>(unit() * double(hi - lo)));
      else
        p[i] = T(static_cast<float>(unit() * 2.0 - 1.0));
    }
  });
  return t;
}

void printSummary(llvm::StringRef name, const Tensor &t) {
  llvm::outs() << name << ": " << t.describe();
  if (t.numElements() == 0) {
    llvm::outs() << "\n";
    return;
  }
  double sum = 0, absMax = 0;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    double v = t.getDouble(i);
    sum += v;
    absMax = std::max(absMax, std::fabs(v));
  }
  llvm::outs() << "  mean " << llvm::format("%.6g", sum / t.numElements()) << "  max|x| "
               << llvm::format("%.6g", absMax) << "\n  [";
  for (int64_t i = 0; i < std::min<int64_t>(8, t.numElements()); ++i)
    llvm::outs() << (i ? ", " : "") << llvm::format("%.6g", t.getDouble(i));
  llvm::outs() << (t.numElements() > 8 ? ", ...]\n" : "]\n");
}
} // namespace

int runRun() {
  if (inputFile.empty() == !randomInputs)
    return fail("run", "give exactly one of --input FILE.npz and --random-inputs");
  int64_t lo = 0, hi = 0;
  {
    auto [a, b] = llvm::StringRef(intRange).split(':');
    if (a.getAsInteger(10, lo) || b.getAsInteger(10, hi) || hi <= lo)
      return fail("run", "--int-range must be LO:HI with LO < HI, got '" + intRange + "'");
  }
  ImportOptions options;
  if (!parseShapePins("run", shapes, options))
    return 1;

  NamedTensors given;
  if (!inputFile.empty()) {
    llvm::Expected<NamedTensors> read = readNpz(inputFile);
    if (!read)
      return fail("run", llvm::toString(read.takeError()));
    given = std::move(*read);
    // The data fixes the shapes: pin them so shape subgraphs fold away.
    for (auto &[name, t] : given)
      options.inputShapeHints[name] =
          std::vector<int64_t>(t.shape().begin(), t.shape().end());
  }

  ToolContext tc;
  OwningOpRef<ModuleOp> module;
  llvm::StringRef path(model);
  if (path.ends_with(".mlir") || path.ends_with(".mlirbc")) {
    // IR that nunc (or nunc-opt) wrote: run it as it is.
    module = parseSourceFile<ModuleOp>(path, &tc.get());
    if (!module)
      return 1;
  } else {
    module = importOnnxModel(&tc.get(), model, options);
    if (!module)
      return 1;
    // What runs compiled (or quantized) takes nunc compile's pipeline from
    // the imported graph: an early fold would turn a QDQ model's quantized
    // weights and biases into f32 ones before the onnxruntime rewrites and
    // the integer kernels could take their grids.
    if (reference && quantize == "none" && failed(simplify(*module)))
      return 1;
  }
  if (quantize != "none" && quantize != "int8")
    return fail("run", "--quantize must be none or int8, got '" + quantize + "'");
  if (attentionPrecision != "int8" && attentionPrecision != "f32")
    return fail("run", "--attention must be int8 or f32, got '" + attentionPrecision + "'");
  if (attentionPrecision.getNumOccurrences() && quantize != "int8")
    return fail("run", "--attention goes with --quantize int8");
  if (!keepF32Names.empty() && quantize != "int8")
    return fail("run", "--keep-f32 goes with --quantize int8");
  if (!reference || quantize == "int8") {
    // Compile for this machine (and link the library into this process), or
    // give the evaluator the quantized ops.
    // u16 inputs need the host's kernels when it runs compiled; the
    // evaluator takes them (every target has int8 convolutions).
    llvm::Expected<TargetInfo> host = resolveTarget("native");
    bool u16Gemms = reference || (host && hasU16InputGemms(*host));
    if (!host)
      llvm::consumeError(host.takeError());
    PassManager pm(&tc.get());
    buildFusionPipeline(pm, /*int8Convs=*/true, u16Gemms, onnxruntimeRewrites);
    // Attention on int8 codes as `nunc compile --quantize int8` for this
    // host has it.
    std::function<bool(AttentionOp)> int8Attention;
    if (host && attentionPrecision == "int8")
      int8Attention = [target = *host](AttentionOp op) { return takesInt8Attention(op, target); };
    if (failed(runPipeline(pm, *module)))
      return 1;
    if (quantize == "int8") {
      llvm::Expected<std::vector<std::string>> keep = keysNamedBy(*module, keepF32Names);
      if (!keep)
        return fail("run", "--keep-f32: " + llvm::toString(keep.takeError()));
      PassManager qpm(&tc.get());
      buildInt8Pipeline(qpm, /*profile=*/"", *keep, /*convs=*/true,
                        /*biasCorrection=*/true, /*staticActivations=*/true,
                        /*minHandoverSnr=*/std::nullopt, /*depthwiseHandover=*/true,
                        std::move(int8Attention));
      if (failed(runPipeline(qpm, *module)))
        return 1;
    }
  }
  auto func = module->lookupSymbol<func::FuncOp>("main");
  if (!func)
    return fail("run", "the module has no func.func @main (the graph to run)");
  // Hand-written IR may leave out the ONNX names: arg<i> and result<i> then.
  auto argName = [&](unsigned i) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "nunc.name");
    return name ? name.str() : "arg" + std::to_string(i);
  };
  auto resultName = [&](unsigned i) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "nunc.name");
    return name ? name.str() : "result" + std::to_string(i);
  };

  SmallVector<Tensor> inputs;
  std::mt19937_64 rng(seed);
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    std::string name = argName(i);
    auto type = cast<ShapedType>(func.getArgumentTypes()[i]);
    if (randomInputs) {
      if (!type.hasStaticShape())
        return fail("run", "input '" + name + "' has dynamic dims; pin them with --shape " +
                               name + "=...");
      std::optional<DType> dtype = fromMlirType(type.getElementType());
      inputs.push_back(randomTensor(*dtype, type.getShape(), rng, lo, hi));
      continue;
    }
    auto it = llvm::find_if(given, [&](auto &p) { return p.first == name; });
    if (it == given.end())
      return fail("run", "'" + inputFile + "' has no array named '" + name + "'");
    inputs.push_back(it->second);
  }
  for (auto &[name, t] : given) {
    bool known = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      known |= argName(i) == name;
    if (!known)
      return fail("run", "'" + inputFile + "' holds '" + name +
                             "', which is not an input of the model");
  }

  llvm::Expected<SmallVector<Tensor>> outputs = SmallVector<Tensor>();
  if (reference) {
    outputs = evaluateFunction(func, inputs);
  } else {
    CompileOptions copts;
    copts.name = "nunc_run_model";
    llvm::Expected<TargetInfo> host = resolveTarget("native");
    if (!host)
      return fail("run", llvm::toString(host.takeError()));
    copts.target = *host;
    copts.quantization = quantize == "int8" ? "int8-dynamic" : "none";
    copts.sourceName = llvm::sys::path::filename(model).str();
    copts.oneStepRequantization = oneStepRequantization;
    FailureOr<CompiledModel> compiled = compileModel(*module, copts);
    if (failed(compiled))
      return 1;
    if (explain)
      printKernelChoices(*compiled, llvm::errs());
    llvm::Expected<std::unique_ptr<JitModel>> jit = JitModel::load(*compiled, copts.name, threads);
    if (!jit)
      return fail("run", llvm::toString(jit.takeError()));
    SmallVector<void *> io;
    for (Tensor &t : inputs)
      io.push_back(t.mutableRaw());
    SmallVector<Tensor> results;
    for (Type type : func.getResultTypes()) {
      auto shaped = cast<RankedTensorType>(type);
      results.push_back(cantFail(Tensor::create(*fromMlirType(shaped.getElementType()),
                                                shaped.getShape())));
      io.push_back(results.back().mutableRaw());
    }
    std::string detail;
    int status = (*jit)->run(io, &detail);
    if (status != 0)
      return fail("run", "the compiled model returned status " + llvm::Twine(status) +
                             (detail.empty() ? "" : ": " + detail));
    outputs = std::move(results);
  }
  if (!outputs)
    return fail("run", llvm::toString(outputs.takeError()));
  NamedTensors named;
  for (auto [i, t] : llvm::enumerate(*outputs))
    named.emplace_back(resultName(i), t);
  if (output.empty()) {
    for (auto &[name, t] : named)
      printSummary(name, t);
    return 0;
  }
  if (llvm::Error e = writeNpz(output, named))
    return fail("run", llvm::toString(std::move(e)));
  return 0;
}

} // namespace nunc_tool
