//===- Archive.cpp - lib<name>.a: the model object and the runtime --------===//

#include "Archive.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/ObjCopy/ConfigManager.h"
#include "llvm/ObjCopy/ObjCopy.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

// The runtime's object file, embedded by RuntimeObject.S.
extern "C" const char nunc_runtime_object[];
extern "C" const char nunc_runtime_object_end[];

static FailureOr<std::string> renamedRuntime(llvm::StringRef name, Location loc) {
  llvm::StringRef bytes(nunc_runtime_object, nunc_runtime_object_end - nunc_runtime_object);
  llvm::MemoryBufferRef ref(bytes, "runtime.o");
  auto obj = llvm::object::ObjectFile::createObjectFile(ref);
  if (!obj)
    return emitError(loc) << "the embedded runtime is not an object file: "
                          << llvm::toString(obj.takeError());
  llvm::objcopy::ConfigManager config;
  std::vector<std::string> renamed; // keeps the new names alive
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const llvm::object::SymbolRef &sym : (*obj)->symbols()) {
    llvm::Expected<llvm::StringRef> symName = sym.getName();
    if (!symName) {
      llvm::consumeError(symName.takeError());
      continue;
    }
    if (symName->starts_with("nunc_rt_"))
      pairs.push_back({symName->str(), name.str() + "_rt_" + symName->drop_front(8).str()});
  }
  for (auto &[from, to] : pairs)
    config.Common.SymbolsToRename.insert({from, to});
  config.Common.InputFormat = llvm::objcopy::FileFormat::ELF;
  config.Common.OutputFormat = llvm::objcopy::FileFormat::ELF;
  std::string out;
  llvm::raw_string_ostream os(out);
  if (llvm::Error e = llvm::objcopy::executeObjcopyOnBinary(config, **obj, os))
    return emitError(loc) << "renaming the runtime's symbols failed: "
                          << llvm::toString(std::move(e));
  return out;
}

FailureOr<std::string> mlir::nunc::writeModelArchive(llvm::StringRef name,
                                                     llvm::StringRef modelObject,
                                                     Location loc) {
  FailureOr<std::string> runtime = renamedRuntime(name, loc);
  if (failed(runtime))
    return failure();
  std::string modelName = name.str() + ".o", runtimeName = name.str() + "_runtime.o";
  std::vector<llvm::NewArchiveMember> members;
  for (auto [bytes, member] : {std::pair<llvm::StringRef, llvm::StringRef>(modelObject, modelName),
                               std::pair<llvm::StringRef, llvm::StringRef>(*runtime, runtimeName)}) {
    llvm::NewArchiveMember m(llvm::MemoryBufferRef(bytes, member));
    m.MemberName = member;
    members.push_back(std::move(m));
  }
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> archive = llvm::writeArchiveToBuffer(
      members, llvm::SymtabWritingMode::NormalSymtab, llvm::object::Archive::K_GNU,
      /*Deterministic=*/true, /*Thin=*/false);
  if (!archive)
    return emitError(loc) << "writing the archive failed: " << llvm::toString(archive.takeError());
  return std::string((*archive)->getBuffer());
}
