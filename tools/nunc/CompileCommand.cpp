//===- CompileCommand.cpp - nunc compile ----------------------------------===//

#include "Common.h"

#include "nunc/Codegen/CompileModel.h"
#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/ShapeHelpers.h"
#include "nunc/Pipeline/Pipeline.h"
#include "nunc/Plan/MemoryPlan.h"
#include "nunc/Transforms/Passes.h"

#include "nunc/Interpreter/Npy.h"
#include "nunc/Quantize/AccuracyReport.h"
#include "nunc/Quantize/Calibration.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

namespace cl = llvm::cl;
using namespace mlir;
using namespace mlir::nunc;

namespace {

/// Whether `op` is a depthwise conv that only an int8 conv feeds, on f32
/// values: with static activations, one whose input grid missed
/// --min-handover-snr or that --accuracy-target kept.
bool depthwiseOnF32FromInt8(Operation *op) {
  auto producer = dyn_cast_or_null<QuantizedConvOp>(int8ProducerOfDepthwise(op));
  return producer && producer->hasOneUse() && !producer.getOutputQuantization();
}

/// Says what --quantize int8 made int8 and what stayed f32 (and why), so a
/// CNN's user learns that its convolutions did not change.
/// `depthwiseHandover`: static activations on a target whose depthwise
/// kernel reads u8 codes.
void printInt8Coverage(ModuleOp module, bool depthwiseHandover) {
  int quantized = 0, linearF32 = 0, convs = 0, quantizedConvs = 0, depthwise = 0, tables = 0;
  int depthwiseOnF32 = 0, attentions = 0;
  module.walk([&](Operation *op) {
    if (depthwiseHandover && depthwiseOnF32FromInt8(op))
      ++depthwiseOnF32;
    if (isa<QuantizedLinearOp>(op))
      ++quantized;
    else if (isa<LinearOp>(op))
      ++linearF32;
    else if (isa<QuantizedConvOp>(op))
      ++quantizedConvs;
    else if (isInt8Depthwise(op))
      ++depthwise;
    else if (auto a = dyn_cast<AttentionOp>(op))
      attentions += a.getInt8Products();
    else if (isa<ConvOp, FusedConvOp>(op))
      ++convs;
    else if (auto g = dyn_cast<GatherOp>(op))
      tables += cast<ShapedType>(g.getData().getType()).getElementType().isInteger(8) &&
                g.getData().getDefiningOp<ConstantOp>();
  });
  llvm::errs() << "nunc compile: int8: " << quantized << " linear op"
               << (quantized == 1 ? "" : "s") << ", ";
  if (quantizedConvs)
    llvm::errs() << quantizedConvs << " convolution" << (quantizedConvs == 1 ? "" : "s") << ", ";
  if (depthwise)
    llvm::errs() << depthwise << " depthwise convolution" << (depthwise == 1 ? "" : "s")
                 << " on u8 inputs, ";
  if (attentions)
    llvm::errs() << attentions << " attention" << (attentions == 1 ? "" : "s")
                 << " on int8 codes, ";
  llvm::errs() << tables << " embedding table" << (tables == 1 ? "" : "s");
  if (linearF32)
    llvm::errs() << "; " << linearF32 << " linear op" << (linearF32 == 1 ? "" : "s")
                 << " left in f32 (below min-macs, kept, or weight not constant)";
  if (convs)
    llvm::errs() << "; " << convs << " convolution" << (convs == 1 ? "" : "s")
                 << " stay f32 (grouped/depthwise, below min-conv-macs, or kept)";
  if (depthwiseOnF32)
    llvm::errs() << "; " << depthwiseOnF32 << " depthwise convolution"
                 << (depthwiseOnF32 == 1 ? "" : "s")
                 << " after an int8 one read f32 (input grid below --min-handover-snr, or kept)";
  llvm::errs() << "\n";
}

} // namespace

