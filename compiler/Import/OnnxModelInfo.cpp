//===- OnnxModelInfo.cpp - what `nunc inspect` reports about a model ------===//

#include "nunc/Import/OnnxModelInfo.h"

#include "ImporterImpl.h"
#include "OnnxProtoIO.h"

namespace mlir::nunc {

static OnnxValueInfo describeValue(const onnx::ValueInfoProto &vi) {
  OnnxValueInfo info;
  info.name = vi.name();
  if (!vi.type().has_tensor_type()) {
    info.dtype = "non-tensor";
    return info;
  }
  const auto &tt = vi.type().tensor_type();
  info.dtype = onnx_io::numpyName(tt.elem_type());
  info.hasShape = tt.has_shape();
  for (const auto &d : tt.shape().dim()) {
    info.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    info.dimNames.push_back(d.has_dim_param() ? d.dim_param() : "");
  }
  return info;
}

static void countTensor(const onnx::TensorProto &t, OnnxModelInfo &info) {
  llvm::Expected<int64_t> n = onnx_io::tensorElementCount(t);
  if (!n) {
    llvm::consumeError(n.takeError());
    return;
  }
  info.parameterCount += *n;
  info.parameterBytes += onnx_io::storedBytes(t.data_type(), *n);
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    info.usesExternalData = true;
}

llvm::Expected<OnnxModelInfo> readOnnxModelInfo(llvm::StringRef path) {
  onnx::ModelProto model;
  if (llvm::Error e = onnx_io::loadModel(path, model))
    return std::move(e);
  OnnxModelInfo info;
  info.irVersion = model.ir_version();
  info.producer = model.producer_name();
  if (!model.producer_version().empty())
    info.producer += " " + model.producer_version();
  for (const auto &o : model.opset_import())
    info.opsets[import_detail::isDefaultDomain(o.domain()) ? "" : o.domain()] = o.version();
  const onnx::GraphProto &g = model.graph();
  llvm::StringSet<> initializers;
  for (const auto &t : g.initializer()) {
    initializers.insert(t.name());
    ++info.numInitializers;
    countTensor(t, info);
  }
  for (const auto &n : g.node()) {
    ++info.numNodes;
    bool dflt = import_detail::isDefaultDomain(n.domain());
    std::string key = dflt ? n.op_type() : n.domain() + "." + n.op_type();
    ++info.opHistogram[key];
    if (!import_detail::isSupportedNode(n)) {
      if (info.unsupportedOps[key]++ == 0)
        info.firstUnsupportedNode[key] = n.name();
    }
    if (dflt && n.op_type() == "Constant")
      for (const auto &a : n.attribute())
        if (a.type() == onnx::AttributeProto::TENSOR)
          countTensor(a.t(), info);
  }
  for (const auto &vi : g.input())
    if (!initializers.contains(vi.name()))
      info.inputs.push_back(describeValue(vi));
  for (const auto &vi : g.output())
    info.outputs.push_back(describeValue(vi));
  return info;
}

} // namespace mlir::nunc
