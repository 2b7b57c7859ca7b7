//===- WindowKernel.cpp - pooling and depthwise conv (xbyak) --------------===//

#include "WindowKernel.h"
#include "PaddedPlane.h"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace mlir::nunc::x86 {

namespace {
int64_t lanesOf(Isa isa) { return isa == Isa::Avx512 ? 16 : 8; }
int64_t chunksOf(const WindowConfig &c, int64_t lanes) { return (c.outW + lanes - 1) / lanes; }
PaddedPlane paddedPlane(const WindowConfig &c, Isa isa) {
  return PaddedPlane::forWindow(c.height, c.width, c.kernelH, c.kernelW, c.strideH, c.strideW,
                                c.dilationH, c.dilationW, c.padTop, c.padLeft, c.outH, c.outW,
                                lanesOf(isa));
}
} // namespace

bool WindowKernel::supports(const WindowConfig &c) {
  if (c.kind == WindowConfig::GlobalAverage)
    return true;
  return (c.strideW == 1 || c.strideW == 2) && c.kernelH * c.kernelW <= 64 && c.outH > 0 &&
         c.outW > 0 && c.padTop >= 0 && c.padLeft >= 0;
}

int64_t WindowKernel::planesPerTask(const WindowConfig &c) {
  int64_t planes = c.batch * c.channels;
  // Tasks of at least ~16K input floats, at most 32 of them.
  int64_t byWork = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, c.height * c.width));
  return std::max<int64_t>(byWork, (planes + 31) / 32);
}

int64_t WindowKernel::numTasks(const WindowConfig &c) {
  int64_t planes = c.batch * c.channels;
  return (planes + planesPerTask(c) - 1) / planesPerTask(c);
}

int64_t WindowKernel::scratchBytes(const WindowConfig &c, Isa isa) {
  if (c.kind == WindowConfig::GlobalAverage)
    return 0;
  return numTasks(c) * paddedPlane(c, isa).floats * 4;
}

int64_t WindowKernel::mapRowFloats(const WindowConfig &c, Isa isa) {
  return chunksOf(c, lanesOf(isa)) * lanesOf(isa);
}

std::vector<float> WindowKernel::prepareDivisors(WindowConfig &c, Isa isa) {
  auto taps = [&](int64_t o, int64_t stride, int64_t padBegin, int64_t padEnd, int64_t k,
                  int64_t dilation, int64_t n) {
    int64_t count = 0;
    for (int64_t t = 0; t < k; ++t) {
      int64_t x = o * stride - padBegin + t * dilation;
      count += c.countIncludePad ? (x >= -padBegin && x < n + padEnd) : (x >= 0 && x < n);
    }
    return count;
  };
  int64_t row = mapRowFloats(c, isa);
  std::vector<float> map(c.outH * row, 0.f);
  bool uniform = true;
  for (int64_t oh = 0; oh < c.outH; ++oh)
    for (int64_t ow = 0; ow < c.outW; ++ow) {
      int64_t divisor =
          taps(oh, c.strideH, c.padTop, c.padBottom, c.kernelH, c.dilationH, c.height) *
          taps(ow, c.strideW, c.padLeft, c.padRight, c.kernelW, c.dilationW, c.width);
      float r = divisor ? 1.f / divisor : 0.f;
      map[oh * row + ow] = r;
      uniform &= r == map[0];
    }
  c.uniformDivisor = uniform;
  c.reciprocal = map.empty() ? 1.f : map[0];
  if (uniform)
    map.clear();
  return map;
}

