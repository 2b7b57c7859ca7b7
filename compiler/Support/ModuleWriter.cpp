//===- ModuleWriter.cpp - writing modules that hold large weights ---------===//

#include "nunc/Support/ModuleWriter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Endian.h"

using namespace mlir;

static bool isBareKey(llvm::StringRef key) {
  if (key.empty() || !(llvm::isAlpha(key[0]) || key[0] == '_'))
    return false;
  return llvm::all_of(key, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  });
}

static void writeHex(llvm::raw_ostream &os, llvm::ArrayRef<char> data) {
  static const char digits[] = "0123456789ABCDEF";
  constexpr size_t kChunk = 1 << 20;
  std::string buffer(2 * kChunk, '\0');
  for (size_t start = 0; start < data.size(); start += kChunk) {
    size_t n = std::min(kChunk, data.size() - start);
    for (size_t i = 0; i < n; ++i) {
      unsigned char b = data[start + i];
      buffer[2 * i] = digits[b >> 4];
      buffer[2 * i + 1] = digits[b & 15];
    }
    os.write(buffer.data(), 2 * n);
  }
}

void mlir::nunc::printModuleStreamingResources(ModuleOp module, llvm::raw_ostream &os,
                                               OpPrintingFlags flags) {
  // Collect the blobs in first-use order (deterministic output).
  std::vector<DenseResourceElementsHandle> handles;
  llvm::StringMap<bool> seen;
  auto add = [&](Attribute a) {
    if (auto r = dyn_cast<DenseResourceElementsAttr>(a))
      if (seen.try_emplace(r.getRawHandle().getKey(), true).second)
        handles.push_back(r.getRawHandle());
  };
  module->walk([&](Operation *op) {
    for (NamedAttribute a : op->getAttrs())
      add(a.getValue());
    if (op->getPropertiesStorageSize())
      if (auto dict = dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute()))
        for (NamedAttribute a : dict)
          add(a.getValue());
  });
  if (handles.empty()) {
    module->print(os, flags);
    return;
  }
  // The body without resource values (the printer leaves an empty metadata
  // block, which is dropped), then the resources.
  std::string body;
  {
    llvm::raw_string_ostream bs(body);
    module->print(bs, flags.elideLargeResourceString(0));
  }
  llvm::StringRef text(body);
  size_t meta = text.rfind("{-#");
  if (meta != llvm::StringRef::npos && text.drop_front(meta + 3).trim() == "#-}")
    text = text.take_front(meta);
  os << text.rtrim() << "\n\n{-#\n  dialect_resources: {\n    builtin: {\n";
  for (auto [i, handle] : llvm::enumerate(handles)) {
    const AsmResourceBlob *blob = handle.getBlob();
    os << "      ";
    if (isBareKey(handle.getKey()))
      os << handle.getKey();
    else {
      os << '"';
      llvm::printEscapedString(handle.getKey(), os);
      os << '"';
    }
    os << ": \"0x";
    uint32_t align = blob ? blob->getDataAlignment() : 1;
    char alignLE[4];
    llvm::support::endian::write32le(alignLE, align);
    writeHex(os, alignLE);
    if (blob)
      writeHex(os, blob->getData());
    os << '"' << (i + 1 < handles.size() ? "," : "") << "\n";
  }
  os << "    }\n  }\n#-}\n";
}
