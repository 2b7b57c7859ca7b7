//===- NpyTest.cpp - .npy / .npz reading and writing ----------------------===//

#include "nunc/Interpreter/Npy.h"

#include "TestSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <zlib.h>

#include <fstream>

using namespace mlir::nunc;
using namespace nunc_test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

std::string tempPath(const std::string &name) {
  llvm::SmallString<128> dir;
  llvm::sys::fs::createUniqueDirectory("nunc-npy", dir);
  llvm::sys::path::append(dir, name);
  return std::string(dir);
}

std::string npyHeader(const std::string &dict) {
  std::string header = dict;
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header;
}

} // namespace

TEST(Npy, ParsesWhatNumpyWrites) {
  // np.save of np.arange(6, dtype=np.int32).reshape(2, 3)
  std::string bytes =
      npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }");
  for (int32_t v = 0; v < 6; ++v)
    bytes.append(reinterpret_cast<const char *>(&v), 4);
  llvm::Expected<Tensor> t = parseNpy({bytes.data(), bytes.size()});
  ASSERT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
  EXPECT_EQ(t->dtype(), DType::I32);
  EXPECT_THAT(t->shape(), ElementsAre(2, 3));
  EXPECT_THAT(values(*t), ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST(Npy, FortranOrderIsTransposedBack) {
  // Column-major [[0, 1, 2], [3, 4, 5]] is stored 0 3 1 4 2 5.
  std::string bytes = npyHeader("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }");
  for (double v : {0., 3., 1., 4., 2., 5.})
    bytes.append(reinterpret_cast<const char *>(&v), 8);
  llvm::Expected<Tensor> t = parseNpy({bytes.data(), bytes.size()});
  ASSERT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
  EXPECT_THAT(t->shape(), ElementsAre(2, 3));
  EXPECT_THAT(values(*t), ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST(Npy, RejectsBadFiles) {
  std::string bad = "not a numpy file";
  EXPECT_THAT(llvm::toString(parseNpy({bad.data(), bad.size()}).takeError()),
              HasSubstr("bad magic"));
  std::string big = npyHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }");
  EXPECT_THAT(llvm::toString(parseNpy({big.data(), big.size()}).takeError()),
              HasSubstr("unsupported .npy dtype '>f4'"));
  std::string truncated =
      npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }") + "abc";
  EXPECT_THAT(llvm::toString(parseNpy({truncated.data(), truncated.size()}).takeError()),
              HasSubstr("truncated"));
}

TEST(Npy, RoundTripsEveryDtypeAndScalars) {
  for (DType d : {DType::Bool, DType::I8, DType::U8, DType::I16, DType::U16, DType::I32,
                  DType::U32, DType::I64, DType::U64, DType::F16, DType::F32, DType::F64}) {
    Tensor t = makeTensor(d, {3, 1}, {1, 0, 1});
    std::string bytes = serializeNpy(t);
    EXPECT_EQ((bytes.size() - t.byteSize()) % 64, 0u) << "data must start 64-byte aligned";
    llvm::Expected<Tensor> back = parseNpy({bytes.data(), bytes.size()});
    ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(back->dtype(), d);
    EXPECT_THAT(back->shape(), ElementsAre(3, 1));
    EXPECT_THAT(values(*back), ElementsAre(1, 0, 1));
  }
  Tensor scalar = makeTensor(DType::F32, {}, {2.5});
  std::string bytes = serializeNpy(scalar);
  EXPECT_NE(bytes.find("'shape': ()"), std::string::npos);
  llvm::Expected<Tensor> back = parseNpy({bytes.data(), bytes.size()});
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->rank(), 0);
  EXPECT_THAT(values(*back), ElementsAre(2.5));
}

TEST(Npz, WritesAndReadsNamedArraysInOrder) {
  std::string path = tempPath("arrays.npz");
  NamedTensors in = {{"input_ids", makeTensor(DType::I64, {1, 3}, {101, 7, 102})},
                     {"mask", makeTensor(DType::Bool, {3}, {1, 1, 0})}};
  ASSERT_FALSE(static_cast<bool>(writeNpz(path, in)));
  llvm::Expected<NamedTensors> out = readNpz(path);
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].first, "input_ids");
  EXPECT_THAT(values((*out)[0].second), ElementsAre(101, 7, 102));
  EXPECT_EQ((*out)[1].first, "mask");
  EXPECT_EQ((*out)[1].second.dtype(), DType::Bool);
}

TEST(Npz, ReadsDeflatedMembers) {
  // A zip with one deflated member "x.npy" (what numpy.savez_compressed writes).
  std::string member =
      npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }");
  for (float v : {1.5f, -2.f})
    member.append(reinterpret_cast<const char *>(&v), 4);
  std::string deflated(compressBound(member.size()) + 64, '\0');
  z_stream s{};
  deflateInit2(&s, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  s.next_in = (Bytef *)member.data();
  s.avail_in = member.size();
  s.next_out = (Bytef *)deflated.data();
  s.avail_out = deflated.size();
  ASSERT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
  deflated.resize(s.total_out);
  deflateEnd(&s);
  uint32_t crc = crc32(0, (const Bytef *)member.data(), member.size());
  auto le = [](std::string &o, uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      o += static_cast<char>((v >> (8 * i)) & 0xff);
  };
  std::string name = "x.npy", zip, cd;
  zip += "PK\x03\x04";
  le(zip, 20, 2); le(zip, 0, 2); le(zip, 8, 2); le(zip, 0, 4);
  le(zip, crc, 4); le(zip, deflated.size(), 4); le(zip, member.size(), 4);
  le(zip, name.size(), 2); le(zip, 0, 2);
  zip += name + deflated;
  cd += "PK\x01\x02";
  le(cd, 20, 2); le(cd, 20, 2); le(cd, 0, 2); le(cd, 8, 2); le(cd, 0, 4);
  le(cd, crc, 4); le(cd, deflated.size(), 4); le(cd, member.size(), 4);
  le(cd, name.size(), 2); le(cd, 0, 2); le(cd, 0, 2); le(cd, 0, 2); le(cd, 0, 2);
  le(cd, 0, 4); le(cd, 0, 4);
  cd += name;
  uint64_t cdOffset = zip.size();
  zip += cd;
  zip += "PK\x05\x06";
  le(zip, 0, 4); le(zip, 1, 2); le(zip, 1, 2); le(zip, cd.size(), 4); le(zip, cdOffset, 4);
  le(zip, 0, 2);
  std::string path = tempPath("deflated.npz");
  std::ofstream(path, std::ios::binary) << zip;
  llvm::Expected<NamedTensors> out = readNpz(path);
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].first, "x");
  EXPECT_THAT(values((*out)[0].second), ElementsAre(1.5, -2));
}

TEST(Npz, RejectsFilesThatAreNotZips) {
  std::string path = tempPath("bad.npz");
  std::ofstream(path) << "hello";
  EXPECT_THAT(llvm::toString(readNpz(path).takeError()), HasSubstr("not a .npz"));
  EXPECT_THAT(llvm::toString(readNpz(path + ".missing").takeError()),
              HasSubstr("cannot read"));
}
