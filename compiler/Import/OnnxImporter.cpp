//===- OnnxImporter.cpp - ONNX protobuf to the nunc dialect ---------------===//

#include "nunc/Import/OnnxImporter.h"

#include "ImporterImpl.h"
#include "OnnxProtoIO.h"
#include "nunc/Dialect/Nunc/NuncOps.h"
#include "nunc/Dialect/Nunc/NuncUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cfloat>
#include <map>
#include <queue>
#include <set>

using namespace mlir;
using namespace mlir::nunc;
using namespace mlir::nunc::import_detail;

llvm::ArrayRef<llvm::StringRef> mlir::nunc::supportedOnnxOps() { return kSupportedOps; }

std::string mlir::nunc::parseShapePin(llvm::StringRef spec, ImportOptions &options) {
  auto [name, dims] = spec.rsplit('=');
  if (name.empty() || dims.empty() || !spec.contains('='))
    return "expected --shape NAME=DIMS such as input_ids=1x128, got '" + spec.str() + "'";
  std::vector<int64_t> parsed;
  if (dims != "scalar") {
    SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef p : parts) {
      int64_t v;
      if (p.getAsInteger(10, v) || v < 0)
        return "bad dim '" + p.str() + "' in --shape " + spec.str() +
               " (dims are non-negative integers joined by 'x')";
      parsed.push_back(v);
    }
  }
  if (!options.inputShapes.emplace(name.str(), parsed).second)
    return "--shape " + name.str() + " is given twice";
  return "";
}

OwningOpRef<ModuleOp> mlir::nunc::importOnnxModel(MLIRContext *ctx, llvm::StringRef path,
                                                  const ImportOptions &options) {
  ctx->loadDialect<NuncDialect, func::FuncDialect>();
  return Importer(ctx, path, options).run();
}

//===----------------------------------------------------------------------===//
// Model-level checks
//===----------------------------------------------------------------------===//

LogicalResult Importer::checkOpsets() {
  bool haveDefault = false;
  for (const onnx::OperatorSetIdProto &o : model.opset_import()) {
    if (isDefaultDomain(o.domain())) {
      haveDefault = true;
      opset = o.version();
    } else if (o.domain() == kContribDomain) {
      contribOpset = o.version();
    }
  }
  if (!haveDefault) {
    // A model without default-domain nodes needs no default opset.
    for (const onnx::NodeProto &n : model.graph().node())
      if (isDefaultDomain(n.domain()))
        return emitError(fileLoc) << "the model imports no default-domain (ai.onnx) opset";
    opset = kMaxOnnxOpset;
  }
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset)
    return emitError(fileLoc) << "unsupported ai.onnx opset " << opset
                              << " (nunc supports opsets " << kMinOnnxOpset << " to "
                              << kMaxOnnxOpset << ")";
  return success();
}

