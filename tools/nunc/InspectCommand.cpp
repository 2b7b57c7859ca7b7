//===- InspectCommand.cpp - nunc inspect ----------------------------------===//

#include "Common.h"

#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Import/OnnxModelInfo.h"
#include "nunc/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;
using namespace mlir;
using namespace mlir::nunc;

namespace nunc_tool {
namespace {
cl::opt<std::string> model(cl::Positional, cl::desc("<model.onnx>"), cl::Required,
                           cl::sub(inspectCommand), cl::cat(category));
cl::opt<bool> json("json", cl::desc("Print JSON for machines"), cl::sub(inspectCommand),
                   cl::cat(category));
cl::list<std::string> shapes("shape",
                             cl::desc("Pin a graph input's dims (input_ids=1x128) or a "
                                      "symbolic dim (sequence=128) for the MAC count "
                                      "(repeatable)"),
                             cl::value_desc("name=dims"), cl::sub(inspectCommand),
                             cl::cat(category));

/// Multiply-accumulates of the model's contractions (MatMul, Gemm, Conv and
/// their integer forms), or std::nullopt while some shape is dynamic.
std::optional<int64_t> countMacs(func::FuncOp func) {
  int64_t macs = 0;
  bool known = true;
  auto staticShape = [&](Value v) -> ArrayRef<int64_t> {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape()) {
      known = false;
      return {};
    }
    return t.getShape();
  };
  auto product = [](ArrayRef<int64_t> dims) {
    int64_t p = 1;
    for (int64_t d : dims)
      p *= d;
    return p;
  };
  func.walk([&](Operation *op) {
    if (isa<MatMulOp, MatMulIntegerOp, QLinearMatMulOp>(op)) {
      ArrayRef<int64_t> a = staticShape(op->getOperand(0));
      ArrayRef<int64_t> out = staticShape(op->getResult(0));
      if (known && !a.empty())
        macs += product(out) * a.back();
    } else if (auto gemm = dyn_cast<GemmOp>(op)) {
      ArrayRef<int64_t> a = staticShape(gemm.getA());
      ArrayRef<int64_t> out = staticShape(gemm.getOutput());
      if (known)
        macs += product(out) * a[gemm.getTransA() ? 0 : 1];
    } else if (isa<ConvOp, ConvIntegerOp, QLinearConvOp>(op)) {
      ArrayRef<int64_t> w = staticShape(op->getOperand(isa<QLinearConvOp>(op) ? 3 : 1));
      ArrayRef<int64_t> out = staticShape(op->getResult(0));
      if (known)
        macs += product(out) * product(w.drop_front(1));
    }
  });
  if (!known)
    return std::nullopt;
  return macs;
}

std::string dimsText(const OnnxValueInfo &v) {
  if (!v.hasShape)
    return "(unknown shape)";
  std::string s = "[";
  for (size_t i = 0; i < v.dims.size(); ++i) {
    if (i)
      s += ", ";
    s += v.dims[i] >= 0 ? std::to_string(v.dims[i])
                        : (v.dimNames[i].empty() ? "?" : v.dimNames[i]);
  }
  return s + "]";
}

llvm::json::Value valueJson(const OnnxValueInfo &v) {
  llvm::json::Array dims;
  for (size_t i = 0; i < v.dims.size(); ++i) {
    if (v.dims[i] >= 0)
      dims.push_back(v.dims[i]);
    else if (!v.dimNames[i].empty())
      dims.push_back(v.dimNames[i]);
    else
      dims.push_back(nullptr);
  }
  return llvm::json::Object{{"name", v.name},
                            {"dtype", v.dtype},
                            {"shape", v.hasShape ? llvm::json::Value(std::move(dims))
                                                 : llvm::json::Value(nullptr)}};
}

std::string human(double v, const char *unit) {
  const char *prefixes[] = {"", " K", " M", " G", " T"};
  int i = 0;
  while (v >= 1000 && i < 4) {
    v /= 1000;
    ++i;
  }
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.3g", v) << prefixes[i] << unit;
  return s;
}
} // namespace

