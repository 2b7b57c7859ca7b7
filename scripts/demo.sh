#!/usr/bin/env bash
# Installs and builds nunc (scripts/setup.sh), writes the MiniLM-shaped example
# model, and shows the foundation at work: inspect it, import it to MLIR with
# pinned shapes, and run it with the reference evaluator, checked against
# onnxruntime.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR="${NUNC_BUILD_DIR:-build}"
PYTHON="${PYTHON:-$(command -v python3)}"
NUNC="$BUILD_DIR/bin/nunc"
OUT="$BUILD_DIR/demo"
mkdir -p "$OUT"

"$PYTHON" examples/models/make_models.py --out "$OUT" --models minilm
PINS=(--shape input_ids=1x128 --shape attention_mask=1x128 --shape token_type_ids=1x128)

echo; echo "== nunc inspect"
"$NUNC" inspect "$OUT/minilm.onnx" "${PINS[@]}"

echo; echo "== nunc import (shapes pinned: shape subgraphs fold away)"
"$NUNC" import "$OUT/minilm.onnx" "${PINS[@]}" -o "$OUT/minilm.mlir"
"$NUNC" import "$OUT/minilm.onnx" "${PINS[@]}" --elide-weights -o "$OUT/minilm.elided.mlir"
grep -m 8 -E "func.func|nunc\.(layer_norm|softmax|matmul)" "$OUT/minilm.elided.mlir" | cut -c1-160
echo "   full IR with weights: $OUT/minilm.mlir ($(du -h "$OUT/minilm.mlir" | cut -f1))"

echo; echo "== nunc run --reference, compared with onnxruntime"
"$PYTHON" - "$OUT" "$NUNC" <<'PY'
import subprocess, sys
import numpy as np
import onnxruntime as ort
sys.path.insert(0, "examples/models")
from make_models import random_inputs
out = sys.argv[1]
feeds = random_inputs("minilm", 1, 128, 0)
np.savez(f"{out}/inputs.npz", **feeds)
subprocess.run([sys.argv[2], "run", "--reference",
                f"{out}/minilm.onnx", "--input", f"{out}/inputs.npz", "-o", f"{out}/outputs.npz"],
               check=True)
ours = np.load(f"{out}/outputs.npz")["last_hidden_state"]
ref = ort.InferenceSession(f"{out}/minilm.onnx", providers=["CPUExecutionProvider"]).run(None, feeds)[0]
err = np.abs(ours - ref).max() / np.abs(ref).max()
print(f"last_hidden_state {ours.shape}: first values {np.round(ours[0, 0, :4], 4)}")
print(f"relative error vs onnxruntime: {err:.2e} ({'OK' if err <= 1e-4 else 'TOO LARGE'})")
sys.exit(0 if err <= 1e-4 else 1)
PY