/// The opset that added an op (only those newer than nunc's minimum opset).
/// LayerNormalization (ai.onnx opset 17) is taken at any opset, as
/// onnxruntime does: its graph optimizer writes it into older models.
static int64_t opsetIntroducing(llvm::StringRef op) {
  return llvm::StringSwitch<int64_t>(op)
      .Case("Expand", 8)
      .Cases({"Erf", "Where", "ConstantOfShape", "IsNaN", "OneHot", "Shrink", "Scatter",
              "MeanVarianceNormalization", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"}, 9)
      .Cases({"Tan", "Asin", "Acos", "Atan"}, 7)
      .Cases({"MatMulInteger", "QLinearMatMul", "QuantizeLinear", "DequantizeLinear"}, 10)
      .Cases({"ConvInteger", "QLinearConv"}, 10)
      .Cases({"DynamicQuantizeLinear", "CumSum", "GatherElements", "GatherND", "ScatterND",
              "ScatterElements"}, 11)
      .Cases({"GreaterOrEqual", "LessOrEqual", "Celu", "Einsum"}, 12)
      .Cases({"ThresholdedRelu", "IsInf", "Mod"}, 10)
      .Case("BitShift", 11)
      .Case("CastLike", 15)
      .Case("GridSample", 16)
      .Case("AffineGrid", 20)
      .Case("Swish", 24)
      .Case("SwiGLU", 28)
      .Case("CumProd", 26)
      .Cases({"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"}, 18)
      .Case("Trilu", 14)
      .Cases({"RMSNormalization", "RotaryEmbedding", "Attention"}, 23)
      .Cases({"Mish", "GroupNormalization"}, 18)
      .Case("Gelu", 20)
      .Default(1);
}

LogicalResult Importer::checkSupportedOps() {
  // Every unsupported op in one report, with counts, so a user sees the whole
  // gap at once.
  std::map<std::string, std::pair<int, std::string>> missing;
  const onnx::GraphProto &g = model.graph();
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &n = g.node(i);
    bool ok = isSupportedNode(n);
    int64_t since = ok && isDefaultDomain(n.domain()) ? opsetIntroducing(n.op_type()) : 0;
    if (ok && since <= opset)
      continue;
    std::string key = isDefaultDomain(n.domain()) ? n.op_type()
                                                  : n.domain() + "." + n.op_type();
    if (ok)
      key += " (not in ai.onnx opset " + std::to_string(opset) + "; added in opset " +
             std::to_string(since) + ")";
    auto &entry = missing[key];
    if (entry.first++ == 0)
      entry.second = n.name().empty() ? n.op_type() + "#" + std::to_string(i) : n.name();
  }
  if (missing.empty())
    return success();
  int total = 0;
  for (auto &[k, v] : missing)
    total += v.first;
  InFlightDiagnostic diag = emitError(fileLoc);
  diag << missing.size() << " unsupported op type" << (missing.size() == 1 ? "" : "s")
       << " (" << total << " node" << (total == 1 ? "" : "s") << "):";
  for (auto &[k, v] : missing)
    diag << "\n  " << k << " x" << v.first << " (first: node \"" << v.second << "\")";
  return diag;
}

LogicalResult Importer::sortNodes(SmallVectorImpl<int> &order) {
  // ONNX requires topological order, but some exporters get it wrong; a stable
  // topological sort accepts those and finds real cycles.
  const onnx::GraphProto &g = model.graph();
  auto describe = [&](int i) {
    const onnx::NodeProto &n = g.node(i);
    return "node \"" + (n.name().empty() ? n.op_type() + "#" + std::to_string(i) : n.name()) +
           "\" (" + n.op_type() + ")";
  };
  llvm::StringSet<> given;
  for (const onnx::ValueInfoProto &v : g.input())
    given.insert(v.name());
  for (const onnx::TensorProto &t : g.initializer())
    given.insert(t.name());
  // A value written again (by a second node, or over a graph input or
  // initializer) keeps its first definition here, so the sort goes through
  // and the import reports it at the node that redefines it.
  llvm::StringMap<int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (const std::string &out : g.node(i).output())
      if (!out.empty() && !given.contains(out))
        producer.try_emplace(out, i);
  std::vector<int> pending(g.node_size(), 0);
  std::vector<std::vector<int>> users(g.node_size());
  for (int i = 0; i < g.node_size(); ++i)
    for (const std::string &in : g.node(i).input()) {
      auto it = producer.find(in);
      if (in.empty() || it == producer.end())
        continue;
      ++pending[i];
      users[it->second].push_back(i);
    }
  // Always take the ready node that comes first in the file, so a graph that
  // is already sorted keeps its order.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < g.node_size(); ++i)
    if (pending[i] == 0)
      ready.push(i);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int u : users[i])
      if (--pending[u] == 0)
        ready.push(u);
  }
  if ((int)order.size() != g.node_size()) {
    // The nodes left are on the cycle or wait on it: name the first few.
    InFlightDiagnostic diag = emitError(fileLoc) << "the graph has a cycle (nodes left waiting: ";
    int named = 0;
    for (int i = 0; i < g.node_size() && named < 3; ++i)
      if (pending[i] > 0)
        diag << (named++ ? ", " : "") << describe(i);
    return diag << (g.node_size() - (int)order.size() > named ? ", ...)" : ")");
  }
  return success();
}

