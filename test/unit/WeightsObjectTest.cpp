//===- WeightsObjectTest.cpp - the weights' ELF object, written in place --===//

#include "Archive.h"
#include "KernelCall.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"

#include "gtest/gtest.h"

using namespace mlir::nunc;

namespace {

/// The object that a blob of `dataBytes` bytes (a pattern) becomes, read
/// back with LLVM's ELF reader.
void checkWeightsObject(int64_t dataBytes) {
  WeightBlob blob;
  std::string data;
  for (int64_t i = 0; i < dataBytes; ++i)
    data.push_back(static_cast<char>(i * 7 + 3));
  if (dataBytes)
    blob.add(data.data(), dataBytes);
  blob.padTo(64);
  std::string object = weightsObject("m_weights", blob.take());

  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(object, "w.o"));
  ASSERT_TRUE(static_cast<bool>(file)) << llvm::toString(file.takeError());
  auto *elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(file->get());
  ASSERT_NE(elf, nullptr);
  EXPECT_EQ(elf->getELFFile().getHeader().e_machine, llvm::ELF::EM_X86_64);
  EXPECT_EQ(elf->getELFFile().getHeader().e_type, llvm::ELF::ET_REL);

  int64_t padded = (dataBytes + 63) / 64 * 64;
  bool sawData = false, sawNote = false;
  for (const llvm::object::SectionRef &section : elf->sections()) {
    llvm::Expected<llvm::StringRef> name = section.getName();
    ASSERT_TRUE(static_cast<bool>(name)) << llvm::toString(name.takeError());
    if (*name == ".note.GNU-stack") // no executable stack for the linker to assume
      sawNote = true;
    if (*name != ".rodata.m_weights")
      continue;
    sawData = true;
    EXPECT_EQ(section.getAlignment().value(), 64u);
    EXPECT_EQ(static_cast<int64_t>(section.getSize()), padded);
    EXPECT_EQ(llvm::object::ELFSectionRef(section).getFlags(), uint64_t(llvm::ELF::SHF_ALLOC));
    llvm::Expected<llvm::StringRef> contents = section.getContents();
    ASSERT_TRUE(static_cast<bool>(contents)) << llvm::toString(contents.takeError());
    EXPECT_EQ(contents->take_front(dataBytes), data);
    EXPECT_EQ(contents->drop_front(dataBytes), std::string(padded - dataBytes, '\0'));
  }
  EXPECT_TRUE(sawData);
  EXPECT_TRUE(sawNote);

  int symbols = 0;
  for (const llvm::object::ELFSymbolRef &symbol : elf->symbols()) {
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    ASSERT_TRUE(static_cast<bool>(name)) << llvm::toString(name.takeError());
    ++symbols;
    EXPECT_EQ(*name, "m_weights");
    EXPECT_EQ(symbol.getBinding(), llvm::ELF::STB_GLOBAL);
    EXPECT_EQ(symbol.getELFType(), llvm::ELF::STT_OBJECT);
    EXPECT_EQ(symbol.getOther(), llvm::ELF::STV_HIDDEN);
    EXPECT_EQ(static_cast<int64_t>(symbol.getSize()), padded);
    llvm::Expected<uint64_t> value = symbol.getValue();
    ASSERT_TRUE(static_cast<bool>(value));
    EXPECT_EQ(*value, 0u);
    llvm::Expected<llvm::object::section_iterator> in = symbol.getSection();
    ASSERT_TRUE(static_cast<bool>(in));
    llvm::Expected<llvm::StringRef> sectionName = (*in)->getName();
    ASSERT_TRUE(static_cast<bool>(sectionName));
    EXPECT_EQ(*sectionName, ".rodata.m_weights");
  }
  EXPECT_EQ(symbols, 1);
}

TEST(WeightsObject, HoldsTheBlobAsOneHiddenSymbol) {
  for (int64_t bytes : {64, 1, 7, 129, 4096 + 17})
    checkWeightsObject(bytes);
}

TEST(WeightsObject, BlobOffsetsStartAtTheData) {
  // The header room is not part of the blob: the first constant is at 0.
  WeightBlob blob;
  EXPECT_EQ(blob.size(), 0);
  EXPECT_EQ(blob.add("abc", 3), 0);
  EXPECT_EQ(blob.add("d", 1), 64);
  EXPECT_EQ(blob.data().substr(0, 3), "abc");
  EXPECT_EQ(blob.data()[64], 'd');
}

} // namespace
