//===- WinogradKernel.cpp - 3x3 convolution as Winograd F(2x2, 3x3) -------===//

#include "WinogradKernel.h"

#include <algorithm>
#include <cstdint>

namespace mlir::nunc::x86 {

Im2colConfig WinogradKernel::paddingConfig(const WinogradConfig &c) {
  // Outputs rounded up to whole tiles: the planes then hold every patch
  // row and column that a tile reads, zeros past the input.
  Im2colConfig p;
  p.batch = c.batch;
  p.channels = c.channels;
  p.height = c.height;
  p.width = c.width;
  p.kernelH = p.kernelW = 3;
  p.padTop = p.padLeft = 1;
  p.outH = 2 * tileRows(c);
  p.outW = 2 * tileCols(c);
  p.panelWidth = 48;
  return p;
}

bool WinogradKernel::supports(const WinogradConfig &c, Isa isa) {
  if (isa != Isa::Avx512 || c.batch < 1 || c.channels < 1 || c.outChannels < 1 ||
      c.height < 3 || c.width < 3 || c.activation.hasGrids() ||
      c.activation.kind == Activation::FakeQuant) // (f32 convolutions have no grids)
    return false;
  const Im2colConfig p = paddingConfig(c);
  const int64_t limit = int64_t(1) << 31;
  return PanelIm2col::supports(p, isa) &&
         c.batch * c.outChannels * c.height * c.width * 4 < limit &&
         16 * c.outChannels * c.channels * 4 < limit && bufferBytes(c) * kMaxTasks < limit;
}

std::vector<float> WinogradKernel::transformWeights(const float *w, int64_t m, int64_t c) {
  static const double g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  std::vector<float> u(16 * m * c);
  for (int64_t o = 0; o < m; ++o)
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *f = w + (o * c + ch) * 9;
      for (int l = 0; l < 4; ++l)
        for (int k = 0; k < 4; ++k) {
          double s = 0;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              s += g[l][i] * f[i * 3 + j] * g[k][j];
          u[((l * 4 + k) * m + o) * c + ch] = static_cast<float>(s);
        }
    }
  return u;
}

namespace {

using namespace Xbyak;

class WinogradGenerator : public PanelGemmKernel {
public:
  explicit WinogradGenerator(const WinogradConfig &config)
      : c(config), pc(WinogradKernel::paddingConfig(config)), plane(PanelIm2col::plane(pc)) {}

  void generate() {
    const int64_t panels = WinogradKernel::panels(c), items = WinogradKernel::items(c);
    const int64_t tasks = WinogradKernel::numTasks(c);
    // The first `wideOnes` panels take `wide` segments, the rest one fewer.
    const int64_t wide = WinogradKernel::widePanelSegments(c);
    const int64_t wideOnes = WinogradKernel::widePanels(c);
    prologue();
    frameBytes = 64;
    sub(rsp, frameBytes);
    mov(ptr[rsp + 8], rdi);
    mov(ptr[rsp], rsi);
    mov(rax, ptr[rdi + 40]);
    imul(rdx, rdx, WinogradKernel::bufferBytes(c)); // the scratch slot's buffer
    add(rax, rdx);
    mov(ptr[rsp + 16], rax);
    Label item, next, narrowPanel;
    L(item);
    mov(rax, ptr[rsp]); // item = image x panels + panel
    xor_(edx, edx);
    mov(rcx, panels);
    div(rcx);
    mov(r14, rax);
    mov(rsi, rdx);
    // The panel's first segment: panel x (wide - 1) + min(panel, wideOnes).
    mov(rcx, wideOnes);
    cmp(rdx, rcx);
    cmovae(rdx, rcx);
    imul(rax, rsi, wide - 1);
    add(rax, rdx);
    imul(rax, rax, kEntryBytes);
    lea(rcx, dataAddr(segmentTable()));
    add(rcx, rax);
    mov(ptr[rsp + 24], rcx);
    mov(rdi, ptr[rsp + 8]);
    mov(r8, ptr[rdi + 8]); // the image's first padded plane
    imul(rdx, r14, c.channels * plane.floats * 4);
    lea(r8, ptr[r8 + rdx + PanelIm2col::guardElements(pc) * 4]);
    imul(rdx, r14, c.outChannels * c.height * c.width * 4);
    mov(rax, ptr[rdi + 32]);
    add(rax, rdx);
    mov(ptr[rsp + 32], rax); // the image's output
    mov(rax, ptr[rdi + 24]);
    add(rax, rdx);
    mov(ptr[rsp + 40], rax); // and residual
    if (wideOnes < panels) {
      cmp(rsi, wideOnes);
      jae(narrowPanel, T_NEAR);
    }
    panel(static_cast<int>(wide));
    if (wideOnes < panels) {
      jmp(next, T_NEAR);
      L(narrowPanel);
      panel(static_cast<int>(wide - 1));
    }
    L(next);
    nextItem(item, tasks, items);
    epilogueReturn(0);
    emitConstants();
  }

private:
  static constexpr int kLanes = 16, kRows = 8, kVecs = 3, kUnroll = 4;
  /// A segment's entry (elements, masks of 16 lanes): where its lanes 0-7
  /// and 8-15 read their patches in a padded plane (the second 16 columns
  /// further on, or the next tile row's origin where rows pair), where the
  /// low and high halves of its output rows go in an output plane (16
  /// columns apart, or the two rows' origins), the masks of its four raw
  /// input loads (column 0 from the first origin, 0 from the second, 2 from
  /// the first, 2 from the second), and of its four stores (row 0 low /
  /// high, row 1 low / high).
  static constexpr int kEntryWords = 12, kEntryBytes = kEntryWords * 4;
  WinogradConfig c;
  Im2colConfig pc;
  PaddedPlane plane;

