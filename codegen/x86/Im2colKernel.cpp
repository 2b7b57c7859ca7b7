//===- Im2colKernel.cpp - im2col into GEMM panels (xbyak) -----------------===//

#include "Im2colKernel.h"
#include "PaddedPlane.h"

#include <algorithm>
#include <map>
#include <type_traits>

namespace mlir::nunc::x86 {

namespace {
int64_t lanesOf(Isa isa) { return isa == Isa::Avx512 ? 16 : 8; }
PaddedPlane paddedPlane(const Im2colConfig &c, Isa isa) {
  return PaddedPlane::forWindow(c.height, c.width, c.kernelH, c.kernelW, c.strideH, c.strideW,
                                c.dilationH, c.dilationW, c.padTop, c.padLeft, c.outH, c.outW,
                                lanesOf(isa));
}
int64_t ckOf(const Im2colConfig &c) { return c.channels * c.kernelH * c.kernelW; }
int64_t panelsOf(const Im2colConfig &c) {
  return (c.outH * c.outW + c.panelWidth - 1) / c.panelWidth;
}
} // namespace

bool Im2colKernel::supports(const Im2colConfig &c, Isa isa) {
  int64_t lanes = lanesOf(isa);
  int64_t segments = c.outH * ((c.outW + lanes - 1) / lanes);
  int64_t imageBytes = panelsOf(c) * ckOf(c) * c.panelWidth * 4;
  return (c.strideW == 1 || c.strideW == 2) && c.panelWidth % lanes == 0 && segments <= 4096 &&
         imageBytes < (int64_t(1) << 30) && c.padTop >= 0 && c.padLeft >= 0 && c.outH > 0 &&
         c.outW > 0;
}

int64_t Im2colKernel::planesPerTask(const Im2colConfig &c) {
  int64_t planes = c.batch * c.channels;
  // Tasks of at least ~16K output floats, at most 32 of them.
  int64_t perPlane = std::max<int64_t>(1, c.kernelH * c.kernelW * c.outH * c.outW);
  int64_t byWork = std::max<int64_t>(1, 16384 / perPlane);
  return std::max<int64_t>(byWork, (planes + 31) / 32);
}

int64_t Im2colKernel::numTasks(const Im2colConfig &c) {
  int64_t planes = c.batch * c.channels;
  return (planes + planesPerTask(c) - 1) / planesPerTask(c);
}

int64_t Im2colKernel::scratchBytes(const Im2colConfig &c, Isa isa) {
  return numTasks(c) * paddedPlane(c, isa).floats * 4;
}

namespace {

using namespace Xbyak;

template <typename Vmm> class Im2colGenerator : public PlaneGenerator {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;
  static constexpr int kVecBytes = kLanes * 4;

  explicit Im2colGenerator(const Im2colConfig &config)
      : c(config), plane(paddedPlane(config, kAvx512 ? Isa::Avx512 : Isa::Avx2)) {
    replicate = kAvx512 ? 1 : 8;
  }

  void generate() {
    const int64_t nr = c.panelWidth, ck = ckOf(c);
    const int64_t imageBytes = panelsOf(c) * ck * nr * 4;
    const int64_t per = Im2colKernel::planesPerTask(c);
    prologue();
    mov(r8, ptr[rdi + 16]);
    imul(rdx, rdx, plane.floats * 4);
    add(r8, rdx); // the padded plane of the call's scratch slot (nunc_rt_task)
    taskShare(per, c.batch * c.channels, r9, rax); // r9 = planes of this task
    mov(rax, ptr[rdi + 0]);
    imul(rdx, r10, c.height * c.width * 4);
    add(rax, rdx); // input plane
    setPadding(zero(), c.padWithZeroPoint, 3);
    fillPlane(r8, plane.floats, zero());
    if (c.strideW == 2)
      setEvenIndex(evenIndex());

    Label planeLoop, khLoop, kwLoop;
    L(planeLoop);
    copyIntoPlane(plane, rax, r8, r13, value(0), mask());
    // r12 = the packed rows of (image, channel) = packed + n*image + c*kh*kw rows.
    push(rax);
    mov(rax, r10);
    xor_(edx, edx);
    mov(rcx, c.channels);
    div(rcx);
    imul(r12, rax, imageBytes);
    imul(rdx, rdx, c.kernelH * c.kernelW * nr * 4);
    add(r12, rdx);
    add(r12, ptr[rdi + 8]);
    pop(rax);
    mov(r11, r8);
    mov(r13, c.kernelH);
    L(khLoop);
    mov(r15, r11);
    mov(r14, c.kernelW);
    L(kwLoop);
    tapRow();
    add(r11, c.dilationW * 4);
    add(r12, nr * 4);
    dec(r14);
    jnz(kwLoop, T_NEAR);
    lea(r11, ptr[r15 + c.dilationH * plane.cols * 4]);
    dec(r13);
    jnz(khLoop, T_NEAR);
    add(rax, c.height * c.width * 4);
    inc(r10);
    dec(r9);
    jnz(planeLoop, T_NEAR);
    epilogueReturn(0);
    emitConstants();
  }

private:
  Im2colConfig c;
  PaddedPlane plane;
  std::map<uint32_t, Address> maskWords; // AVX2 store masks, emitted once each

  Vmm value(int i) { return Vmm(i); } // 0..3
  Vmm zero() { return Vmm(4); }
  Vmm evenIndex() { return Vmm(5); }
  Vmm mask() { return Vmm(6); }

  /// Stores lanes [first, last) of v at `a` (lane i to a + 4*i).
  void storeLanes(const Address &a, const Vmm &v, int first, int last) {
    if (first == 0 && last == kLanes) {
      vmovups(a, v);
      return;
    }
    uint32_t bits = ((1u << last) - 1) & ~((1u << first) - 1);
    if constexpr (kAvx512) {
      mov(edx, bits);
      kmovw(k2, edx);
      vmovups(a | k2, v);
    } else {
      auto it = maskWords.find(bits);
      if (it == maskWords.end()) {
        std::vector<uint32_t> words(kLanes, 0);
        for (int i = first; i < last; ++i)
          words[i] = 0xffffffffu;
        it = maskWords.emplace(bits, dataAddr(words)).first;
      }
      vmovups(mask(), it->second);
      vmaskmovps(a, mask(), v);
    }
  }

  /// One im2col row (tap at r11, packed row at r12): every output row's
  /// inputs, then zeros past the last position.
  void tapRow() {
    const int64_t nr = c.panelWidth, ck = ckOf(c);
    const int64_t panelBytes = ck * nr * 4;
    int slot = 0;
    for (int64_t oh = 0; oh < c.outH; ++oh)
      for (int64_t ow = 0; ow < c.outW; ow += kLanes) {
        int count = static_cast<int>(std::min<int64_t>(kLanes, c.outW - ow));
        Vmm v = value(slot++ % 4);
        RegExp src = r11 + (oh * c.strideH * plane.cols + ow * c.strideW) * 4;
        if (c.strideW == 1)
          vmovups(v, ptr[src]);
        else
          loadStride2(v, src, evenIndex());
        int64_t p = oh * c.outW + ow, lane = p % nr, panel = p / nr;
        int first = static_cast<int>(std::min<int64_t>(count, nr - lane));
        storeLanes(ptr[r12 + panel * panelBytes + lane * 4], v, 0, first);
        if (first < count)
          storeLanes(ptr[r12 + (panel + 1) * panelBytes - first * 4], v, first, count);
      }
    int64_t positions = c.outH * c.outW;
    int64_t lastPanel = positions / nr, lane = positions % nr;
    for (int64_t l = lane; lane && l < nr; l += kLanes) {
      // Zero lanes [l, min(l + kLanes, nr)) of the last panel.
      int count = static_cast<int>(std::min<int64_t>(kLanes, nr - l));
      storeLanes(ptr[r12 + lastPanel * panelBytes + l * 4], zero(), 0, count);
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> Im2colKernel::generate(const Im2colConfig &config,
                                                  Isa isa) {
  if (!supports(config, isa))
    return nullptr;
  return generatedFor<Im2colGenerator>(isa, config);
}

void PanelGemmKernel::emitPanelIm2col(const Im2colConfig &ic, const Reg64 &planes,
                                      const Reg64 &panel, const Reg64 &buffer) {
  if (ic.panelWidth == 48)
    emitPanelCopy<Zmm>(ic, planes, panel, buffer);
  else
    emitPanelCopy<Ymm>(ic, planes, panel, buffer);
}

template <typename Vmm>
void PanelGemmKernel::emitPanelCopy(const Im2colConfig &ic, const Reg64 &planes,
                                    const Reg64 &panel, const Reg64 &buffer) {
  constexpr bool kZmm = std::is_same_v<Vmm, Zmm>;
  constexpr int kVecs = kZmm ? 3 : 2, kLanes = kZmm ? 16 : 8;
  const PanelIm2col::Table table = PanelIm2col::table(ic);
  const PaddedPlane plane = PanelIm2col::plane(ic);
  const int64_t nr = kVecs * kLanes, taps = ic.kernelH * ic.kernelW;
  const int64_t entryBytes = table.wordsPerVector() * 4;
  const int64_t delta = PanelIm2col::rowDelta(ic);
  const bool stride2 = ic.strideW == 2;
  // ymm from the input itself (no guard around it): masked loads, which
  // touch no lane outside their row (zmm loads are masked anyway).
  const bool masked = !kZmm && PanelIm2col::readsInput(ic);
  // Value slots (zmm0-3; ymm0-1) with their loads (zmm4-7; ymm2-5), the
  // row masks (k1..k7; ymm6-15): all vectors of a tap together where their
  // masks fit (the tap's inputs are then read from L2 once), else vector by
  // vector.
  constexpr int slots = kZmm ? 4 : 2;
  const int group = kVecs * table.rows <= (kZmm ? 7 : 10) ? kVecs : 1;
  auto loaded = [](int slot, int half) { return Vmm(kZmm ? 4 + slot : 2 + 2 * slot + half); };
  const Zmm evenIndex(8);
  lea(rcx, dataAddr(table.words));
  imul(rdx, panel, kVecs * entryBytes);
  add(rcx, rdx);
  std::vector<uint32_t> words(kLanes);
  for (int i = 0; i < kLanes; ++i)
    words[i] = kZmm ? 2 * i : 1u << i; // the even lanes' index; each lane's bit
  if (kZmm && stride2)
    vmovups(evenIndex, dataAddr(words));
  const Reg64 base[] = {r8, r11, r12};
  for (int v0 = 0; v0 < kVecs; v0 += group) {
    if constexpr (!kZmm)
      vmovdqu(Vmm(0), dataAddr(words));
    for (int v = v0; v < v0 + group; ++v) {
      movsxd(rdx, dword[rcx + v * entryBytes]);
      lea(base[v - v0], ptr[planes + rdx * 4]);
      for (int r = 0; r < table.rows; ++r) {
        const int at = (v - v0) * table.rows + r;
        if constexpr (kZmm) {
          kmovw(Opmask(1 + at), ptr[rcx + v * entryBytes + 4 + 4 * r]);
        } else {
          // The row's bits broadcast: lane i kept where bit i is set.
          vpbroadcastd(Vmm(6 + at), ptr[rcx + v * entryBytes + 4 + 4 * r]);
          vpand(Vmm(6 + at), Vmm(6 + at), Vmm(0));
          vpcmpeqd(Vmm(6 + at), Vmm(6 + at), Vmm(0));
        }
      }
    }
    lea(r9, ptr[buffer + v0 * kLanes * 4]);
    mov(r10, ic.channels);
    Label channel;
    L(channel);
    for (int64_t t = 0; t < taps; ++t) {
      int64_t ky = t / ic.kernelW, kx = t % ic.kernelW;
      int64_t tapOffset = ky * ic.dilationH * plane.cols + kx * ic.dilationW;
      for (int v = v0; v < v0 + group; ++v) {
        const int slot = static_cast<int>((t * group + v - v0) % slots);
        const Vmm z(slot), x = loaded(slot, 0);
        for (int r = 0; r < table.rows; ++r) {
          const int at = (v - v0) * table.rows + r;
          const RegExp src = base[v - v0] + (tapOffset + r * delta) * 4;
          if constexpr (kZmm) {
            // Row r's lanes (masked), the first row's zeroing the rest.
            const Opmask k(1 + at);
            if (stride2) {
              vmovups(x, ptr[src]);
              vpermt2ps(x, evenIndex, ptr[src + kLanes * 4]);
              vmovaps(r == 0 ? z | k | T_z : z | k, x);
            } else {
              vmovups(r == 0 ? z | k | T_z : z | k, ptr[src]);
            }
          } else if (masked) {
            // Each row's lanes alone (zero elsewhere), or-ed together.
            vpmaskmovd(r == 0 ? z : x, Vmm(6 + at), ptr[src]);
            if (r > 0)
              vpor(z, z, x);
          } else {
            if (stride2) {
              // The even elements of 16: a0 a2 b0 b2 | a4 a6 b4 b6, then the
              // middle quadwords swapped.
              vmovdqu(x, ptr[src]);
              vshufps(x, x, ptr[src + kLanes * 4], 0x88);
              vpermq(x, x, 0xd8);
            } else {
              vmovdqu(x, ptr[src]);
            }
            // Row 0 keeps its lanes (zero past the last position); each
            // further row's lanes replace theirs.
            if (r == 0)
              vpand(z, x, Vmm(6 + at));
            else
              vpblendvb(z, z, x, Vmm(6 + at));
          }
        }
        if constexpr (kZmm)
          vmovups(ptr[r9 + (t * nr + (v - v0) * kLanes) * 4], z);
        else
          vmovdqu(ptr[r9 + (t * nr + (v - v0) * kLanes) * 4], z);
      }
    }
    for (int v = v0; v < v0 + group; ++v)
      add(base[v - v0], plane.floats * 4);
    add(r9, taps * nr * 4);
    dec(r10);
    jnz(channel, T_NEAR);
  }
}

bool PanelIm2col::readsInput(const Im2colConfig &c) {
  PaddedPlane p = paddedPlane(c, Isa::Avx512);
  return c.strideW == 1 && c.padTop == 0 && c.padLeft == 0 && p.rows == c.height &&
         p.cols == c.width;
}

PaddedPlane PanelIm2col::plane(const Im2colConfig &c) {
  PaddedPlane p = paddedPlane(c, Isa::Avx512);
  if (readsInput(c))
    p.floats = c.height * c.width; // the input's own planes
  return p;
}

int64_t PanelIm2col::rowDelta(const Im2colConfig &c) {
  return c.strideH * plane(c).cols - c.outW * c.strideW;
}

PanelIm2col::Table PanelIm2col::table(const Im2colConfig &c) {
  const int64_t lanes = PanelIm2col::lanes(c), nr = c.panelWidth, positions = c.outH * c.outW;
  const int64_t vectors = panelsOf(c) * (nr / lanes);
  const int64_t cols = plane(c).cols;
  Table t;
  // Rows a vector spans: at most this many, whatever its first position.
  t.rows = static_cast<int>(std::min<int64_t>(
      (lanes + c.outW - 2) / c.outW + 1, (positions + c.outW - 1) / c.outW));
  t.rows = std::max(t.rows, 1);
  t.words.assign(vectors * t.wordsPerVector(), 0);
  for (int64_t v = 0; v < vectors; ++v) {
    uint32_t *entry = &t.words[v * t.wordsPerVector()];
    int64_t first = v * lanes;
    if (first >= positions)
      continue; // offset 0, no lanes
    int64_t oy0 = first / c.outW, ox0 = first % c.outW;
    entry[0] = static_cast<uint32_t>(oy0 * c.strideH * cols + ox0 * c.strideW);
    for (int64_t l = 0; l < lanes && first + l < positions; ++l) {
      int64_t r = (first + l) / c.outW - oy0;
      if (r >= t.rows)
        return Table{static_cast<int>(r + 1), {}}; // the bound above is wrong: refuse
      entry[1 + r] |= 1u << l;
    }
  }
  return t;
}

int64_t PanelIm2col::guardElements(const Im2colConfig &c) {
  if (readsInput(c))
    return 0;
  // A stride-2 load reads 32 elements from lane 0's place, which may lie up
  // to 30 elements before its row or, for rows without lanes, `rows` row
  // distances past the vector's base.
  PaddedPlane p = plane(c);
  int64_t rows = (16 + c.outW - 2) / c.outW + 1;
  return (rows + 1) * (c.strideH * p.cols + c.outW * c.strideW) +
         (c.kernelH - 1) * c.dilationH * p.cols + (c.kernelW - 1) * c.dilationW + 64;
}

int64_t PanelIm2col::planesBytes(const Im2colConfig &c) {
  if (readsInput(c))
    return 0;
  return (2 * guardElements(c) + c.batch * c.channels * plane(c).floats) * 4;
}

bool PanelIm2col::supports(const Im2colConfig &c, Isa isa) {
  if (c.panelWidth != (isa == Isa::Avx512 ? 48 : 16) || !Im2colKernel::supports(c, isa))
    return false;
  int64_t rows = (lanes(c) + c.outW - 2) / c.outW + 1;
  return rows <= 7 && !table(c).words.empty() && planesBytes(c) < (int64_t(1) << 31) &&
         c.channels * c.kernelH * c.kernelW * c.panelWidth * 4 < (int64_t(1) << 31);
}

int64_t PanelIm2col::paddingTasks(const Im2colConfig &c) {
  int64_t planes = c.batch * c.channels;
  int64_t per = std::max<int64_t>(std::max<int64_t>(1, 32768 / plane(c).floats),
                                  (planes + 31) / 32);
  return (planes + per - 1) / per;
}

namespace {

/// Copies planes [first, first + count) of the input into their padded
/// places, padding with 0 or the zero point.
template <typename Vmm> class PaddingGenerator : public PlaneGenerator {
public:
  explicit PaddingGenerator(const Im2colConfig &config)
      : c(config), plane(PanelIm2col::plane(config)) {
    replicate = isZmm<Vmm>() ? 1 : 8;
  }

  void generate() {
    const int64_t planes = c.batch * c.channels;
    const int64_t tasks = PanelIm2col::paddingTasks(c);
    const int64_t per = (planes + tasks - 1) / tasks;
    prologue();
    taskShare(per, planes, r9, rax); // r9 = planes of this task
    mov(rax, ptr[rdi + 0]);
    imul(rdx, r10, c.height * c.width * 4);
    add(rax, rdx); // the first input plane
    mov(r8, ptr[rdi + 8]);
    imul(rdx, r10, plane.floats * 4);
    lea(r8, ptr[r8 + rdx + PanelIm2col::guardElements(c) * 4]); // its padded place
    setPadding(zero(), c.padWithZeroPoint, 2);
    Label planeLoop;
    L(planeLoop);
    fillPlane(r8, plane.floats, zero());
    copyIntoPlane(plane, rax, r8, r13, Vmm(0), Vmm(1));
    add(rax, c.height * c.width * 4);
    add(r8, plane.floats * 4);
    dec(r9);
    jnz(planeLoop, T_NEAR);
    epilogueReturn(0);
    emitConstants();
  }

private:
  Im2colConfig c;
  PaddedPlane plane;
  Vmm zero() { return Vmm(2); }
};

} // namespace

std::unique_ptr<JitKernel> PanelIm2col::generatePadding(const Im2colConfig &config) {
  const Isa isa = config.panelWidth == 48 ? Isa::Avx512 : Isa::Avx2;
  if (!supports(config, isa) || readsInput(config))
    return nullptr;
  return generatedFor<PaddingGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