FailureOr<Type> Importer::valueInfoType(const onnx::ValueInfoProto &vi, bool isInput,
                                        SmallVectorImpl<std::string> &dimNames) {
  if (!vi.type().has_tensor_type())
    return emitError(fileLoc) << "graph " << (isInput ? "input" : "output") << " '"
                              << vi.name()
                              << "' is not a tensor (sequences, maps and optionals are "
                                 "not supported)";
  const onnx::TypeProto::Tensor &tt = vi.type().tensor_type();
  std::optional<Type> element = onnx_io::elementType(ctx, tt.elem_type());
  if (!element)
    return emitError(fileLoc) << "graph " << (isInput ? "input" : "output") << " '"
                              << vi.name() << "' has element type "
                              << onnx_io::dataTypeName(tt.elem_type())
                              << ", which nunc does not support";
  const std::vector<int64_t> *pin = nullptr;
  std::string pinSource; // how the messages below name the pin
  if (isInput) {
    auto it = options.inputShapes.find(vi.name());
    if (it != options.inputShapes.end()) {
      pin = &it->second;
      pinSource = "--shape " + vi.name();
    } else {
      auto hint = options.inputShapeHints.find(vi.name());
      if (hint != options.inputShapeHints.end()) {
        pin = &hint->second;
        pinSource = "the data given for input '" + vi.name() + "'";
      }
    }
  }
  // A graph input's dims as pinned or declared: at most 64 of them, and at
  // most 8 GiB in all (an output's declared type only draws a warning where
  // it differs).
  auto inputType = [&](ArrayRef<int64_t> dims) -> FailureOr<Type> {
    if (isInput && static_cast<int64_t>(dims.size()) > shape::kMaxRank)
      return emitError(fileLoc) << "graph input '" << vi.name() << "' has " << dims.size()
                                << " dims, past the " << shape::kMaxRank
                                << " nunc supports";
    if (isInput && !shape::fitsTensorLimit(dims, getElementByteWidth(*element)))
      return emitError(fileLoc) << "graph input '" << vi.name() << "' of shape "
                                << shape::toString(dims) << " would hold more than "
                                << (shape::kMaxTensorBytes >> 30) << " GiB";
    return Type(RankedTensorType::get(dims, *element));
  };
  if (!tt.has_shape()) {
    if (pin)
      return inputType(*pin);
    return Type(UnrankedTensorType::get(*element));
  }
  SmallVector<int64_t> dims;
  for (const onnx::TensorShapeProto::Dimension &d : tt.shape().dim()) {
    // Some exporters (paddle2onnx, old tf2onnx) write -1 for a dim they do
    // not know; onnxruntime reads it as dynamic, and so does nunc.
    if (d.has_dim_value() && d.dim_value() != -1) {
      if (d.dim_value() < 0)
        return emitError(fileLoc) << "graph input/output '" << vi.name()
                                  << "' has a negative dim " << d.dim_value();
      dims.push_back(d.dim_value());
      dimNames.push_back("");
    } else {
      dims.push_back(ShapedType::kDynamic);
      // paddle2onnx names every unknown dim "?": not one symbol but none.
      bool named = d.has_dim_param() && d.dim_param() != "?";
      dimNames.push_back(named ? d.dim_param() : "");
    }
  }
  if (pin) {
    const std::vector<int64_t> &p = *pin;
    if (p.size() != dims.size())
      return emitError(fileLoc) << pinSource << " has " << p.size()
                                << " dims, but the input has rank " << dims.size();
    for (size_t i = 0; i < dims.size(); ++i) {
      if (!ShapedType::isDynamic(dims[i]) && dims[i] != p[i])
        return emitError(fileLoc) << pinSource << " sets dim " << i
                                  << " to " << p[i] << ", but the model fixes it at "
                                  << dims[i];
      dims[i] = p[i];
    }
  }
  return inputType(dims);
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

FailureOr<ElementsAttr> Importer::tensorAttr(onnx::TensorProto &t, Location loc,
                                             llvm::StringRef what) {
  std::optional<Type> element = onnx_io::constantElementType(ctx, t.data_type());
  if (!element)
    return emitError(loc) << what << " has element type "
                          << onnx_io::dataTypeName(t.data_type())
                          << ", which nunc does not support";
  llvm::Expected<std::unique_ptr<std::string>> rawOrErr =
      onnx_io::readTensorData(t, modelDir);
  if (!rawOrErr)
    return emitError(loc) << what << " " << llvm::toString(rawOrErr.takeError());
  std::unique_ptr<std::string> raw = std::move(*rawOrErr);
  int64_t width = onnx_io::isFourBit(t.data_type()) ? 1 : onnx_io::elementSize(t.data_type());
  int64_t bytes = raw->size();
  auto type = RankedTensorType::get(SmallVector<int64_t>(t.dims().begin(), t.dims().end()),
                                    *element);

  if (bytes <= kInlineConstantBytes && element->isInteger(1)) {
    SmallVector<bool> b;
    for (char c : *raw)
      b.push_back(c != 0);
    return ElementsAttr(DenseElementsAttr::get(type, b));
  }
  return rawElementsAttr(type, std::move(raw), width, t.name().empty() ? "constant" : t.name());
}

ElementsAttr Importer::rawElementsAttr(RankedTensorType type, std::unique_ptr<std::string> raw,
                                       int64_t alignment, llvm::StringRef key) {
  // Small constants stay inline and readable; large ones are resource blobs
  // that take over the heap string without copying it.
  if ((int64_t)raw->size() <= kInlineConstantBytes)
    return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(*raw)));
  std::string *owned = raw.release();
  ArrayRef<char> data(owned->data(), owned->size());
  AsmResourceBlob blob(data, alignment,
                       [owned](void *, size_t, size_t) { delete owned; },
                       /*dataIsMutable=*/false);
  return ElementsAttr(DenseResourceElementsAttr::get(type, key, std::move(blob)));
}