  int64_t vBytesPerPosition() const { return WinogradKernel::positionBytes(c); }
  int64_t vBytes() const { return 16 * vBytesPerPosition(); }
  static constexpr int64_t kMBytesPerPosition = kRows * 48 * 4;
  int64_t planeBytes() const { return c.height * c.width * 4; }

  std::vector<uint32_t> segmentTable() const {
    const int64_t perRow = WinogradKernel::segmentsPerRow(c);
    const int64_t tw = WinogradKernel::tileCols(c);
    std::vector<uint32_t> t(WinogradKernel::segments(c) * kEntryWords, 0);
    auto bits = [](int64_t first, int64_t limit) { // lanes p with first + p < limit
      uint32_t m = 0;
      for (int p = 0; p < kLanes; ++p)
        if (first + p < limit)
          m |= 1u << p;
      return m;
    };
    const int64_t th = WinogradKernel::tileRows(c);
    auto planeAt = [&](int64_t ty, int64_t tx) { return 2 * ty * plane.cols + 2 * tx; };
    auto outAt = [&](int64_t ty, int64_t tx) { return 2 * ty * c.width + 2 * tx; };
    // Output columns of tiles [tx, tx + w) of a row; none past the last row.
    auto outCols = [&](int64_t ty, int64_t tx, int64_t w) {
      return ty < th ? std::min<int64_t>(2 * w, c.width - 2 * tx) : 0;
    };
    auto secondRow = [&](int64_t ty, uint32_t m) { return 2 * ty + 1 < c.height ? m : 0; };
    for (int64_t s = 0; s < WinogradKernel::segments(c); ++s) {
      uint32_t *e = &t[s * kEntryWords];
      if (WinogradKernel::pairsRows(c)) {
        // Rows 2s and 2s + 1 (which may not exist: its masks are 0).
        const int64_t ty = 2 * s, raw = 2 * tw + 2;
        const int64_t rawB = ty + 1 < th ? raw : 0;
        e[0] = static_cast<uint32_t>(planeAt(ty, 0));
        e[1] = static_cast<uint32_t>(planeAt(std::min(ty + 1, th - 1), 0));
        e[2] = static_cast<uint32_t>(outAt(ty, 0));
        e[3] = static_cast<uint32_t>(outAt(std::min(ty + 1, th - 1), 0));
        e[4] = bits(0, raw);
        e[5] = bits(0, rawB);
        e[6] = bits(2, raw);
        e[7] = bits(2, rawB);
        e[8] = bits(0, outCols(ty, 0, tw));
        e[9] = bits(0, outCols(ty + 1, 0, tw));
        e[10] = secondRow(ty, e[8]);
        e[11] = secondRow(ty + 1, e[9]);
        continue;
      }
      const int64_t ty = s / perRow, tx0 = s % perRow * kLanes;
      const int64_t w = std::min<int64_t>(kLanes, tw - tx0);
      e[0] = static_cast<uint32_t>(planeAt(ty, tx0));
      e[1] = e[0] + 16;
      e[2] = static_cast<uint32_t>(outAt(ty, tx0));
      e[3] = e[2] + 16;
      const int64_t raw = 2 * w + 2; // patch columns the segment reads
      e[4] = bits(0, raw);
      e[5] = bits(16, raw);
      e[6] = bits(2, raw);
      e[7] = bits(18, raw);
      const int64_t cols = outCols(ty, tx0, w);
      e[8] = bits(0, cols);
      e[9] = bits(16, cols);
      e[10] = secondRow(ty, e[8]);
      e[11] = secondRow(ty, e[9]);
    }
    return t;
  }