namespace nunc_tool {
llvm::cl::SubCommand compileCommand("compile",
                                    "Compile an ONNX model into lib<name>.a, <name>.h and <name>.json");
namespace {
cl::opt<std::string> model(cl::Positional, cl::desc("<model.onnx>"), cl::Required,
                           cl::sub(compileCommand), cl::cat(category));
cl::opt<std::string> outDir("o", cl::desc("Output directory (created if missing)"),
                            cl::value_desc("dir"), cl::Required, cl::sub(compileCommand),
                            cl::cat(category));
cl::opt<std::string> target("target",
                            cl::desc("x86_64-amx, x86_64-avx512vnni, x86_64-avx512, x86_64-avxvnni, "
                                     "x86_64-avx2 or native "
                                     "(the build host's best; the default)"),
                            cl::init("native"), cl::sub(compileCommand), cl::cat(category));
cl::opt<std::string> name("name",
                          cl::desc("Symbol prefix of the library (default: the model "
                                   "file's stem, made a C identifier)"),
                          cl::sub(compileCommand), cl::cat(category));
cl::list<std::string> shapes("shape",
                             cl::desc("Pin a graph input's dims (input_ids=1x128) or a "
                                      "symbolic dim (sequence=128) "
                                      "(repeatable; every dim must end up static)"),
                             cl::value_desc("name=dims"), cl::sub(compileCommand),
                             cl::cat(category));
cl::opt<std::string> weightsMode("weights",
                                 cl::desc("rodata: weights inside the library (default); "
                                          "external: <name>.weights beside it"),
                                 cl::init("rodata"), cl::sub(compileCommand), cl::cat(category));
cl::opt<std::string> quantize("quantize",
                              cl::desc("none (the default) or int8: weights of linear ops "
                                       "s8 per output channel, activations u8"),
                              cl::init("none"), cl::sub(compileCommand), cl::cat(category));
cl::opt<std::string> activations("activations",
                                 cl::desc("With --quantize int8: dynamic (ranges per row at "
                                          "run time; the default) or static (per-tensor "
                                          "ranges from calibration)"),
                                 cl::init("dynamic"), cl::sub(compileCommand),
                                 cl::cat(category));
cl::opt<std::string> attentionPrecision(
    "attention",
    cl::desc("With --quantize int8: int8 (the default: each head's Q K^T and P V on int8 "
             "codes, where the target's attention kernel has them: x86_64-avx512vnni, "
             "x86_64-amx, x86_64-avxvnni) or f32"),
    cl::value_desc("int8|f32"), cl::init("int8"), cl::sub(compileCommand), cl::cat(category));
cl::opt<std::string> calibration("calibration",
                                 cl::desc("Calibration samples: a .npz (one sample, arrays "
                                          "by input name) or a directory of them; static "
                                          "activation ranges and the means of bias "
                                          "correction (with dynamic activations, only the "
                                          "latter)"),
                                 cl::value_desc("file.npz|dir"), cl::sub(compileCommand),
                                 cl::cat(category));
cl::opt<std::string> calibMethod("calib-method",
                                 cl::desc("minmax (default), percentile[=99.99], mse or entropy"),
                                 cl::init("minmax"), cl::sub(compileCommand),
                                 cl::cat(category));
cl::opt<std::string> saveCalibration("save-calibration",
                                     cl::desc("Write the calibration profile (JSON) here"),
                                     cl::value_desc("profile.json"), cl::sub(compileCommand),
                                     cl::cat(category));
cl::opt<std::string> loadCalibration("load-calibration",
                                     cl::desc("Use this calibration profile instead of "
                                              "calibrating"),
                                     cl::value_desc("profile.json"), cl::sub(compileCommand),
                                     cl::cat(category));
cl::opt<std::string> smoothQuant(
    "smoothquant",
    cl::desc("With --activations static and --calibration: move the outlier channels of "
             "LayerNorm outputs into the weights of the linear ops that read them "
             "(SmoothQuant; migration strength alpha, default 0.5); saved in the profile"),
    cl::value_desc("alpha"), cl::ValueOptional, cl::sub(compileCommand), cl::cat(category));
cl::opt<bool> biasCorrection(
    "bias-correction",
    cl::desc("With --quantize int8 and a calibration: take the mean output shift of each "
             "int8 weight (its rounding error times the calibration mean of each input "
             "channel) back out of the bias (default on; --bias-correction=false turns it "
             "off)"),
    cl::init(true), cl::sub(compileCommand), cl::cat(category));
cl::opt<double> minHandoverSnr(
    "min-handover-snr",
    cl::desc("With --activations static: a depthwise conv reads u8 codes from the int8 conv "
             "before it (integer kernel, faster) only where its calibrated grid keeps the "
             "input's estimated SNR at this many dB (default 40; 0: everywhere)"),
    cl::value_desc("dB"), cl::sub(compileCommand), cl::cat(category));
cl::opt<std::string> report("report",
                            cl::desc("With --quantize int8: write per-layer SNR/cosine and "
                                     "output agreement with f32 on the --calibration samples "
                                     "(Markdown)"),
                            cl::value_desc("quant.md"), cl::sub(compileCommand),
                            cl::cat(category));
cl::opt<std::string> accuracyTarget("accuracy-target",
                                    cl::desc("With --quantize int8: keep the most sensitive "
                                             "layers in f32 until every output's cosine with "
                                             "f32 reaches this, e.g. cos=0.999"),
                                    cl::value_desc("cos=X"), cl::sub(compileCommand),
                                    cl::cat(category));
cl::opt<unsigned> calibrationThreads(
    "calibration-threads",
    cl::desc("Samples that calibration, --report and --accuracy-target evaluate at once "
             "(default 0: one per CPU this process may use, at most 8); the results are the "
             "same for any count"),
    cl::init(0), cl::sub(compileCommand), cl::cat(category));
cl::list<std::string> keepF32Names(
    "keep-f32",
    cl::desc("With --quantize int8: leave these layers in f32, named by an ONNX node fused "
             "into them (a MatMul, Gemm or Conv, an attention's Softmax or Attention, an "
             "embedding's Gather) or by a glob pattern over those names (* ? [...]); "
             "repeatable or comma-separated, e.g. --keep-f32='/classifier/*'"),
    cl::value_desc("node"), cl::CommaSeparated, cl::sub(compileCommand), cl::cat(category));
cl::opt<bool> printPlan("print-memory-plan",
                        cl::desc("Print the static memory plan (every step's buffers)"),
                        cl::sub(compileCommand), cl::cat(category));
cl::opt<std::string> printLoweredIr(
    "print-lowered-ir",
    cl::desc("Write the IR as the kernels take it (after the code generator's passes) to this "
             "file, for compiler developers ('-': stdout)"),
    cl::value_desc("file"), cl::sub(compileCommand), cl::cat(category), cl::Hidden);
cl::opt<bool> splitBatch("split-batch",
                         cl::desc("Run a batch one item at a time when no op mixes its items "
                                  "(default on; --split-batch=false runs every layer on the "
                                  "whole batch)"),
                         cl::init(true), cl::sub(compileCommand), cl::cat(category));
cl::opt<bool> winograd("winograd",
                       cl::desc("Run 3x3 stride-1 f32 convolutions of 8-320 input channels "
                                "over planes 9-16, 19-32 or at least 39 wide as Winograd "
                                "F(2x2, 3x3) on AVX-512 targets, 1.2-2x faster (default on; "
                                "--winograd=false keeps every convolution an im2col GEMM, "
                                "whose sums round as a direct convolution's)"),
                       cl::init(true), cl::sub(compileCommand), cl::cat(category));
cl::opt<bool> elementwiseChains(
    "elementwise-chains",
    cl::desc("Run each run of elementwise ops (a QDQ model's scale, shift and hard-swish with "
             "a grid after each op) as one kernel pass that keeps the values in registers, or "
             "as a table in the conv before it (default on; --elementwise-chains=false runs a "
             "pass per op, the same values, except that a depthwise conv then reading u8 codes "
             "on AVX-512 VNNI or AVX-VNNI sums in integers and may round a tie the other way)"),
    cl::init(true), cl::sub(compileCommand), cl::cat(category));
cl::opt<bool> oneStepRequantization(
    "one-step-requantization",
    cl::desc("Compute a QDQ model's u8 codes as onnxruntime's kernels do: an int8 "
             "convolution's as QLinearConv (its sum plus the bias on the sum's grid, times one "
             "scale, rounded), a GEMM's as QLinearMatMul and QLinearAdd, attention's as "
             "QLinearMatMul, QLinearAdd and QLinearSoftmax, a Mul by a constant as QLinearMul, "
             "a GELU as QLinearAdd and QLinearMuls on its constants' codes, "
             "a LayerNorm between pairs in the f32 order of onnxruntime's kernel; in a QDQ "
             "model with s8 activations a MatMul or conv whose input pair (a conv's: or "
             "output pair) has several readers as onnxruntime's f32 MatMul or Conv sums the "
             "dequantized values (MLAS's order) "
             "(default on; --one-step-requantization=false rounds the f32 result, "
             "scaled sum plus bias, to its grid by an exact division: a code apart where the two "
             "straddle a rounding boundary)"),
    cl::init(true), cl::sub(compileCommand), cl::cat(category));
cl::opt<bool> onnxruntimeRewrites(
    "onnxruntime-rewrites",
    cl::desc("Rewrite a QDQ model as onnxruntime's default session does when it loads it, "
             "so that its outputs are onnxruntime's: Q/DQ pairs in a row become one pair on "
             "their common range (its DoubleQDQPairsRemover), and the f32 weight (s8, one "
             "grid over its values) and bias (s32 on the input's scale times the weight's) "
             "of a Conv, ConvTranspose or Gemm between a DequantizeLinear and a "
             "QuantizeLinear are quantized (its WeightBiasQuantization; those convs and Gemms "
             "then run in int8) (default on; --onnxruntime-rewrites=false computes the model "
             "as written)"),
    cl::init(true), cl::sub(compileCommand), cl::cat(category));
cl::opt<bool> explain("explain",
                      cl::desc("List the kernel chosen for every op, and which ops took "
                               "the generic path"),
                      cl::sub(compileCommand), cl::cat(category));

std::string defaultName(llvm::StringRef path) {
  std::string stem = llvm::sys::path::stem(path).str();
  std::string out;
  for (char c : stem)
    out += (std::isalnum((unsigned char)c) || c == '_') ? (char)std::tolower(c) : '_';
  if (out.empty() || std::isdigit((unsigned char)out[0]))
    out = "m_" + out;
  return out;
}

/// Writes `path` through `path`.tmp, renamed when complete.
bool writeFileWith(const std::string &path,
                   llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  std::string tmp = path + ".tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec, llvm::sys::fs::OF_None);
    if (ec) {
      fail("compile", "cannot write " + tmp + ": " + ec.message());
      return false;
    }
    if (llvm::Error e = write(os)) {
      fail("compile", "cannot write " + tmp + ": " + llvm::toString(std::move(e)));
      return false;
    }
    os.close();
    if (os.has_error()) {
      fail("compile", "cannot write " + tmp);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
    fail("compile", "cannot write " + path + ": " + ec.message());
    return false;
  }
  return true;
}

bool writeFile(const std::string &path, llvm::StringRef bytes) {
  return writeFileWith(path, [&](llvm::raw_ostream &os) {
    os << bytes;
    return llvm::Error::success();
  });
}
/// A file removed when this goes away.
struct TempFile {
  std::string path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

/// The samples at `source`: one .npz, or every .npz of a directory (sorted
/// by name), each with one array per graph input.
llvm::Expected<std::vector<std::vector<Tensor>>>
readSamples(func::FuncOp func, llvm::StringRef source, std::vector<std::string> *names = nullptr) {
  std::vector<std::string> files;
  if (llvm::sys::fs::is_directory(source)) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(source, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::StringRef(it->path()).ends_with(".npz"))
        files.push_back(it->path());
    if (ec)
      return llvm::createStringError("cannot list " + source + ": " + ec.message());
    std::sort(files.begin(), files.end());
    if (files.empty())
      return llvm::createStringError(source + " holds no .npz samples");
  } else {
    files.push_back(source.str());
  }
  std::vector<std::vector<Tensor>> samples;
  for (const std::string &file : files) {
    llvm::Expected<NamedTensors> arrays = readNpz(file); // (its errors name the file)
    if (!arrays)
      return arrays.takeError();
    // A split function takes one image: a sample of the whole batch gives
    // one sample per image (a sample of one image is taken as it is).
    auto images = func->getAttrOfType<IntegerAttr>("nunc.batch_split");
    int64_t perSample = 1;
    std::vector<Tensor> whole;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      std::string name = func.getArgAttrOfType<StringAttr>(i, "nunc.name").str();
      auto it = llvm::find_if(*arrays, [&](auto &p) { return p.first == name; });
      if (it == arrays->end())
        return llvm::createStringError(file + " has no array named '" + name + "'");
      auto type = cast<RankedTensorType>(func.getArgumentTypes()[i]);
      if (images && it->second.rank() == type.getRank() && type.getRank() > 0) {
        // The batch (split below) or one item; say both when it is neither.
        SmallVector<int64_t> batch(type.getShape());
        batch[0] *= images.getInt();
        if (it->second.shape() == ArrayRef<int64_t>(batch))
          perSample = images.getInt();
        else if (it->second.shape() != type.getShape())
          return llvm::createStringError(
              file + ": input '" + name + "' has shape " + shape::toString(it->second.shape()) +
              ", expected " + shape::toString(batch) + " (the batch) or " +
              shape::toString(type.getShape()) + " (one item)");
      }
      if (it->second.dtype() == DType::F32) {
        // NaN is never data; an infinite value may be (an additive mask),
        // and calibration names the op where one reaches a quantized input.
        const float *v = it->second.as<float>();
        int64_t n = it->second.numElements(), nans = 0, first = 0;
        for (int64_t j = 0; j < n; ++j)
          if (std::isnan(v[j]) && nans++ == 0)
            first = j;
        if (nans)
          return llvm::createStringError(file + ": input '" + name + "' holds " +
                                         std::to_string(nans) + " NaN of " + std::to_string(n) +
                                         " values (the first at flat index " +
                                         std::to_string(first) + ")");
      }
      whole.push_back(it->second);
    }
    for (int64_t image = 0; image < perSample; ++image) {
      std::vector<Tensor> sample;
      for (const Tensor &t : whole) {
        if (perSample == 1) {
          sample.push_back(t);
          continue;
        }
        if (t.shape()[0] % perSample)
          return llvm::createStringError(file + ": the inputs' batch sizes differ");
        SmallVector<int64_t> shape(t.shape());
        shape[0] /= perSample;
        llvm::Expected<Tensor> slice =
            Tensor::copyOf(t.dtype(), shape, t.raw() + image * (t.byteSize() / perSample));
        if (!slice)
          return slice.takeError();
        sample.push_back(std::move(*slice));
      }
      samples.push_back(std::move(sample));
      if (names)
        names->push_back(perSample == 1 ? file : file + " item " + std::to_string(image));
    }
  }
  return samples;
}

/// `x` as printf's %g writes it (0.5, not 5.000000e-01).
std::string shortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

/// Calibrates the fused `module` on the samples, first smoothing it when
/// `alpha` > 0; writes the profile to `savePath` (or a temporary file held by
/// `temp`) and returns its path.
llvm::Expected<std::string> calibrateModel(ModuleOp module, llvm::StringRef source,
                                           llvm::StringRef method, double alpha,
                                           llvm::StringRef savePath, unsigned threads,
                                           std::optional<TempFile> &temp) {
  auto func = module.lookupSymbol<func::FuncOp>("main");
  std::vector<std::string> names;
  llvm::Expected<std::vector<std::vector<Tensor>>> samples = readSamples(func, source, &names);
  if (!samples)
    return samples.takeError();
  std::optional<Smoothing> smoothing;
  if (alpha > 0) {
    auto absMax = layerNormChannelAbsMax(func, *samples);
    if (!absMax)
      return absMax.takeError();
    smoothing = smoothingFactors(func, *absMax, alpha);
    if (failed(applySmoothing(func, *smoothing)))
      return llvm::createStringError("smoothing failed");
    llvm::errs() << "nunc compile: int8: smoothed " << smoothing->factors.size()
                 << " LayerNorm output(s) (SmoothQuant, alpha " << shortNumber(alpha) << ")\n";
  }
  llvm::Expected<CalibrationProfile> profile =
      calibrate(func, *samples, method, names, threads);
  if (!profile)
    return profile.takeError();
  profile->smoothing = std::move(smoothing);
  std::string path = savePath.str();
  if (path.empty()) {
    llvm::SmallString<128> tmp;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile("nunc-calibration", "json", tmp))
      return llvm::createStringError("cannot create a temporary file: " + ec.message());
    temp.emplace();
    temp->path = path = tmp.str().str();
  }
  if (!writeFile(path, profile->toJson()))
    return llvm::createStringError("cannot write " + path);
  return path;
}
} // namespace