Value Importer::constI64(Location loc, ArrayRef<int64_t> v, bool scalar) {
  auto type = RankedTensorType::get(
      scalar ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{(int64_t)v.size()},
      builder.getI64Type());
  return ConstantOp::create(builder, loc, type, DenseIntElementsAttr::get(type, v));
}

Value Importer::constScalar(Location loc, Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  Attribute a = isa<FloatType>(element)
                    ? Attribute(FloatAttr::get(element, value))
                    : Attribute(IntegerAttr::get(element, (int64_t)value));
  return ConstantOp::create(builder, loc, type, DenseElementsAttr::get(type, a));
}

FailureOr<Operation *> Importer::create(NodeContext &n, llvm::StringRef name,
                                        ValueRange operands,
                                        ArrayRef<NamedAttribute> attrs,
                                        unsigned numResults) {
  return createInferred(builder, n.loc, name, operands, attrs, numResults);
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> Importer::run() {
  if (llvm::Error e = onnx_io::loadModel(path, model)) {
    emitError(fileLoc) << llvm::toString(std::move(e));
    return nullptr;
  }
  if (failed(checkOpsets()) || failed(checkSupportedOps()))
    return nullptr;
  onnx::GraphProto &g = *model.mutable_graph();

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  module->getOperation()->setAttr("nunc.source",
                                  StringAttr::get(ctx, llvm::sys::path::filename(path)));
  module->getOperation()->setAttr("nunc.onnx_opset", builder.getI64IntegerAttr(opset));
  builder.setInsertionPointToEnd(module->getBody());

  // Initializers: constants. A graph input with an initializer of the same
  // name (IR < 4 style) is a constant too.
  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &t : g.initializer())
    initializerNames.insert(t.name());
  for (const onnx::SparseTensorProto &s : g.sparse_initializer()) {
    emitError(fileLoc) << "sparse initializer '" << s.values().name()
                       << "' is not supported";
    return nullptr;
  }

  // Inputs, with pins checked against real input names.
  SmallVector<Type> inputTypes;
  SmallVector<const onnx::ValueInfoProto *> inputs;
  SmallVector<SmallVector<std::string>> inputDimNames;
  SmallVector<std::pair<std::string, ElementsAttr>> constantInputs;
  for (const onnx::ValueInfoProto &vi : g.input()) {
    if (initializerNames.contains(vi.name()))
      continue;
    auto fixed = options.constantInputs.find(vi.name());
    if (fixed != options.constantInputs.end()) {
      constantInputs.push_back({vi.name(), fixed->second});
      continue;
    }
    SmallVector<std::string> dimNames;
    FailureOr<Type> t = valueInfoType(vi, /*isInput=*/true, dimNames);
    if (failed(t))
      return nullptr;
    inputTypes.push_back(*t);
    inputs.push_back(&vi);
    inputDimNames.push_back(dimNames);
  }
  // A symbolic dim names one size throughout the graph: `--shape sequence=128`
  // pins it directly, and pinning an input pins its named dims in the
  // inputs that share them.
  std::map<std::string, int64_t> dimValues;
  std::map<std::string, std::string> dimSources; // who pinned each, for errors
  auto isDimName = [&](const std::string &name) {
    return llvm::any_of(inputDimNames, [&](const SmallVector<std::string> &names) {
      return llvm::is_contained(names, name);
    });
  };
  for (auto &[name, dims] : options.inputShapes) {
    if (llvm::any_of(inputs, [&](auto *vi) { return vi->name() == name; }))
      continue;
    if (isDimName(name) && dims.size() == 1) {
      dimValues[name] = dims[0];
      dimSources[name] = "--shape " + name;
      continue;
    }
    std::string names, params;
    for (auto *vi : inputs)
      names += (names.empty() ? "" : ", ") + vi->name();
    std::set<std::string> seen;
    for (const SmallVector<std::string> &dn : inputDimNames)
      for (const std::string &d : dn)
        if (!d.empty() && seen.insert(d).second)
          params += (params.empty() ? "" : ", ") + d;
    InFlightDiagnostic diag = emitError(fileLoc);
    diag << "--shape names '" << name << "', which is not a graph input (inputs: " << names
         << ")";
    if (isDimName(name))
      diag << "; a symbolic dim takes a single size, e.g. --shape " << name << "=128";
    else if (!params.empty())
      diag << " nor a symbolic dim (" << params << ")";
    return nullptr;
  }
  for (auto [i, vi] : llvm::enumerate(inputs)) {
    auto t = dyn_cast<RankedTensorType>(inputTypes[i]);
    if (!t)
      continue;
    // Inputs without a declared shape have no dim names.
    for (auto [d, size] : llvm::enumerate(t.getShape())) {
      if (d >= inputDimNames[i].size())
        break;
      const std::string &dn = inputDimNames[i][d];
      if (ShapedType::isDynamic(size) || dn.empty())
        continue;
      auto [it, added] = dimValues.emplace(dn, size);
      if (added) {
        dimSources[dn] = "input '" + vi->name() + "'";
      } else if (it->second != size) {
        emitError(fileLoc) << "input '" << vi->name() << "' pins symbolic dim '" << dn
                           << "' to " << size << ", but " << dimSources[dn] << " pins it to "
                           << it->second;
        return nullptr;
      }
    }
  }
  for (auto [i, vi] : llvm::enumerate(inputs)) {
    auto t = dyn_cast<RankedTensorType>(inputTypes[i]);
    if (!t || t.hasStaticShape())
      continue;
    SmallVector<int64_t> dims(t.getShape());
    for (auto [d, size] : llvm::enumerate(dims)) {
      if (d >= inputDimNames[i].size())
        break;
      auto it = dimValues.find(inputDimNames[i][d]);
      if (ShapedType::isDynamic(size) && it != dimValues.end())
        size = it->second;
    }
    inputTypes[i] = RankedTensorType::get(dims, t.getElementType());
  }

  auto func = func::FuncOp::create(builder, fileLoc, "main",
                                   builder.getFunctionType(inputTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, vi] : llvm::enumerate(inputs)) {
    func.setArgAttr(i, "nunc.name", builder.getStringAttr(vi->name()));
    if (llvm::any_of(inputDimNames[i], [](const std::string &s) { return !s.empty(); })) {
      SmallVector<Attribute> names;
      for (const std::string &s : inputDimNames[i])
        names.push_back(builder.getStringAttr(s));
      func.setArgAttr(i, "nunc.dim_names", builder.getArrayAttr(names));
    }
    if (values.count(vi->name())) {
      emitError(fileLoc) << "graph input '" << vi->name() << "' is declared twice";
      return nullptr;
    }
    values[vi->name()] = body->getArgument(i);
  }
  builder.setInsertionPointToEnd(body);

  for (auto &[name, value] : constantInputs)
    values[name] = ConstantOp::create(builder, NameLoc::get(builder.getStringAttr(name), fileLoc),
                                      value.getType(), value);
  for (onnx::TensorProto &t : *g.mutable_initializer()) {
    Location loc = NameLoc::get(builder.getStringAttr(t.name()), fileLoc);
    FailureOr<ElementsAttr> value =
        tensorAttr(t, loc, "initializer '" + t.name() + "'");
    if (failed(value))
      return nullptr;
    values[t.name()] = ConstantOp::create(builder, loc, value->getType(), *value);
    if (onnx_io::isFourBit(t.data_type()))
      values[t.name()].getDefiningOp()->setAttr(kFourBitCodes, builder.getUnitAttr());
  }

  SmallVector<int> order;
  if (failed(sortNodes(order)))
    return nullptr;
  for (int i : order)
    if (failed(convertNode(g.node(i), i)))
      return nullptr;

  // Outputs.
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &vi : g.output()) {
    Value v = values.lookup(vi.name());
    if (!v) {
      emitError(fileLoc) << "graph output '" << vi.name() << "' is not produced by any node";
      return nullptr;
    }
    if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type() != 0) {
      SmallVector<std::string> unused;
      FailureOr<Type> declared = valueInfoType(vi, /*isInput=*/false, unused);
      if (failed(declared))
        return nullptr;
      Type got = cast<ShapedType>(v.getType()).getElementType();
      auto want = dyn_cast<RankedTensorType>(*declared);
      auto have = dyn_cast<RankedTensorType>(v.getType());
      if (want && have) {
        bool same = want.getRank() == have.getRank();
        for (int64_t d = 0; same && d < want.getRank(); ++d)
          same = want.isDynamicDim(d) || have.isDynamicDim(d) ||
                 want.getDimSize(d) == have.getDimSize(d);
        if (!same)
          emitWarning(v.getLoc()) << "graph output '" << vi.name() << "' is declared as "
                                  << want << " but computes " << have
                                  << "; using the computed shape";
      }
      if (cast<ShapedType>(*declared).getElementType() != got) {
        emitError(v.getLoc()) << "graph output '" << vi.name() << "' is declared as "
                              << onnxTypeName(cast<ShapedType>(*declared).getElementType())
                              << " but computed as " << onnxTypeName(got);
        return nullptr;
      }
    }
    results.push_back(v);
  }
  func::ReturnOp::create(builder, fileLoc, results);
  func.setFunctionType(builder.getFunctionType(inputTypes, ValueRange(results).getTypes()));
  if (llvm::any_of(g.node(), [](const onnx::NodeProto &n) {
        return llvm::StringRef(n.op_type()).starts_with("QLinear");
      }))
    func->setAttr(kQLinearOperators, builder.getUnitAttr());
  for (auto [i, vi] : llvm::enumerate(g.output()))
    func.setResultAttr(i, "nunc.name", builder.getStringAttr(vi.name()));

  if (failed(verify(*module)))
    return nullptr;
  return module;
}