  /// The panel's input transform, then its row tiles of output channels.
  void panel(int vecs) {
    inputTransform(vecs);
    mov(rdi, ptr[rsp + 8]);
    mov(rax, ptr[rdi + 0]);  // U rows of the tile
    mov(rdx, ptr[rdi + 16]); // bias
    mov(rcx, ptr[rsp + 32]); // output plane of the tile's first channel
    mov(r12, ptr[rsp + 40]); // residual
    setRowStrides(c.channels * 4);
    const int64_t full = c.outChannels / kRows, rest = c.outChannels % kRows;
    if (full) {
      Label rows;
      mov(rbp, full);
      L(rows);
      tile(kRows, vecs);
      add(rax, kRows * c.channels * 4);
      add(rdx, kRows * 4);
      add(rcx, kRows * planeBytes());
      add(r12, kRows * planeBytes());
      dec(rbp);
      jnz(rows, T_NEAR);
    }
    if (rest)
      tile(static_cast<int>(rest), vecs);
  }

  Zmm t(int i, int k) { return Zmm(4 * i + k); }

  /// V[xi][ch][48] = B^T d B of every tile's patch d, for each channel:
  /// a patch row's four columns of 16 tiles are the even and odd elements
  /// of raw loads at columns 0 / 16 and 2 / 18 of the segment (masked to
  /// the columns it reads, so no lane reads past the planes).
  void inputTransform(int vecs) {
    const Zmm even(24), odd(25), raw[4] = {Zmm(16), Zmm(17), Zmm(18), Zmm(19)};
    const Zmm d[4] = {Zmm(20), Zmm(21), Zmm(22), Zmm(23)};
    const Zmm v[4] = {Zmm(26), Zmm(27), Zmm(28), Zmm(29)};
    const Opmask masks[4] = {k1, k2, k3, k4};
    std::vector<uint32_t> evens(kLanes), odds(kLanes);
    for (int i = 0; i < kLanes; ++i) {
      evens[i] = 2 * i;
      odds[i] = 2 * i + 1;
    }
    vmovups(even, dataAddr(evens));
    vmovups(odd, dataAddr(odds));
    mov(r9, ptr[rsp + 16]); // V cursor: channel 0
    mov(rdi, ptr[rsp + 24]);
    mov(r10, c.channels);
    Label channel;
    L(channel);
    for (int s = 0; s < vecs; ++s) {
      movsxd(rax, dword[rdi + s * kEntryBytes]);
      lea(rbx, ptr[r8 + rax * 4]);
      movsxd(rax, dword[rdi + s * kEntryBytes + 4]);
      lea(rax, ptr[r8 + rax * 4]);
      for (int q = 0; q < 4; ++q)
        kmovw(masks[q], word[rdi + s * kEntryBytes + (4 + q) * 4]);
      for (int i = 0; i < 4; ++i) {
        const int64_t row = i * plane.cols * 4;
        // Columns 0-15 from each origin (raw[0], raw[1]) and 2-17 (raw[2],
        // raw[3]); the even and odd elements of each pair are the tiles'
        // patch columns 0 and 1, and 2 and 3.
        const Reg64 *origin[4] = {&rbx, &rax, &rbx, &rax};
        const int64_t at[4] = {0, 0, 8, 8};
        for (int q = 0; q < 4; ++q)
          vmovups(raw[q] | masks[q] | T_z, ptr[*origin[q] + row + at[q]]);
        for (int q = 0; q < 4; ++q) {
          vmovaps(d[q], q % 2 ? odd : even);
          vpermi2ps(d[q], raw[q / 2 * 2], raw[q / 2 * 2 + 1]);
        }
        vsubps(t(i, 0), d[0], d[2]);
        vaddps(t(i, 1), d[1], d[2]);
        vsubps(t(i, 2), d[2], d[1]);
        vsubps(t(i, 3), d[1], d[3]);
      }
      for (int k = 0; k < 4; ++k) {
        vsubps(v[0], t(0, k), t(2, k));
        vaddps(v[1], t(1, k), t(2, k));
        vsubps(v[2], t(2, k), t(1, k));
        vsubps(v[3], t(1, k), t(3, k));
        for (int l = 0; l < 4; ++l)
          vmovups(ptr[r9 + (4 * l + k) * vBytesPerPosition() + s * 64], v[l]);
      }
    }
    add(r8, plane.floats * 4);
    add(r9, 48 * 4);
    dec(r10);
    jnz(channel, T_NEAR);
  }

