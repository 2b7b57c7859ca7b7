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

bool isFourBit(int t) {
  return t == onnx::TensorProto::INT4 || t == onnx::TensorProto::UINT4;
}

std::optional<Type> constantElementType(MLIRContext *ctx, int t) {
  if (t == onnx::TensorProto::INT4)
    return IntegerType::get(ctx, 8);
  if (t == onnx::TensorProto::UINT4)
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  return elementType(ctx, t);
}

int64_t storedBytes(int t, int64_t count) {
  return isFourBit(t) ? (count + 1) / 2 : count * elementSize(t);
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

namespace mlir::nunc::onnx_io {

static llvm::Error readExternal(const onnx::TensorProto &t, llvm::StringRef modelDir,
                                int64_t bytes, std::string &out) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &kv : t.external_data()) {
    llvm::StringRef value = kv.value();
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      int64_t v;
      if (value.getAsInteger(10, v) || v < 0)
        return error("has a bad external-data " + kv.key() + " '" + value + "'");
      (kv.key() == "offset" ? offset : length) = v;
    }
  }
  llvm::Expected<std::string> file = resolveExternalPath(modelDir, location);
  if (!file)
    return file.takeError();
  if (length >= 0 && length != bytes)
    return error("declares " + llvm::Twine(length) +
                 " bytes of external data, but its dims need " + llvm::Twine(bytes));
  uint64_t fileSize = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(*file, fileSize))
    return error("cannot read '" + location + "': " + ec.message());
  if (offset > (int64_t)fileSize || bytes > (int64_t)fileSize - offset)
    return error("needs bytes [" + llvm::Twine(offset) + ", " + llvm::Twine(offset + bytes) +
                 ") of '" + location + "', which has only " + llvm::Twine(fileSize));
  int fd = ::open(file->c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return error("cannot open '" + location + "'");
  out.resize(bytes);
  int64_t done = 0;
  while (done < bytes) {
    ssize_t r = ::pread(fd, out.data() + done, bytes - done, offset + done);
    if (r <= 0)
      break;
    done += r;
  }
  ::close(fd);
  if (done != bytes)
    return error("short read from '" + location + "'");
  return llvm::Error::success();
}

/// 4-bit codes, packed two a byte (low nibble first) in raw_data, external
/// data or int32_data (a byte a value), as one code a byte.
static llvm::Expected<std::unique_ptr<std::string>> readFourBitData(onnx::TensorProto &t,
                                                                    llvm::StringRef modelDir,
                                                                    int64_t count) {
  const int64_t packed = (count + 1) / 2;
  std::string bytes;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    if (llvm::Error e = readExternal(t, modelDir, packed, bytes))
      return std::move(e);
  } else if (t.has_raw_data()) {
    if ((int64_t)t.raw_data().size() != packed)
      return error("has " + llvm::Twine(t.raw_data().size()) +
                   " bytes of data, but its dims need " + llvm::Twine(packed) +
                   " (two 4-bit codes a byte)");
    bytes = t.raw_data();
  } else {
    if (t.int32_data_size() != packed)
      return error("has " + llvm::Twine(t.int32_data_size()) +
                   " values, but its dims need " + llvm::Twine(packed) +
                   " (two 4-bit codes a value)");
    bytes.resize(packed);
    for (int64_t i = 0; i < packed; ++i)
      bytes[i] = static_cast<char>(t.int32_data(i) & 0xff);
  }
  const bool isSigned = t.data_type() == onnx::TensorProto::INT4;
  auto raw = std::make_unique<std::string>(count, '\0');
  for (int64_t i = 0; i < count; ++i) {
    int code = (static_cast<unsigned char>(bytes[i / 2]) >> (4 * (i % 2))) & 0xf;
    if (isSigned && code >= 8)
      code -= 16;
    (*raw)[i] = static_cast<char>(code);
  }
  return raw;
}

llvm::Expected<std::unique_ptr<std::string>> readTensorData(onnx::TensorProto &t,
                                                            llvm::StringRef modelDir) {
  if (isFourBit(t.data_type())) {
    llvm::Expected<int64_t> count = tensorElementCount(t);
    if (!count)
      return count.takeError();
    return readFourBitData(t, modelDir, *count);
  }
  int64_t width = elementSize(t.data_type());
  if (width == 0)
    return error("has element type " + dataTypeName(t.data_type()) +
                 ", which nunc does not support");
  llvm::Expected<int64_t> countOrErr = tensorElementCount(t);
  if (!countOrErr)
    return countOrErr.takeError();
  int64_t count = *countOrErr;
  int64_t bytes = count * width;

  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    auto raw = std::make_unique<std::string>();
    if (llvm::Error e = readExternal(t, modelDir, bytes, *raw))
      return std::move(e);
    return raw;
  }
  if (t.has_raw_data()) {
    if ((int64_t)t.raw_data().size() != bytes)
      return error("has " + llvm::Twine(t.raw_data().size()) +
                   " bytes of data, but its dims need " + llvm::Twine(bytes));
    return std::unique_ptr<std::string>(t.release_raw_data());
  }
  // Typed fields: narrow or widen into the element's storage. The field's
  // length is checked before anything is allocated: dims are untrusted.
  int64_t given = 0;
  switch (t.data_type()) {
  case onnx::TensorProto::FLOAT: given = t.float_data_size(); break;
  case onnx::TensorProto::DOUBLE: given = t.double_data_size(); break;
  case onnx::TensorProto::INT64: given = t.int64_data_size(); break;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64: given = t.uint64_data_size(); break;
  default: given = t.int32_data_size(); break;
  }
  if (given != count)
    return error("has " + llvm::Twine(given) + " values, but its dims need " +
                 llvm::Twine(count));
  auto raw = std::make_unique<std::string>(bytes, '\0');
  char *dst = raw->data();
  auto fill = [&](const auto &field, auto convert) -> llvm::Error {
    for (int64_t i = 0; i < count; ++i)
      convert(dst + i * width, field.Get(i));
    return llvm::Error::success();
  };
  auto store = [](char *p, auto v, int64_t w) { std::memcpy(p, &v, w); };
  llvm::Error e = llvm::Error::success();
  switch (t.data_type()) {
  case onnx::TensorProto::FLOAT:
    e = fill(t.float_data(), [&](char *p, float v) { store(p, v, 4); });
    break;
  case onnx::TensorProto::DOUBLE:
    e = fill(t.double_data(), [&](char *p, double v) { store(p, v, 8); });
    break;
  case onnx::TensorProto::INT64:
    e = fill(t.int64_data(), [&](char *p, int64_t v) { store(p, v, 8); });
    break;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    e = fill(t.uint64_data(), [&](char *p, uint64_t v) { store(p, v, width); });
    break;
  default: // int32 and narrower, fp16/bf16 bits and bool live in int32_data
    e = fill(t.int32_data(), [&](char *p, int32_t v) {
      uint32_t u = static_cast<uint32_t>(v);
      if (t.data_type() == onnx::TensorProto::BOOL)
        u = v != 0;
      store(p, u, width);
    });
    break;
  }
  if (e)
    return std::move(e);
  return raw;
}

} // namespace mlir::nunc::onnx_io