LogicalResult Importer::convertNode(const onnx::NodeProto &node, int index) {
  std::string name = node.name().empty()
                         ? node.op_type() + "#" + std::to_string(index)
                         : node.name();
  NodeContext n{node,
                makeOnnxNodeLocation(ctx, path, name, node.op_type(),
                                     isDefaultDomain(node.domain()) ? "" : node.domain(),
                                     isDefaultDomain(node.domain()) ? opset : contribOpset),
                isDefaultDomain(node.domain()) ? opset : contribOpset,
                {},
                {}};
  for (const std::string &in : node.input()) {
    if (in.empty()) {
      n.inputs.push_back(Value());
      continue;
    }
    Value v = values.lookup(in);
    if (!v)
      return n.error() << "input '" << in << "' is not produced by any node, input or "
                          "initializer";
    n.inputs.push_back(v);
  }
  SmallVector<Value> outputs;
  if (failed(convert(n, outputs)))
    return failure();
  for (const onnx::AttributeProto &a : node.attribute())
    if (!n.readAttributes.contains(a.name()))
      return n.error() << "unexpected attribute '" << a.name() << "' for "
                       << node.op_type() << " at opset " << n.opset;
  // Declared outputs beyond what the op produces must be unused.
  for (int i = 0; i < node.output_size(); ++i) {
    const std::string &out = node.output(i);
    if (out.empty())
      continue;
    if (i >= (int)outputs.size() || !outputs[i])
      return n.error() << "output #" << i << " ('" << out << "') of " << node.op_type()
                       << " is not supported";
    if (values.count(out))
      return n.error() << "value '" << out << "' is defined twice";
    values[out] = outputs[i];
  }
  return success();
}