  Zmm acc(int r, int v) { return Zmm(r * kVecs + v); }

  /// The 16 products of the tile's U rows (rax) with V into M, then M's
  /// output transform into the tile's channels.
  void tile(int rows, int vecs) {
    mov(rbx, rax);           // U[xi]
    mov(rdi, ptr[rsp + 16]); // V[xi]
    lea(rsi, ptr[rdi + vBytes()]); // M[xi]
    mov(qword[rsp + 48], 16);
    Label position;
    L(position);
    for (int r = 0; r < rows; ++r)
      for (int v = 0; v < vecs; ++v)
        vxorps(acc(r, v), acc(r, v), acc(r, v));
    mov(r14, rbx);
    mov(r15, rdi);
    const int64_t blocks = c.channels / kUnroll, rest = c.channels % kUnroll;
    if (blocks) {
      Label loop;
      mov(r13, blocks);
      L(loop);
      for (int u = 0; u < kUnroll; ++u)
        kStep(rows, vecs, u * 4, u * 48 * 4);
      add(r14, kUnroll * 4);
      add(r15, kUnroll * 48 * 4);
      dec(r13);
      jnz(loop, T_NEAR);
    }
    for (int u = 0; u < rest; ++u)
      kStep(rows, vecs, u * 4, u * 48 * 4);
    for (int r = 0; r < rows; ++r)
      for (int v = 0; v < vecs; ++v)
        vmovups(ptr[rsi + r * 48 * 4 + v * 64], acc(r, v));
    add(rbx, c.outChannels * c.channels * 4);
    add(rdi, vBytesPerPosition());
    add(rsi, kMBytesPerPosition);
    dec(qword[rsp + 48]);
    jnz(position, T_NEAR);
    outputTransform(rows, vecs);
  }

  void kStep(int rows, int vecs, int64_t aOff, int64_t bOff) {
    const Zmm a(27);
    for (int v = 0; v < vecs; ++v)
      vmovups(Zmm(24 + v), ptr[r15 + bOff + v * 64]);
    for (int r = 0; r < rows; ++r) {
      vbroadcastss(a, ptr[aRow(r14, r) + aOff]);
      for (int v = 0; v < vecs; ++v)
        vfmadd231ps(acc(r, v), Zmm(24 + v), a);
    }
  }