int runCompile() {
  auto start = std::chrono::steady_clock::now();
  CompileOptions options;
  options.name = name.empty() ? defaultName(model) : name.getValue();
  for (char c : options.name)
    if (!(std::isalnum((unsigned char)c) || c == '_'))
      return fail("compile", "--name must be a C identifier, got '" + options.name + "'");
  if (std::isdigit((unsigned char)options.name[0]))
    return fail("compile", "--name must not start with a digit");
  if (weightsMode != "rodata" && weightsMode != "external")
    return fail("compile", "--weights must be rodata or external");
  options.externalWeights = weightsMode == "external";
  options.winograd = winograd;
  options.elementwiseChains = elementwiseChains;
  options.oneStepRequantization = oneStepRequantization;
  llvm::Expected<TargetInfo> t = resolveTarget(target);
  if (!t)
    return fail("compile", llvm::toString(t.takeError()));
  options.target = *t;
  if (quantize != "none" && quantize != "int8")
    return fail("compile", "--quantize must be none or int8, got '" + quantize + "'");
  if (activations != "dynamic" && activations != "static")
    return fail("compile", "--activations must be dynamic or static, got '" + activations + "'");
  if (attentionPrecision != "int8" && attentionPrecision != "f32")
    return fail("compile", "--attention must be int8 or f32, got '" + attentionPrecision + "'");
  if (attentionPrecision.getNumOccurrences() && quantize != "int8")
    return fail("compile", "--attention goes with --quantize int8");
  if (activations == "static" && quantize != "int8")
    return fail("compile", "--activations static goes with --quantize int8");
  bool staticInt8 = quantize == "int8" && activations == "static";
  if (staticInt8 && calibration.empty() == loadCalibration.empty())
    return fail("compile", "--activations static needs exactly one of --calibration "
                           "(samples) and --load-calibration (a saved profile)");
  bool measure = !report.empty() || !accuracyTarget.empty();
  if (!keepF32Names.empty() && quantize != "int8")
    return fail("compile", "--keep-f32 goes with --quantize int8");
  if (measure && quantize != "int8")
    return fail("compile", "--report and --accuracy-target go with --quantize int8");
  if (measure && calibration.empty())
    return fail("compile", "--report and --accuracy-target measure on the --calibration "
                           "samples; give them");
  if (quantize != "int8" &&
      (!loadCalibration.empty() || !saveCalibration.empty() || !calibration.empty()))
    return fail("compile", "--calibration, --load-calibration and --save-calibration go "
                           "with --quantize int8");
  if (!staticInt8 && !calibration.empty() && !loadCalibration.empty() && !measure)
    return fail("compile", "--activations dynamic takes one of --calibration (samples) and "
                           "--load-calibration (a saved profile) for bias correction");
  if (!saveCalibration.empty() && (calibration.empty() || !loadCalibration.empty()))
    return fail("compile", "--save-calibration writes the profile of the --calibration "
                           "samples; give them instead of --load-calibration");
  if (biasCorrection.getNumOccurrences() && calibration.empty() && loadCalibration.empty())
    return fail("compile", "--bias-correction needs the channel means of --calibration "
                           "samples or of a --load-calibration profile");
  if (minHandoverSnr.getNumOccurrences() && !staticInt8)
    return fail("compile", "--min-handover-snr goes with --quantize int8 --activations static");
  std::optional<double> handoverSnr;
  if (minHandoverSnr.getNumOccurrences()) {
    if (!(minHandoverSnr >= 0))
      return fail("compile", "--min-handover-snr takes a number of dB >= 0");
    handoverSnr = minHandoverSnr;
  }
  double smoothAlpha = 0;
  if (smoothQuant.getNumOccurrences()) {
    if (!staticInt8 || calibration.empty() || !loadCalibration.empty())
      return fail("compile", "--smoothquant goes with --quantize int8 --activations static "
                             "--calibration (a loaded profile brings its own smoothing)");
    smoothAlpha = 0.5;
    if (!smoothQuant.empty() && (llvm::StringRef(smoothQuant).getAsDouble(smoothAlpha) ||
                                 !(smoothAlpha > 0 && smoothAlpha < 1)))
      return fail("compile", "--smoothquant takes an alpha with 0 < alpha < 1, got '" +
                                 smoothQuant + "'");
  }
  double targetCosine = 0;
  if (!accuracyTarget.empty()) {
    llvm::StringRef t(accuracyTarget);
    if (!t.consume_front("cos=") || t.getAsDouble(targetCosine) || targetCosine <= 0 ||
        targetCosine > 1)
      return fail("compile", "--accuracy-target must be cos=X with 0 < X <= 1, got '" +
                                 accuracyTarget + "'");
  }
  llvm::Expected<std::string> method = parseCalibrationMethod(calibMethod);
  if (!method)
    return fail("compile", llvm::toString(method.takeError()));
  if (!staticInt8 && calibMethod.getNumOccurrences())
    return fail("compile", "--calib-method chooses static activation ranges; it goes with "
                           "--quantize int8 --activations static");
  options.quantization = quantize != "int8" ? "none" : staticInt8 ? "int8-static" : "int8-dynamic";
  options.sourceName = llvm::sys::path::filename(model).str();
  options.printMemoryPlan = printPlan;
  options.planStream = &llvm::outs();
  std::unique_ptr<llvm::ToolOutputFile> loweredIr;
  if (!printLoweredIr.empty()) {
    std::error_code ec;
    loweredIr = std::make_unique<llvm::ToolOutputFile>(printLoweredIr, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return fail("compile", "cannot write '" + printLoweredIr + "': " + ec.message());
    loweredIr->keep();
    options.loweredIrStream = &loweredIr->os();
  }

  ImportOptions importOptions;
  if (!parseShapePins("compile", shapes, importOptions))
    return 1;
  ToolContext tc;
  OwningOpRef<ModuleOp> module = importOnnxModel(&tc.get(), model, importOptions);
  if (!module)
    return 1;
  // Before any pass speaks of batches or quantization.
  if (auto main = module->lookupSymbol<func::FuncOp>("main");
      main && failed(requireStaticInputs(main)))
    return 1;
  PassManager pm(&tc.get());
  buildFusionPipeline(pm, /*int8Convs=*/true, hasU16InputGemms(options.target),
                      onnxruntimeRewrites);
  // Before quantization: ranges taken at run time then cover one image.
  if (splitBatch)
    pm.nest<func::FuncOp>().addPass(createSplitBatch());
  if (failed(runPipeline(pm, *module)))
    return 1;
  if (auto main = module->lookupSymbol<func::FuncOp>("main")) {
    if (auto n = main->getAttrOfType<IntegerAttr>("nunc.batch_split"))
      llvm::errs() << "nunc compile: runs the batch of " << n.getInt()
                   << " one item at a time (the arena holds one item)\n";
    else if (auto why = main->getAttrOfType<StringAttr>("nunc.batch_split_blocked"))
      llvm::errs() << "nunc compile: runs the batch as a whole: " << why.getValue() << "\n";
  }
  // By default the CPUs this process may run on, at most 8: each sample in
  // flight holds its observed tensors (~35 MB for BERT-base at 128 tokens,
  // ~120 MB for --report).
  const unsigned calibrationThreadCount =
      calibrationThreads ? calibrationThreads.getValue()
                         : std::clamp(llvm::hardware_concurrency().compute_thread_count(), 1u, 8u);
  if (quantize == "int8") {
    // Named before calibrating, so that a misspelt name costs no time.
    llvm::Expected<std::vector<std::string>> keys = keysNamedBy(*module, keepF32Names);
    if (!keys)
      return fail("compile", "--keep-f32: " + llvm::toString(keys.takeError()));
    const std::vector<std::string> named = std::move(*keys);
    std::string profilePath = loadCalibration;
    std::optional<TempFile> temp;
    // With dynamic activations a profile only brings the channel means of
    // bias correction.
    if (profilePath.empty() && !calibration.empty() &&
        (staticInt8 || biasCorrection || !saveCalibration.empty())) {
      llvm::Expected<std::string> path =
          calibrateModel(*module, calibration, *method, smoothAlpha, saveCalibration,
                         calibrationThreadCount, temp);
      if (!path)
        return fail("compile", llvm::toString(path.takeError()));
      profilePath = *path;
    } else if (!profilePath.empty()) {
      // A saved profile's ranges are those of the smoothed inputs: smooth
      // as it says before quantizing (and before measuring against f32).
      PassManager spm(&tc.get());
      spm.nest<func::FuncOp>().addPass(createSmoothActivations({profilePath}));
      if (failed(runPipeline(spm, *module)))
        return 1;
    }
    if (!profilePath.empty() && biasCorrection)
      llvm::errs() << "nunc compile: int8: correcting the biases with the calibration profile's "
                      "input means\n";
    std::vector<std::vector<Tensor>> samples;
    if (measure) {
      llvm::Expected<std::vector<std::vector<Tensor>>> read =
          readSamples(module->lookupSymbol<func::FuncOp>("main"), calibration);
      if (!read)
        return fail("compile", llvm::toString(read.takeError()));
      samples = std::move(*read);
    }
    OwningOpRef<ModuleOp> f32 = module->clone();
    auto quantizeCopy = [&](ArrayRef<std::string> keep) -> OwningOpRef<ModuleOp> {
      OwningOpRef<ModuleOp> copy = f32->clone();
      PassManager qpm(&tc.get());
      // Every target has int8 convolutions, and depthwise kernels that
      // read their u8 codes.
      std::function<bool(AttentionOp)> int8Attention;
      if (attentionPrecision == "int8")
        int8Attention = [target = options.target](AttentionOp op) {
          return takesInt8Attention(op, target);
        };
      buildInt8Pipeline(qpm, profilePath, keep, /*convs=*/true, biasCorrection, staticInt8,
                        handoverSnr, /*depthwiseHandover=*/true, std::move(int8Attention));
      if (failed(runPipeline(qpm, *copy)))
        return nullptr;
      return copy;
    };
    auto mainOf = [](ModuleOp m) { return m.lookupSymbol<func::FuncOp>("main"); };
    std::vector<std::string> keep = named;
    if (targetCosine > 0) {
      // Greedy by measured sensitivity: the layer with the lowest SNR (all
      // layers quantized but those --keep-f32 names, each measured alone)
      // goes back to f32 first.
      OwningOpRef<ModuleOp> all = quantizeCopy(keep);
      if (!all)
        return 1;
      llvm::Expected<std::vector<LayerError>> layers =
          layerErrors(mainOf(*f32), mainOf(*all), samples, calibrationThreadCount);
      if (!layers)
        return fail("compile", llvm::toString(layers.takeError()));
      std::vector<LayerError> bySensitivity = *layers;
      std::stable_sort(bySensitivity.begin(), bySensitivity.end(),
                       [](const LayerError &a, const LayerError &b) { return a.snrDb < b.snrDb; });
      // Search on a few samples; the report uses them all.
      ArrayRef<std::vector<Tensor>> probe(samples.data(), std::min<size_t>(samples.size(), 8));
      std::vector<SmallVector<Tensor>> f32Outputs;
      for (size_t next = 0;; ++next) {
        OwningOpRef<ModuleOp> q = quantizeCopy(keep);
        if (!q)
          return 1;
        llvm::Expected<std::vector<OutputAgreement>> outs =
            compareOutputs(mainOf(*f32), mainOf(*q), probe, calibrationThreadCount,
                           &f32Outputs);
        if (!outs)
          return fail("compile", llvm::toString(outs.takeError()));
        double worst = 1;
        for (const OutputAgreement &o : *outs)
          worst = std::min(worst, o.cosine);
        if (worst >= targetCosine || next >= bySensitivity.size())
          break;
        keep.push_back(bySensitivity[next].key);
      }
    }
    OwningOpRef<ModuleOp> quantized = quantizeCopy(keep);
    if (!quantized)
      return 1;
    module = std::move(quantized);
    printInt8Coverage(*module, staticInt8);
    if (!named.empty())
      llvm::errs() << "nunc compile: int8: --keep-f32 leaves " << named.size() << " layer"
                   << (named.size() == 1 ? "" : "s") << " in f32: " << llvm::join(named, ", ")
                   << "\n";
    if (!report.empty()) {
      llvm::Expected<std::vector<LayerError>> layers =
          layerErrors(mainOf(*f32), mainOf(*module), samples, calibrationThreadCount);
      if (!layers)
        return fail("compile", llvm::toString(layers.takeError()));
      llvm::Expected<std::vector<OutputAgreement>> outs =
          compareOutputs(mainOf(*f32), mainOf(*module), samples, calibrationThreadCount);
      if (!outs)
        return fail("compile", llvm::toString(outs.takeError()));
      std::string settings =
          "int8, activations " + activations.getValue() +
          (staticInt8 ? " (calibration " + *method + ")" : std::string(" (per row; per tensor for convolutions)")) +
          (!profilePath.empty() && biasCorrection ? ", bias correction" : "") +
          (smoothAlpha > 0 ? ", SmoothQuant alpha " + shortNumber(smoothAlpha) : std::string()) +
          (targetCosine > 0 ? ", accuracy target " + accuracyTarget.getValue() : "");
      // Each kept layer with what kept it.
      std::vector<std::string> kept;
      for (const std::string &k : keep)
        kept.push_back(k + (llvm::is_contained(named, k) ? " (--keep-f32)"
                                                          : " (--accuracy-target)"));
      if (!writeFile(report, accuracyReportMarkdown(options.sourceName, settings,
                                                    samples.size(), *layers, *outs, kept)))
        return 1;
    }
  }
  FailureOr<CompiledModel> compiled = compileModel(*module, options);
  if (failed(compiled))
    return 1;

  if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
    return fail("compile", "cannot create " + outDir + ": " + ec.message());
  std::string base = outDir + "/";
  if (!writeFileWith(base + "lib" + options.name + ".a",
                     [&](llvm::raw_ostream &os) { return writeArchive(*compiled, os); }) ||
      !writeFile(base + options.name + ".h", compiled->header) ||
      !writeFile(base + options.name + ".json", compiled->manifest) ||
      (options.externalWeights && !writeFile(base + options.name + ".weights", compiled->weights)))
    return 1;
  if (explain)
    printKernelChoices(*compiled, llvm::outs());
  // The price of onnxruntime's arithmetic, said once: its f32 GEMMs and
  // convolutions (QDQ pairs it keeps s8, 4-bit weights) cost about twice
  // the integer ones.
  if (options.oneStepRequantization) {
    const auto f32Products = llvm::count_if(compiled->kernels, [](const KernelChoice &k) {
      return llvm::StringRef(k.kernel).contains("f32 product");
    });
    if (f32Products)
      llvm::errs() << "nunc compile: " << f32Products << " int8 step"
                   << (f32Products == 1 ? "" : "s")
                   << " sum f32 products, as onnxruntime computes them (pairs it keeps s8, "
                      "4-bit weights); --one-step-requantization=false sums integers there "
                      "(faster, a step or two apart)\n";
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  llvm::errs() << "nunc compile: " << options.name << " for " << options.target.name
               << ": arena " << compiled->arenaBytes << " B, weights "
               << compiled->weightBytes << " B, " << compiled->kernels.size() << " steps, "
               << llvm::format("%.1f", seconds) << " s\n";
  return 0;
}

} // namespace nunc_tool