namespace {

using namespace Xbyak;

template <typename Vmm> class WindowGenerator : public PlaneGenerator {
public:
  static constexpr bool kAvx512 = std::is_same_v<Vmm, Zmm>;
  static constexpr int kLanes = kAvx512 ? 16 : 8;
  static constexpr int kVecBytes = kLanes * 4;
  /// Output vectors computed together (independent accumulators).
  static constexpr int kGroup = 4;

  explicit WindowGenerator(const WindowConfig &config)
      : c(config), plane(paddedPlane(config, kAvx512 ? Isa::Avx512 : Isa::Avx2)) {
    replicate = kAvx512 ? 1 : 8;
  }

  void generate() {
    prologue();
    int64_t per = WindowKernel::planesPerTask(c);
    int64_t planes = c.batch * c.channels;
    // r10 = first plane; r9 = planes of this task.
    imul(r10, rsi, per);
    mov(r9, planes);
    sub(r9, r10);
    mov(rax, per);
    cmp(r9, rax);
    cmovg(r9, rax);
    int64_t inPlane = c.height * c.width * 4;
    int64_t outPlane = c.kind == WindowConfig::GlobalAverage ? 4 : c.outH * c.outW * 4;
    mov(rax, ptr[rdi + 0]);
    imul(rdx, r10, inPlane);
    add(rax, rdx); // x plane
    mov(rbx, ptr[rdi + 8]);
    imul(rdx, r10, outPlane);
    add(rbx, rdx); // y plane
    if (c.kind == WindowConfig::GlobalAverage) {
      globalAverage();
    } else {
      mov(r8, ptr[rdi + 16]);
      imul(rdx, rsi, plane.floats * 4);
      add(r8, rdx); // this task's padded plane
      // The padding (-inf for max, else 0) is written once per task.
      loadConstant(padReg(), padValue());
      fillPlane(r8, plane.floats, padReg());
      Label planeLoop;
      L(planeLoop);
      copyIntoPlane(plane, rax, r8, r13, val(0), tailMask());
      windowPlane();
      add(rax, inPlane);
      add(rbx, outPlane);
      inc(r10);
      dec(r9);
      jnz(planeLoop, T_NEAR);
    }
    epilogueReturn(0);
    emitConstants();
  }

private:
  WindowConfig c;
  PaddedPlane plane;

  Vmm acc(int i) { return Vmm(i); }               // 0..3
  Vmm val(int i) { return Vmm(kGroup + i); }      // 4..7
  Vmm weightReg() { return Vmm(8); }
  Vmm temp(int i) { return Vmm(9 + i); }          // 9..12
  Vmm padReg() { return Vmm(13); }
  Vmm evenIndex() { return Vmm(14); }              // AVX-512 stride 2
  Vmm tailMask() { return Vmm(15); }               // AVX2 masked tails

  float padValue() const {
    return c.kind == WindowConfig::Max ? -std::numeric_limits<float>::infinity() : 0.f;
  }

  void windowPlane() {
    int64_t wp = plane.cols;
    int64_t chunks = chunksOf(c, kLanes);
    int tail = c.outW % kLanes;
    bool depthwise = c.kind == WindowConfig::Depthwise;
    bool mapped = c.kind == WindowConfig::Average && !c.uniformDivisor;
    if (c.strideW == 2)
      setEvenIndex(evenIndex());
    if (tail)
      setTailMask(tail, tailMask());
    if (depthwise) {
      // r11 = this channel's filter, r12 = its bias: channel = plane % C.
      push(rax);
      mov(rax, r10);
      xor_(edx, edx);
      mov(rcx, c.channels);
      div(rcx);
      pop(rax);
      mov(r11, ptr[rdi + 24]);
      imul(rcx, rdx, c.kernelH * c.kernelW * 4);
      add(r11, rcx);
      if (c.bias) {
        mov(r12, ptr[rdi + 32]);
        lea(r12, ptr[r12 + rdx * 4]);
      }
      if (c.residual) {
        mov(rbp, ptr[rdi + 40]);
        mov(rcx, rbx);
        sub(rcx, ptr[rdi + 8]);
        add(rbp, rcx); // residual plane at y's offset
      }
    }
    if (mapped)
      mov(r11, ptr[rdi + 24]);
    mov(r14, r8);
    mov(r15, rbx);
    mov(r13, c.outH);
    Label rowLoop;
    L(rowLoop);
    for (int64_t g0 = 0; g0 < chunks; g0 += kGroup) {
      int n = static_cast<int>(std::min<int64_t>(kGroup, chunks - g0));
      // Accumulators.
      for (int j = 0; j < n; ++j) {
        if (c.kind == WindowConfig::Max)
          vmovaps(acc(j), padReg());
        else if (depthwise && c.bias)
          vbroadcastss(acc(j), ptr[r12]);
        else
          vxorps(acc(j), acc(j), acc(j));
      }
      for (int64_t kh = 0; kh < c.kernelH; ++kh)
        for (int64_t kw = 0; kw < c.kernelW; ++kw) {
          int64_t tapDisp = (kh * c.dilationH * wp + kw * c.dilationW) * 4;
          if (depthwise)
            vbroadcastss(weightReg(), ptr[r11 + (kh * c.kernelW + kw) * 4]);
          for (int j = 0; j < n; ++j) {
            int64_t disp = tapDisp + (g0 + j) * kLanes * c.strideW * 4;
            // Stride 1 reads the tap straight from memory.
            bool direct = c.strideW == 1;
            if (!direct)
              loadStride2(val(j), r14 + disp, evenIndex());
            switch (c.kind) {
            case WindowConfig::Max:
              if (direct)
                vmaxps(acc(j), acc(j), ptr[r14 + disp]);
              else
                vmaxps(acc(j), acc(j), val(j));
              break;
            case WindowConfig::Average:
              if (direct)
                vaddps(acc(j), acc(j), ptr[r14 + disp]);
              else
                vaddps(acc(j), acc(j), val(j));
              break;
            default:
              if (direct)
                vfmadd231ps(acc(j), weightReg(), ptr[r14 + disp]);
              else
                vfmadd231ps(acc(j), weightReg(), val(j));
              break;
            }
          }
        }
      // Epilogue and store.
      for (int j = 0; j < n; ++j) {
        int64_t chunk = g0 + j;
        bool isTail = tail && chunk == chunks - 1;
        int64_t outDisp = chunk * kVecBytes;
        if (c.kind == WindowConfig::Average) {
          if (mapped)
            vmulps(acc(j), acc(j), ptr[r11 + outDisp]);
          else
            vmulps(acc(j), acc(j), constAddr(c.reciprocal));
        }
        if (depthwise && c.residual) {
          if (!isTail) {
            vaddps(acc(j), acc(j), ptr[rbp + outDisp]);
          } else {
            loadMasked(val(j), ptr[rbp + outDisp], tailMask());
            vaddps(acc(j), acc(j), val(j));
          }
        }
        if (depthwise)
          emitActivation(acc(j), c.activation, temp(0), temp(1), temp(2), temp(3));
        if (isTail)
          storeMasked(ptr[r15 + outDisp], acc(j), tailMask());
        else
          vmovups(ptr[r15 + outDisp], acc(j));
      }
    }
    add(r14, c.strideH * wp * 4);
    add(r15, c.outW * 4);
    if (depthwise && c.residual)
      add(rbp, c.outW * 4);
    if (mapped)
      add(r11, chunks * kVecBytes);
    dec(r13);
    jnz(rowLoop, T_NEAR);
  }

  /// y[plane] = mean of the plane's H*W floats.
  void globalAverage() {
    int64_t n = c.height * c.width;
    int64_t full = n / kLanes, tail = n % kLanes;
    if (tail)
      setTailMask(static_cast<int>(tail), tailMask());
    Label planeLoop;
    L(planeLoop);
    for (int j = 0; j < kGroup; ++j)
      vxorps(acc(j), acc(j), acc(j));
    mov(rcx, rax);
    if (full >= kGroup) {
      Label loop;
      mov(r13, full / kGroup);
      L(loop);
      for (int j = 0; j < kGroup; ++j)
        vaddps(acc(j), acc(j), ptr[rcx + j * kVecBytes]);
      add(rcx, kGroup * kVecBytes);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    for (int64_t j = 0; j < full % kGroup; ++j)
      vaddps(acc(j), acc(j), ptr[rcx + j * kVecBytes]);
    if (tail) {
      loadMasked(val(0), ptr[rcx + (full % kGroup) * kVecBytes], tailMask());
      vaddps(acc(0), acc(0), val(0));
    }
    vaddps(acc(0), acc(0), acc(1));
    vaddps(acc(2), acc(2), acc(3));
    vaddps(acc(0), acc(0), acc(2));
    emitHorizontal(acc(0), val(1), Reduction::Add);
    vmulss(Xmm(acc(0).getIdx()), Xmm(acc(0).getIdx()), constScalar(1.f / n));
    vmovss(ptr[rbx], Xmm(acc(0).getIdx()));
    add(rax, n * 4);
    add(rbx, 4);
    dec(r9);
    jnz(planeLoop, T_NEAR);
  }
};

} // namespace

std::unique_ptr<JitKernel> WindowKernel::generate(const WindowConfig &config, Isa isa) {
  if (!supports(config))
    return nullptr;
  return generatedFor<WindowGenerator>(isa, config);
}

} // namespace mlir::nunc::x86
