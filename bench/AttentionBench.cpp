//===- AttentionBench.cpp - GFLOP/s of nunc's fused attention kernel -------===//
//
//   nunc-bench-attention [avx2] [qdq [u8] | [int8] [causal]] S T H D [S T H D ...]
// prints "S T H D GFLOP/s us code-bytes" per shape: median of many runs of
// all heads of one batch item on one thread (AVX-512 kernel, or the AVX2
// one with `avx2` first), with a key-padding mask as BERT-style models
// have; `qdq` adds the five u8 grids of a quantize_static model (scores,
// scaled, masked, probabilities, output), and `qdq u8` has Q, K and V as
// the u8 codes of their grids (AVX-512 VNNI: Q K^T and P V on codes).
// FLOPs (integer operations with u8) count Q K^T and P V
// (4 S T D per head); the softmax and the grids are not counted but are
// timed. `causal` has a mask per query row instead, row i seeing keys up
// to i + T - S (a decoder's prefill after a past), which the kernel skips
// past (AttentionConfig::rowKeys); FLOPs count every key all the same.
// All heads run in one scratch slot, as on one thread of a model.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"
#include "BenchSupport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

int main(int argc, char **argv) {
  Isa isa;
  if (!nunc_bench::takeIsa(argc, argv, isa))
    return 1;
  bool qdq = argc > 1 && std::string(argv[1]) == "qdq";
  if (qdq) {
    --argc;
    ++argv;
  }
  bool u8 = qdq && argc > 1 && std::string(argv[1]) == "u8";
  if (u8) {
    --argc;
    ++argv;
  }
  bool int8 = !qdq && argc > 1 && std::string(argv[1]) == "int8";
  if (int8) {
    --argc;
    ++argv;
  }
  bool causal = !qdq && argc > 1 && std::string(argv[1]) == "causal";
  if (causal) {
    --argc;
    ++argv;
  }
  if (argc < 5 || (argc - 1) % 4 != 0) {
    std::fprintf(stderr, "usage: %s [avx2] [qdq [u8] | [int8] [causal]] S T H D [S T H D ...]\n",
                 argv[0]);
    return 2;
  }
  for (int a = 1; a + 4 <= argc; a += 4) {
    AttentionConfig c;
    c.seq = std::atoll(argv[a]);
    c.keys = std::atoll(argv[a + 1]);
    c.heads = std::atoll(argv[a + 2]);
    c.headDim = std::atoll(argv[a + 3]);
    c.scale = 1.f / 8;
    c.mask = true;
    c.maskStrides[3] = 1; // one row of T, broadcast over heads and queries
    if (causal) {
      c.maskStrides[2] = c.keys; // a row of T per query row
      for (int64_t i = 0; i < c.seq; ++i)
        c.rowKeys.push_back(std::min(c.keys, i + 1 + std::max<int64_t>(c.keys - c.seq, 0)));
    }
    c.int8Products = int8;
    // AVX2 on a host with AVX-512 VNNI but no AVX-VNNI: the same kernel
    // with EVEX-encoded vpdpbusd.
    c.evexVnni = isa == Isa::Avx2 && !__builtin_cpu_supports("avxvnni");
    if (qdq) {
      // As quantize_static calibrates MiniLM: the scaled (and masked)
      // scores' grid is the scores' grid times the scale.
      c.scores = Activation::fakeQuant(0.25f, -128, 127);
      c.scaled = c.logits = Activation::fakeQuant(0.25f * c.scale, -128, 127);
      c.probs = Activation::fakeQuant(1.f / 255, 0, 255);
      c.output = Activation::fakeQuant(0.015f, -114, 141);
      c.u8Inputs = u8;
      for (Activation &g : c.inputGrids)
        g = Activation::fakeQuant(1.f / 128, -128, 127);
    }
    if ((u8 || int8) && !__builtin_cpu_supports("avx512vnni") &&
        !__builtin_cpu_supports("avxvnni")) {
      std::fprintf(stderr, "u8 inputs need a host with VNNI\n");
      return 1;
    }
    if (!AttentionKernel::supports(c, isa)) {
      std::fprintf(stderr, "shape not supported\n");
      return 1;
    }
    auto kernel = AttentionKernel::generate(c, isa);
    if (!kernel) {
      std::fprintf(stderr, "xbyak could not generate the kernel\n");
      return 1;
    }
    const int64_t e = c.heads * c.headDim;
    std::vector<float> q(c.seq * e), k(c.keys * e), v(c.keys * e), out(c.seq * e),
        mask(causal ? c.seq * c.keys : c.keys);
    for (int64_t i = 0; causal && i < c.seq; ++i)
      for (int64_t j = c.rowKeys[i]; j < c.keys; ++j)
        mask[i * c.keys + j] = -INFINITY;
    for (size_t i = 0; i < q.size(); ++i)
      q[i] = static_cast<float>((i * 7919) % 97) / 97.f - 0.5f;
    for (size_t i = 0; i < k.size(); ++i) {
      k[i] = static_cast<float>((i * 31) % 13) / 13.f - 0.5f;
      v[i] = static_cast<float>((i * 17) % 11) / 11.f - 0.5f;
    }
    if (u8) // the codes of those values (the vectors are large enough)
      for (std::vector<float> *x : {&q, &k, &v}) {
        auto *codes = reinterpret_cast<uint8_t *>(x->data());
        for (size_t i = 0; i < x->size(); ++i)
          codes[i] = static_cast<uint8_t>(std::lround((*x)[i] * 128) + 128);
      }
    std::vector<char> scratch(AttentionKernel::scratchBytes(c, isa) + 64);
    void *aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64);
    const void *args[] = {q.data(), k.data(), v.data(), mask.data(), out.data(), aligned};
    double flops = 4.0 * c.seq * c.keys * c.headDim * c.heads;
    double s = nunc_bench::medianSeconds(
        [&](int64_t) {
          for (int64_t t = 0; t < AttentionKernel::numTasks(c); ++t)
            kernel->function()(args, t, 0);
        },
        flops, 50);
    std::printf("%lld %lld %lld %lld %.1f %.1f %zu\n", (long long)c.seq, (long long)c.keys,
                (long long)c.heads, (long long)c.headDim, flops / s / 1e9, s * 1e6,
                kernel->bytes().size());
  }
  return 0;
}
