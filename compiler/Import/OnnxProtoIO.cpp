//===- OnnxProtoIO.cpp - reading ONNX protobuf files ----------------------===//

#include "OnnxProtoIO.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <fcntl.h>
#include <unistd.h>

namespace mlir::nunc::onnx_io {

static llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Error loadModel(llvm::StringRef path, onnx::ModelProto &model) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return error("cannot open: " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return error("not a regular file");
  if (status.getSize() == 0)
    return error("the file is empty");
  int fd = ::open(path.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return error("cannot open: " + llvm::Twine(std::strerror(errno)));
  bool ok;
  {
    google::protobuf::io::FileInputStream stream(fd, /*block_size=*/1 << 20);
    google::protobuf::io::CodedInputStream coded(&stream);
    coded.SetTotalBytesLimit(INT32_MAX);
    ok = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  ::close(fd);
  if (!ok)
    return error("not a valid ONNX model (the protobuf data is truncated or corrupt)");
  if (!model.has_graph())
    return error("not a valid ONNX model (no graph)");
  if (model.opset_import_size() == 0)
    return error("not a valid ONNX model (no opset_import)");
  return llvm::Error::success();
}

std::string dataTypeName(int dataType) {
  if (onnx::TensorProto_DataType_IsValid(dataType))
    return onnx::TensorProto_DataType_Name(
        static_cast<onnx::TensorProto_DataType>(dataType));
  return "unknown data type " + std::to_string(dataType);
}

std::string numpyName(int t) {
  switch (t) {
  case onnx::TensorProto::FLOAT: return "float32";
  case onnx::TensorProto::UINT8: return "uint8";
  case onnx::TensorProto::INT8: return "int8";
  case onnx::TensorProto::UINT16: return "uint16";
  case onnx::TensorProto::INT16: return "int16";
  case onnx::TensorProto::INT32: return "int32";
  case onnx::TensorProto::INT64: return "int64";
  case onnx::TensorProto::BOOL: return "bool";
  case onnx::TensorProto::FLOAT16: return "float16";
  case onnx::TensorProto::DOUBLE: return "float64";
  case onnx::TensorProto::UINT32: return "uint32";
  case onnx::TensorProto::UINT64: return "uint64";
  case onnx::TensorProto::BFLOAT16: return "bfloat16";
  default: return dataTypeName(t);
  }
}

std::optional<Type> elementType(MLIRContext *ctx, int t) {
  auto sl = [&](unsigned w) -> Type { return IntegerType::get(ctx, w); };
  auto ui = [&](unsigned w) -> Type {
    return IntegerType::get(ctx, w, IntegerType::Unsigned);
  };
  switch (t) {
  case onnx::TensorProto::FLOAT: return Float32Type::get(ctx);
  case onnx::TensorProto::UINT8: return ui(8);
  case onnx::TensorProto::INT8: return sl(8);
  case onnx::TensorProto::UINT16: return ui(16);
  case onnx::TensorProto::INT16: return sl(16);
  case onnx::TensorProto::INT32: return sl(32);
  case onnx::TensorProto::INT64: return sl(64);
  case onnx::TensorProto::BOOL: return sl(1);
  case onnx::TensorProto::FLOAT16: return Float16Type::get(ctx);
  case onnx::TensorProto::DOUBLE: return Float64Type::get(ctx);
  case onnx::TensorProto::UINT32: return ui(32);
  case onnx::TensorProto::UINT64: return ui(64);
  case onnx::TensorProto::BFLOAT16: return BFloat16Type::get(ctx);
  default: return std::nullopt;
  }
}

int64_t elementSize(int t) {
  switch (t) {
  case onnx::TensorProto::UINT8: case onnx::TensorProto::INT8:
  case onnx::TensorProto::BOOL: return 1;
  case onnx::TensorProto::UINT16: case onnx::TensorProto::INT16:
  case onnx::TensorProto::FLOAT16: case onnx::TensorProto::BFLOAT16: return 2;
  case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32: return 4;
  case onnx::TensorProto::INT64: case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::UINT64: return 8;
  default: return 0;
  }
}

llvm::Expected<int64_t> tensorElementCount(const onnx::TensorProto &t) {
  constexpr int64_t kLimit = int64_t(1) << 40;
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0)
      return error("has a negative dim (" + llvm::Twine(d) + ")");
    if (d != 0 && n > kLimit / d)
      return error("declares an absurd size (more than 2^40 elements)");
    n *= d;
  }
  return n;
}

llvm::Expected<std::string> resolveExternalPath(llvm::StringRef modelDir,
                                                llvm::StringRef location) {
  if (location.empty())
    return error("has an empty external-data location");
  if (llvm::sys::path::is_absolute(location) || location.starts_with("~"))
    return error("refers to external data by the absolute path '" + location +
                 "'; only paths inside the model's folder are allowed");
  for (auto it = llvm::sys::path::begin(location), e = llvm::sys::path::end(location);
       it != e; ++it)
    if (*it == "..")
      return error("refers to external data outside the model's folder ('" +
                   location + "')");
  llvm::SmallString<256> dirReal, fileReal, joined(modelDir);
  llvm::sys::path::append(joined, location);
  if (std::error_code ec = llvm::sys::fs::real_path(modelDir, dirReal))
    return error("cannot resolve the model's folder: " + ec.message());
  if (std::error_code ec = llvm::sys::fs::real_path(joined, fileReal))
    return error("external data file '" + location + "' cannot be opened: " +
                 ec.message());
  // A symlink inside the folder must not lead out of it either.
  llvm::StringRef real = fileReal;
  if (!real.starts_with(dirReal) || real.size() <= dirReal.size() ||
      !llvm::sys::path::is_separator(real[dirReal.size()]))
    return error("external data file '" + location +
                 "' resolves outside the model's folder");
  return std::string(fileReal);
}

} // namespace mlir::nunc::onnx_io