  /// Y = A^T M A for each of the tile's channels and segments: the two
  /// output rows of 16 tiles, each put in column order (the tiles' left and
  /// right columns interleaved), plus bias and residual, the activation,
  /// stored under the segment's masks.
  void outputTransform(int rows, int vecs) {
    const Zmm m[4] = {Zmm(0), Zmm(1), Zmm(2), Zmm(3)};
    auto s = [](int l, int q) { return Zmm(4 + 2 * l + q); };
    const Zmm y[2][2] = {{Zmm(12), Zmm(13)}, {Zmm(14), Zmm(15)}};
    const Zmm out[2][2] = {{Zmm(16), Zmm(17)}, {Zmm(18), Zmm(19)}}; // [row][half]
    const Zmm bias(20), low(30), high(31);
    const Opmask masks[2][2] = {{k1, k2}, {k6, k7}};
    std::vector<uint32_t> lows(kLanes), highs(kLanes);
    for (int p = 0; p < kLanes; ++p) {
      lows[p] = p % 2 * 16 + p / 2;
      highs[p] = p % 2 * 16 + 8 + p / 2;
    }
    vmovups(low, dataAddr(lows));
    vmovups(high, dataAddr(highs));
    mov(rbx, ptr[rsp + 16]);
    add(rbx, vBytes()); // M
    mov(rdi, ptr[rsp + 24]);
    // The low and high halves' output places and residuals: r14 / r15,
    // rsi / r13 (free after the products; r13 last, it holds the offset).
    const Reg64 outs[2] = {r14, rsi}, residuals[2] = {r15, r13};
    for (int v = 0; v < vecs; ++v) {
      for (int h = 0; h < 2; ++h) {
        movsxd(r13, dword[rdi + v * kEntryBytes + (2 + h) * 4]);
        lea(outs[h], ptr[rcx + r13 * 4]);
        lea(residuals[h], ptr[r12 + r13 * 4]);
      }
      for (int row = 0; row < 2; ++row)
        for (int h = 0; h < 2; ++h)
          kmovw(masks[row][h], word[rdi + v * kEntryBytes + (8 + 2 * row + h) * 4]);
      for (int r = 0; r < rows; ++r) {
        for (int l = 0; l < 4; ++l) {
          for (int k = 0; k < 4; ++k)
            vmovups(m[k], ptr[rbx + (4 * l + k) * kMBytesPerPosition + r * 48 * 4 + v * 64]);
          vaddps(s(l, 0), m[0], m[1]);
          vaddps(s(l, 0), s(l, 0), m[2]);
          vsubps(s(l, 1), m[1], m[2]);
          vsubps(s(l, 1), s(l, 1), m[3]);
        }
        for (int q = 0; q < 2; ++q) {
          vaddps(y[0][q], s(0, q), s(1, q));
          vaddps(y[0][q], y[0][q], s(2, q));
          vsubps(y[1][q], s(1, q), s(2, q));
          vsubps(y[1][q], y[1][q], s(3, q));
        }
        if (c.bias) {
          vbroadcastss(bias, ptr[rdx + r * 4]);
          for (int p = 0; p < 2; ++p)
            for (int q = 0; q < 2; ++q)
              vaddps(y[p][q], y[p][q], bias);
        }
        for (int row = 0; row < 2; ++row) {
          vmovaps(out[row][0], low);
          vpermi2ps(out[row][0], y[row][0], y[row][1]);
          vmovaps(out[row][1], high);
          vpermi2ps(out[row][1], y[row][0], y[row][1]);
        }
        for (int row = 0; row < 2; ++row)
          for (int h = 0; h < 2; ++h) {
            const int64_t at = r * planeBytes() + row * c.width * 4;
            if (c.residual)
              vaddps(out[row][h] | masks[row][h], out[row][h], ptr[residuals[h] + at]);
            emitActivation(out[row][h], c.activation, Zmm(24), Zmm(25), Zmm(26), Zmm(27));
            vmovups(ptr[outs[h] + at] | masks[row][h], out[row][h]);
          }
      }
    }
  }
};

} // namespace

std::unique_ptr<JitKernel> WinogradKernel::generate(const WinogradConfig &config, Isa isa) {
  if (!supports(config, isa))
    return nullptr;
  return generated<WinogradGenerator>(config);
}

} // namespace mlir::nunc::x86
