//===- Npy.cpp - NumPy .npy and .npz files --------------------------------===//

#include "nunc/Interpreter/Npy.h"

#include "Kernels.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#define ZLIB_CONST // next_in is a pointer to const
#include <zlib.h>

#include <numeric>

namespace mlir::nunc {

static llvm::Error npyError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

static std::optional<DType> dtypeFromDescr(llvm::StringRef d) {
  if (d.size() < 3 || (d[0] != '<' && d[0] != '|' && d[0] != '='))
    return std::nullopt;
  return llvm::StringSwitch<std::optional<DType>>(d.drop_front())
      .Case("b1", DType::Bool).Case("i1", DType::I8).Case("u1", DType::U8)
      .Case("i2", DType::I16).Case("u2", DType::U16).Case("i4", DType::I32)
      .Case("u4", DType::U32).Case("i8", DType::I64).Case("u8", DType::U64)
      .Case("f2", DType::F16).Case("f4", DType::F32).Case("f8", DType::F64)
      .Default(std::nullopt);
}

static const char *descrOf(DType t) {
  switch (t) {
  case DType::Bool: return "|b1";
  case DType::I8: return "|i1";
  case DType::U8: return "|u1";
  case DType::I16: return "<i2";
  case DType::U16: return "<u2";
  case DType::I32: return "<i4";
  case DType::U32: return "<u4";
  case DType::I64: return "<i8";
  case DType::U64: return "<u8";
  case DType::F16: return "<f2";
  case DType::F32: return "<f4";
  case DType::F64: return "<f8";
  case DType::BF16: return nullptr;
  }
  return nullptr;
}

/// Value of `key` in the header dict: the text up to the next top-level ','.
static std::optional<llvm::StringRef> headerField(llvm::StringRef header,
                                                  llvm::StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    if (close == llvm::StringRef::npos)
      return std::nullopt;
    return rest.take_front(close + 1);
  }
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).trim();
}

llvm::Expected<Tensor> parseNpy(llvm::ArrayRef<char> bytes) {
  llvm::StringRef data(bytes.data(), bytes.size());
  if (!data.starts_with("\x93NUMPY") || data.size() < 10)
    return npyError("not a .npy file (bad magic)");
  unsigned major = (unsigned char)data[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = (unsigned char)data[8] | ((unsigned char)data[9] << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12)
      return npyError("truncated .npy header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= (size_t)(unsigned char)data[8 + i] << (8 * i);
    headerStart = 12;
  } else {
    return npyError("unsupported .npy version " + llvm::Twine(major));
  }
  if (headerStart + headerLen > data.size())
    return npyError("truncated .npy header");
  llvm::StringRef header = data.substr(headerStart, headerLen);
  auto descr = headerField(header, "descr");
  auto fortran = headerField(header, "fortran_order");
  auto shapeText = headerField(header, "shape");
  if (!descr || !fortran || !shapeText)
    return npyError("malformed .npy header: " + header);
  llvm::StringRef d = descr->trim("'\"");
  std::optional<DType> dtype = dtypeFromDescr(d);
  if (!dtype)
    return npyError("unsupported .npy dtype '" + d +
                    "' (little-endian bool, int, uint and float arrays are supported)");
  llvm::SmallVector<int64_t, 6> shape;
  llvm::StringRef dims = shapeText->trim("()");
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef p : parts) {
    int64_t v;
    if (p.trim().getAsInteger(10, v) || v < 0)
      return npyError("malformed .npy shape " + *shapeText);
    shape.push_back(v);
  }
  bool isFortran = fortran->trim() == "True";
  if (isFortran)
    std::reverse(shape.begin(), shape.end());
  llvm::Expected<Tensor> t = Tensor::create(*dtype, shape);
  if (!t)
    return t.takeError();
  size_t payload = data.size() - headerStart - headerLen;
  if (payload < t->byteSize())
    return npyError(".npy data is truncated: " + llvm::Twine(payload) + " bytes for " +
                    t->describe());
  std::memcpy(t->mutableRaw(), data.data() + headerStart + headerLen, t->byteSize());
  if (!isFortran)
    return t;
  // Column-major data read with reversed dims is the transpose.
  llvm::SmallVector<int64_t, 6> perm(shape.size());
  std::iota(perm.rbegin(), perm.rend(), 0);
  return kernels::transpose(*t, perm);
}

