//===- Archive.cpp - lib<name>.a: the model, runtime and weights objects ---===//

#include "Archive.h"
#include "KernelCall.h"
#include "nunc/Codegen/CompileModel.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/ObjCopy/ConfigManager.h"
#include "llvm/ObjCopy/ObjCopy.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::nunc;

// The runtime's object file, embedded by RuntimeObject.S.
extern "C" const char nunc_runtime_object[];
extern "C" const char nunc_runtime_object_end[];

FailureOr<std::string> mlir::nunc::renamedRuntime(llvm::StringRef name, Location loc) {
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

std::string mlir::nunc::weightsObject(llvm::StringRef symbol, std::string buffer) {
  using namespace llvm::ELF;
  static_assert(llvm::sys::IsLittleEndianHost, "the ELF structs are written as the host lays "
                                               "them out");
  std::string section = (".rodata." + symbol).str();
  // Names of the sections, each offset the next one in .shstrtab.
  std::string shstrtab(1, '\0');
  std::vector<uint32_t> names;
  for (llvm::StringRef n : {llvm::StringRef(section), llvm::StringRef(".symtab"),
                            llvm::StringRef(".strtab"), llvm::StringRef(".note.GNU-stack"),
                            llvm::StringRef(".shstrtab")}) {
    names.push_back(shstrtab.size());
    shstrtab.append(n.data(), n.size());
    shstrtab.push_back('\0');
  }
  std::string strtab(1, '\0');
  strtab.append(symbol.data(), symbol.size());
  strtab.push_back('\0');
  auto align = [](uint64_t v, uint64_t a) { return (v + a - 1) / a * a; };
  static_assert(sizeof(Elf64_Ehdr) == WeightBlob::kHeaderBytes);
  uint64_t dataOffset = sizeof(Elf64_Ehdr); // 64: the section's 64-byte alignment holds
  uint64_t dataSize = buffer.size() - dataOffset;
  uint64_t symtabOffset = align(dataOffset + dataSize, 8);
  uint64_t strtabOffset = symtabOffset + 2 * sizeof(Elf64_Sym);
  uint64_t shstrtabOffset = strtabOffset + strtab.size();
  uint64_t headersOffset = align(shstrtabOffset + shstrtab.size(), 8);
  constexpr int kSections = 6; // null, data, .symtab, .strtab, .note.GNU-stack, .shstrtab

  std::string out = std::move(buffer);
  out.resize(headersOffset + kSections * sizeof(Elf64_Shdr), '\0');
  auto put = [&](uint64_t offset, const auto &value) {
    std::memcpy(out.data() + offset, &value, sizeof(value));
  };
  Elf64_Ehdr eh = {};
  std::memcpy(eh.e_ident, ElfMagic, 4);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_REL;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_shoff = headersOffset;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = kSections;
  eh.e_shstrndx = kSections - 1;
  put(0, eh);
  Elf64_Sym sym = {};
  sym.st_name = 1;
  sym.setBindingAndType(STB_GLOBAL, STT_OBJECT);
  sym.st_other = STV_HIDDEN;
  sym.st_shndx = 1;
  sym.st_size = dataSize;
  put(symtabOffset + sizeof(Elf64_Sym), sym); // entry 0 stays the null symbol
  std::memcpy(out.data() + strtabOffset, strtab.data(), strtab.size());
  std::memcpy(out.data() + shstrtabOffset, shstrtab.data(), shstrtab.size());
  auto header = [&](int index, uint32_t nameOffset, uint32_t type, uint64_t flags,
                    uint64_t offset, uint64_t size, uint64_t alignment) {
    Elf64_Shdr sh = {};
    sh.sh_name = nameOffset;
    sh.sh_type = type;
    sh.sh_flags = flags;
    sh.sh_offset = offset;
    sh.sh_size = size;
    sh.sh_addralign = alignment;
    if (type == SHT_SYMTAB) {
      sh.sh_link = 3; // .strtab
      sh.sh_info = 1; // the first global symbol
      sh.sh_entsize = sizeof(Elf64_Sym);
    }
    put(headersOffset + index * sizeof(Elf64_Shdr), sh);
  };
  header(1, names[0], SHT_PROGBITS, SHF_ALLOC, dataOffset, dataSize, 64);
  header(2, names[1], SHT_SYMTAB, 0, symtabOffset, 2 * sizeof(Elf64_Sym), 8);
  header(3, names[2], SHT_STRTAB, 0, strtabOffset, strtab.size(), 1);
  header(4, names[3], SHT_PROGBITS, 0, shstrtabOffset, 0, 1);
  header(5, names[4], SHT_STRTAB, 0, shstrtabOffset, shstrtab.size(), 1);
  return out;
}

llvm::Error mlir::nunc::writeArchive(const CompiledModel &model, llvm::raw_ostream &os) {
  std::vector<llvm::NewArchiveMember> members;
  for (const ObjectFile &object : model.objects) {
    llvm::NewArchiveMember m(llvm::MemoryBufferRef(object.bytes, object.name));
    m.MemberName = object.name;
    members.push_back(std::move(m));
  }
  return llvm::writeArchiveToStream(os, members, llvm::SymtabWritingMode::NormalSymtab,
                                    llvm::object::Archive::K_GNU, /*Deterministic=*/true,
                                    /*Thin=*/false);
}
