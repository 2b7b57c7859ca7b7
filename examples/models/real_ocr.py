#!/usr/bin/env python3
"""Real trained models for end-to-end tests and benchmarks: PaddleOCR's
text-line recognizer (PP-OCRv4 rec: PP-LCNetV3 convolutions, then SVTR
transformer blocks; CTC over 6625 classes) and text-orientation classifier
(ch_ppocr_mobile_v2.0 cls: a MobileNetV3 with hardswish and squeeze-excite
blocks), as the PyPI wheel ``rapidocr_onnxruntime`` ships them (Apache-2.0).
Only the .onnx files are used: install it with ``pip install --no-deps``.

paddle2onnx wrote them with unknown dims (-1 and "?"), the conv's scale and
shift (PP-LCNetV3's learnable affine blocks) as separate Mul/Add, and
hardswish as x * clip(x + 3, 0, 6) / 6: what nunc's fusions must take.

Inputs are text lines rendered here with Pillow's default font (random
words and numbers, jitter, noise), normalized as PaddleOCR does
((x / 255 - 0.5) / 0.5), left-aligned and zero-padded to the input width.

Importable: ``model_path(name)`` ("rec" or "cls"), ``INPUT_SHAPE``,
``render_lines(n, seed, width)``, ``turn_odd_lines(x)``, ``charset(path)``,
``ctc_decode(probs, chars)``, ``ort_quantizable_copy(path, out)``.

Usage: python3 real_ocr.py --check   (fp32 onnxruntime reads the rendered lines)
"""

from __future__ import annotations

import argparse
import importlib.util
import os

import numpy as np
import onnx

MODEL_FILES = {"rec": "ch_PP-OCRv4_rec_infer.onnx", "cls": "ch_ppocr_mobile_v2.0_cls_infer.onnx"}
# [C, H, W] each model is run at (rapidocr's config: rec_img_shape, cls_image_shape).
INPUT_SHAPE = {"rec": (3, 48, 320), "cls": (3, 48, 192)}
WORDS = ("invoice total amount paid due date order number customer account balance tax "
         "rate price item quantity street road city phone email shipping").split()


def package_dir():
    """The installed rapidocr_onnxruntime folder (its __init__ imports cv2
    and more, which --no-deps leaves out: located, not imported)."""
    spec = importlib.util.find_spec("rapidocr_onnxruntime")
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def model_path(name):
    d = package_dir()
    if d is None:
        return None
    path = os.path.join(d, "models", MODEL_FILES[name])
    return path if os.path.exists(path) else None


def _text(rng):
    parts = [WORDS[rng.integers(len(WORDS))] if rng.random() < 0.6
             else str(rng.integers(0, 100000)) for _ in range(rng.integers(1, 4))]
    s = " ".join(parts)
    return s.upper() if rng.random() < 0.3 else s


def _render(s, rng, height, width):
    from PIL import Image, ImageDraw, ImageFont
    font = ImageFont.load_default(size=int(rng.integers(26, 40)))
    left, top, right, bottom = font.getbbox(s)
    w, h = right - left + 16, bottom - top + 12
    bg, fg = int(rng.integers(170, 256)), int(rng.integers(0, 90))
    im = Image.new("L", (w, h), bg)
    ImageDraw.Draw(im).text((8 - left, 6 - top), s, fill=fg, font=font)
    im = im.rotate(float(rng.normal(0, 1.0)), resample=Image.BILINEAR, fillcolor=bg)
    a = np.asarray(im, np.float32) + rng.normal(0, 6, (h, w))
    scaled_w = min(width, int(np.ceil(height * w / h)))
    im = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).resize((scaled_w, height),
                                                                     Image.BILINEAR)
    x = np.zeros((3, height, width), np.float32)
    x[:, :, :scaled_w] = (np.asarray(im, np.float32) / 255 - 0.5) / 0.5
    return x


def render_lines(n, seed, width=320, height=48):
    """n rendered text lines [n, 3, height, width] (float32) and their texts."""
    rng = np.random.default_rng(seed)
    texts = [_text(rng) for _ in range(n)]
    return np.stack([_render(s, rng, height, width) for s in texts]), texts


def turn_odd_lines(x):
    """Turns every other line of x [n, 3, H, W] by 180 degrees in place (the
    classifier's label 1), as the OCR pipeline turns a crop and then pads
    it: the zero padding stays on the right, or its side alone would tell
    the orientation. (No column of a rendered line is all 0: its pixels
    are k / 127.5 - 1.)"""
    for line in x[1::2]:
        used = int(np.any(line != 0, axis=(0, 1)).sum())
        line[:, :, :used] = line[:, ::-1, used - 1::-1].copy()
    return x


def charset(path):
    """The recognizer's classes 1..: the model's "character" metadata, then
    the space PaddleOCR appends."""
    m = onnx.load(path, load_external_data=False)
    for p in m.metadata_props:
        if p.key == "character":
            return p.value.splitlines() + [" "]
    raise ValueError(f"{path} has no 'character' metadata")


def ctc_decode(probs, chars):
    """Greedy CTC: per row, the argmax path without repeats and blanks (0)."""
    out = []
    for row in probs.argmax(-1):
        s, prev = [], 0
        for i in row:
            if i != prev and i != 0:
                s.append(chars[i - 1])
            prev = i
        out.append("".join(s))
    return out


def ort_quantizable_copy(path, out):
    """The model as onnxruntime's quantize_static needs it: Constant nodes
    made initializers (quant_pre_process) and opset 13 (per-channel
    DequantizeLinear); the graph is otherwise the same."""
    from onnx import version_converter
    from onnxruntime.quantization.shape_inference import quant_pre_process
    quant_pre_process(path, out, skip_symbolic_shape=True)
    onnx.save(version_converter.convert_version(onnx.load(out), 13), out)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    if not args.check:
        p.print_help()
        return
    import onnxruntime as ort
    path = model_path("rec")
    if path is None:
        raise SystemExit("pip install --no-deps rapidocr_onnxruntime")
    x, texts = render_lines(20, 1)
    probs = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = ctc_decode(probs, charset(path))
    ok = sum(a.replace(" ", "") == b.replace(" ", "") for a, b in zip(texts, got))
    print(f"onnxruntime fp32 reads {ok}/{len(texts)} rendered lines")
    for a, b in list(zip(texts, got))[:5]:
        print(f"  {a!r} -> {b!r}")


if __name__ == "__main__":
    main()