std::string serializeNpy(const Tensor &t) {
  std::string header;
  llvm::raw_string_ostream os(header);
  os << "{'descr': '" << descrOf(t.dtype()) << "', 'fortran_order': False, 'shape': (";
  for (int64_t d : t.shape())
    os << d << (t.rank() == 1 ? "," : ", ");
  if (t.rank() > 1)
    header.resize(header.size() - 2);
  os << "), }";
  // Pad so that the data starts on a 64-byte boundary, newline-terminated.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY\x01";
  out.push_back('\0');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(t.raw(), t.byteSize());
  return out;
}

llvm::Expected<Tensor> readNpy(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return npyError("cannot read '" + path + "': " + buffer.getError().message());
  llvm::Expected<Tensor> t = parseNpy(
      llvm::ArrayRef<char>((*buffer)->getBufferStart(), (*buffer)->getBufferSize()));
  if (!t)
    return npyError(path + ": " + llvm::toString(t.takeError()));
  return t;
}

static llvm::Error writeFile(llvm::StringRef path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return npyError("cannot write '" + path + "': " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return npyError("cannot write '" + path + "': " + os.error().message());
  return llvm::Error::success();
}

llvm::Error writeNpy(llvm::StringRef path, const Tensor &t) {
  if (!descrOf(t.dtype()))
    return npyError(dtypeName(t.dtype()) + " arrays cannot be stored in .npy");
  return writeFile(path, serializeNpy(t));
}

//===----------------------------------------------------------------------===//
// .npz (zip)
//===----------------------------------------------------------------------===//

namespace {
uint64_t readLE(const char *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i)
    v |= (uint64_t)(unsigned char)p[i] << (8 * i);
  return v;
}
void writeLE(std::string &out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
} // namespace

llvm::Expected<NamedTensors> readNpz(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return npyError("cannot read '" + path + "': " + buffer.getError().message());
  llvm::StringRef z = (*buffer)->getBuffer();
  auto fail = [&](const llvm::Twine &msg) { return npyError(path + ": " + msg); };
  // End of central directory: last 22+ bytes.
  size_t eocd = llvm::StringRef::npos;
  for (size_t i = z.size() >= 22 ? z.size() - 22 : 0;; --i) {
    if (z.substr(i, 4) == llvm::StringRef("PK\x05\x06", 4)) {
      eocd = i;
      break;
    }
    if (i == 0 || z.size() - i > 22 + 65535)
      break;
  }
  if (eocd == llvm::StringRef::npos)
    return fail("not a .npz (zip) file");
  uint64_t entries = readLE(z.data() + eocd + 10, 2);
  uint64_t cdOffset = readLE(z.data() + eocd + 16, 4);
  // ZIP64 end of central directory, when the classic fields overflow.
  if (cdOffset == 0xffffffff && eocd >= 20 &&
      z.substr(eocd - 20, 4) == llvm::StringRef("PK\x06\x07", 4)) {
    uint64_t z64 = readLE(z.data() + eocd - 20 + 8, 8);
    if (z64 + 56 > z.size())
      return fail("corrupt zip64 directory");
    entries = readLE(z.data() + z64 + 32, 8);
    cdOffset = readLE(z.data() + z64 + 48, 8);
  }
  NamedTensors out;
  uint64_t p = cdOffset;
  for (uint64_t e = 0; e < entries; ++e) {
    if (p + 46 > z.size() || z.substr(p, 4) != llvm::StringRef("PK\x01\x02", 4))
      return fail("corrupt zip central directory");
    const char *c = z.data() + p;
    unsigned method = readLE(c + 10, 2);
    uint64_t compSize = readLE(c + 20, 4), size = readLE(c + 24, 4);
    unsigned nameLen = readLE(c + 28, 2), extraLen = readLE(c + 30, 2),
             commentLen = readLE(c + 32, 2);
    uint64_t localOffset = readLE(c + 42, 4);
    if (p + 46 + nameLen + extraLen > z.size())
      return fail("corrupt zip central directory");
    std::string name(c + 46, nameLen);
    // ZIP64 extra field: sizes and offset that did not fit 32 bits, in order.
    const char *x = c + 46 + nameLen, *xEnd = x + extraLen;
    while (x + 4 <= xEnd) {
      unsigned id = readLE(x, 2), len = readLE(x + 2, 2);
      if (id == 1) {
        const char *f = x + 4;
        if (size == 0xffffffff) { size = readLE(f, 8); f += 8; }
        if (compSize == 0xffffffff) { compSize = readLE(f, 8); f += 8; }
        if (localOffset == 0xffffffff) { localOffset = readLE(f, 8); }
      }
      x += 4 + len;
    }
    p += 46 + nameLen + extraLen + commentLen;
    if (localOffset + 30 > z.size())
      return fail("corrupt zip entry '" + name + "'");
    const char *l = z.data() + localOffset;
    uint64_t dataStart = localOffset + 30 + readLE(l + 26, 2) + readLE(l + 28, 2);
    if (dataStart + compSize > z.size())
      return fail("zip entry '" + name + "' is truncated");
    llvm::StringRef member = z.substr(dataStart, compSize);
    std::string inflated;
    if (method == 8) {
      inflated.resize(size);
      z_stream s{};
      if (inflateInit2(&s, -MAX_WBITS) != Z_OK)
        return fail("zlib init failed");
      s.next_in = reinterpret_cast<const Bytef *>(member.data());
      s.avail_in = member.size();
      s.next_out = (Bytef *)inflated.data();
      s.avail_out = inflated.size();
      int rc = inflate(&s, Z_FINISH);
      inflateEnd(&s);
      if (rc != Z_STREAM_END || s.total_out != size)
        return fail("cannot decompress '" + name + "'");
      member = inflated;
    } else if (method != 0) {
      return fail("zip entry '" + name + "' uses unsupported compression " +
                  llvm::Twine(method));
    }
    llvm::Expected<Tensor> t = parseNpy(llvm::ArrayRef<char>(member.data(), member.size()));
    if (!t)
      return fail(name + ": " + llvm::toString(t.takeError()));
    llvm::StringRef key(name);
    key.consume_back(".npy");
    out.emplace_back(key.str(), std::move(*t));
  }
  return out;
}

llvm::Error writeNpz(llvm::StringRef path, const NamedTensors &tensors) {
  std::string zip, central;
  for (const auto &[name, t] : tensors) {
    if (!descrOf(t.dtype()))
      return npyError(dtypeName(t.dtype()) + " arrays cannot be stored in .npz");
    std::string member = serializeNpy(t);
    std::string file = name + ".npy";
    if (member.size() >= 0xffffffffu || zip.size() >= 0xffffffffu)
      return npyError("arrays over 4 GiB are not supported in .npz output");
    uint32_t crc = crc32(0, (const Bytef *)member.data(), member.size());
    uint64_t offset = zip.size();
    // Local header: version 20, no flags, stored, fixed DOS time (1980-01-01)
    // so the output is deterministic.
    zip += llvm::StringRef("PK\x03\x04", 4);
    writeLE(zip, 20, 2); writeLE(zip, 0, 2); writeLE(zip, 0, 2);
    writeLE(zip, 0, 2); writeLE(zip, 0x21, 2);
    writeLE(zip, crc, 4); writeLE(zip, member.size(), 4); writeLE(zip, member.size(), 4);
    writeLE(zip, file.size(), 2); writeLE(zip, 0, 2);
    zip += file;
    zip += member;
    central += llvm::StringRef("PK\x01\x02", 4);
    writeLE(central, 20, 2); writeLE(central, 20, 2); writeLE(central, 0, 2);
    writeLE(central, 0, 2); writeLE(central, 0, 2); writeLE(central, 0x21, 2);
    writeLE(central, crc, 4); writeLE(central, member.size(), 4);
    writeLE(central, member.size(), 4); writeLE(central, file.size(), 2);
    writeLE(central, 0, 2); writeLE(central, 0, 2); writeLE(central, 0, 2);
    writeLE(central, 0, 2); writeLE(central, 0, 4); writeLE(central, offset, 4);
    central += file;
  }
  uint64_t cdOffset = zip.size();
  zip += central;
  zip += llvm::StringRef("PK\x05\x06", 4);
  writeLE(zip, 0, 2); writeLE(zip, 0, 2);
  writeLE(zip, tensors.size(), 2); writeLE(zip, tensors.size(), 2);
  writeLE(zip, central.size(), 4); writeLE(zip, cdOffset, 4); writeLE(zip, 0, 2);
  return writeFile(path, zip);
}

} // namespace mlir::nunc