int runInspect() {
  ImportOptions options;
  if (!parseShapePins("inspect", shapes, options))
    return 1;
  llvm::Expected<OnnxModelInfo> infoOrErr = readOnnxModelInfo(model);
  if (!infoOrErr)
    return fail("inspect", model + ": " + llvm::toString(infoOrErr.takeError()));
  OnnxModelInfo &info = *infoOrErr;

  // MACs need the model imported (and static); an unsupported model still
  // gets the rest of the report.
  std::optional<int64_t> macs;
  std::string macNote;
  if (info.unsupportedOps.empty()) {
    ToolContext tc;
    OwningOpRef<ModuleOp> module = importOnnxModel(&tc.get(), model, options);
    if (!module || failed(simplify(*module)))
      return 1;
    macs = countMacs(module->lookupSymbol<func::FuncOp>("main"));
    if (!macs)
      macNote = "unknown while dims are dynamic (pin them with --shape NAME=DIMS)";
  } else {
    macNote = "unknown (the model has unsupported ops)";
  }

  if (json) {
    llvm::json::Object opsets, hist, unsupported;
    for (auto &[d, v] : info.opsets)
      opsets[d.empty() ? "ai.onnx" : d] = v;
    for (auto &[op, n] : info.opHistogram)
      hist[op] = n;
    for (auto &[op, n] : info.unsupportedOps)
      unsupported[op] = llvm::json::Object{{"count", n},
                                           {"first_node", info.firstUnsupportedNode[op]}};
    llvm::json::Array ins, outs;
    for (auto &v : info.inputs)
      ins.push_back(valueJson(v));
    for (auto &v : info.outputs)
      outs.push_back(valueJson(v));
    llvm::json::Object root{
        {"model", model.getValue()},
        {"ir_version", info.irVersion},
        {"producer", info.producer},
        {"opsets", std::move(opsets)},
        {"inputs", std::move(ins)},
        {"outputs", std::move(outs)},
        {"nodes", info.numNodes},
        {"initializers", info.numInitializers},
        {"parameters", info.parameterCount},
        {"parameter_bytes", info.parameterBytes},
        {"external_data", info.usesExternalData},
        {"ops", std::move(hist)},
        {"unsupported_ops", std::move(unsupported)},
        {"macs", macs ? llvm::json::Value(*macs) : llvm::json::Value(nullptr)}};
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
    return 0;
  }

  llvm::raw_ostream &os = llvm::outs();
  os << "model:       " << model << " (IR version " << info.irVersion;
  if (!info.producer.empty())
    os << ", producer " << info.producer;
  os << ")\nopsets:     ";
  bool first = true;
  for (auto &[d, v] : info.opsets) {
    os << (first ? "" : ", ") << (d.empty() ? "ai.onnx" : d) << " " << v;
    first = false;
  }
  os << "\ninputs:\n";
  for (auto &v : info.inputs)
    os << "  " << v.name << "  " << v.dtype << " " << dimsText(v) << "\n";
  os << "outputs:\n";
  for (auto &v : info.outputs)
    os << "  " << v.name << "  " << v.dtype << " " << dimsText(v) << "\n";
  os << "parameters: " << info.parameterCount << " ("
     << human(info.parameterBytes, "B") << ") in " << info.numInitializers
     << " initializers" << (info.usesExternalData ? ", external data" : "") << "\n";
  os << "MACs:       " << (macs ? human(*macs, "") + " (" + std::to_string(*macs) + ")"
                                : macNote)
     << "\n";
  os << "nodes:      " << info.numNodes << "\nops:\n";
  std::vector<std::pair<int64_t, std::string>> sorted;
  for (auto &[op, n] : info.opHistogram)
    sorted.emplace_back(-n, op);
  llvm::sort(sorted);
  for (auto &[n, op] : sorted)
    os << "  " << llvm::left_justify(op, 24) << " " << -n << "\n";
  os << "unsupported ops: ";
  if (info.unsupportedOps.empty()) {
    os << "none\n";
  } else {
    os << "\n";
    for (auto &[op, n] : info.unsupportedOps)
      os << "  " << op << " x" << n << " (first: node \"" << info.firstUnsupportedNode[op]
         << "\")\n";
  }
  return 0;
}

} // namespace nunc_tool
