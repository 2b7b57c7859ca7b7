#!/usr/bin/env python3
"""Real trained models for end-to-end tests and benchmarks: PaddleOCR's
text-line recognizer (PP-OCRv4 rec: PP-LCNetV3 convolutions, then SVTR
transformer blocks; CTC over 6625 classes), text-orientation classifier
(ch_ppocr_mobile_v2.0 cls: a MobileNetV3 with hardswish and squeeze-excite
blocks) and text detector (PP-OCRv4 det: DBNet, a MobileNetV3-like backbone,
an FPN neck with nearest Resize, a head with two 2x2 stride-2 ConvTranspose;
out a [N, 1, H, W] text probability map), as the PyPI wheel
``rapidocr_onnxruntime`` ships them (Apache-2.0). Only the .onnx files are
used: install it with ``pip install --no-deps``.

paddle2onnx wrote them with unknown dims (-1 and "?"), the conv's scale and
shift (PP-LCNetV3's learnable affine blocks) as separate Mul/Add, and
hardswish as x * clip(x + 3, 0, 6) / 6: what nunc's fusions must take.

Inputs are text lines rendered here with Pillow's default font (random
words and numbers, jitter, noise), normalized as PaddleOCR does
((x / 255 - 0.5) / 0.5), left-aligned and zero-padded to the input width.
The detector's are pages (256 x 320 by default; DBNet takes multiples of
32) with about 4 such lines each at random places, apart, font sizes 13-32
(ink 9-31 px tall), random colours on a tinted background with a gradient
and noise; in BGR, as rapidocr reads images with cv2, and normalized as its
det config says (the same (x / 255 - 0.5) / 0.5; PaddleOCR's own config
has ImageNet's mean and std). The truth is the lines' ink boxes.
``db_boxes`` is DBNet's post-processing cut down to axis-aligned boxes
(threshold, 8-connected components, score filter, unclip): enough to
compare detections.

Importable: ``model_path(name)`` ("rec", "cls" or "det"), ``INPUT_SHAPE``,
``render_lines(n, seed, width)``, ``turn_odd_lines(x)``, ``charset(path)``,
``ctc_decode(probs, chars)``, ``render_pages(n, seed, height, width)``,
``db_boxes(prob_map)``, ``TRUTH_UNCLIP_RATIO``, ``box_iou(a, b)``,
``box_match(a, b, iou)``, ``ort_quantizable_copy(path, out)``.

Usage: python3 real_ocr.py --check   (fp32 onnxruntime reads the rendered lines
                                      and finds them on rendered pages)
"""

from __future__ import annotations

import argparse
import importlib.util
import os

import numpy as np
import onnx

MODEL_FILES = {"rec": "ch_PP-OCRv4_rec_infer.onnx", "cls": "ch_ppocr_mobile_v2.0_cls_infer.onnx",
               "det": "ch_PP-OCRv4_det_infer.onnx"}
# [C, H, W] each model is run at (rapidocr's config: rec_img_shape, cls_image_shape;
# the detector takes any multiple of 32: a small page here, to keep tests short).
INPUT_SHAPE = {"rec": (3, 48, 320), "cls": (3, 48, 192), "det": (3, 256, 320)}
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


def _page(rng, height, width):
    """One page [3, height, width] (normalized, BGR) and its lines' ink boxes."""
    from PIL import Image, ImageDraw, ImageFont
    bg = rng.integers(165, 256, 3)
    im = Image.new("RGB", (width, height), tuple(int(c) for c in bg))
    draw = ImageDraw.Draw(im)
    boxes = []
    for _ in range(int(rng.integers(4, 10))):  # tries; the ones that fit stay
        s = _text(rng)
        font = ImageFont.load_default(size=int(rng.integers(13, 33)))
        left, top, right, bottom = draw.textbbox((0, 0), s, font=font)
        while right - left > width - 16 and " " in s:  # too long: drop the last word
            s = s.rsplit(" ", 1)[0]
            left, top, right, bottom = draw.textbbox((0, 0), s, font=font)
        w, h = right - left, bottom - top
        if w > width - 16:
            continue
        x = int(rng.integers(8, width - 8 - w + 1))
        y = int(rng.integers(8, height - 8 - h + 1))
        box = (x, y, x + w, y + h)
        # Apart by twice the taller line's height in x and by half of it
        # (6 px at least) in y, or DBNet sees one line (as a reader would).
        if any(box[0] < b[2] + 2 * tall and b[0] < box[2] + 2 * tall and
               box[1] < b[3] + max(6, tall // 2) and b[1] < box[3] + max(6, tall // 2)
               for b in boxes for tall in [max(h, b[3] - b[1])]):
            continue
        fg = tuple(int(c) for c in rng.integers(0, 100, 3))
        draw.text((x - left, y - top), s, fill=fg, font=font)
        boxes.append(box)
    a = np.asarray(im, np.float32)
    ramp = np.linspace(0, rng.uniform(-40, 20), width, dtype=np.float32)  # uneven lighting
    a = a + ramp[None, :, None] + rng.normal(0, 6, a.shape)
    a = np.clip(a, 0, 255).round()[:, :, ::-1]  # RGB -> BGR, as cv2 reads images
    x = ((a / 255 - 0.5) / 0.5).transpose(2, 0, 1)
    return x.astype(np.float32), np.array(boxes, np.float64).reshape(-1, 4)


def render_pages(n, seed, height=256, width=320):
    """n rendered pages [n, 3, height, width] (float32, BGR, normalized as
    rapidocr's det does) and per page the lines' ink boxes [k, 4]
    (x0, y0, x1, y1; pixel edges, x1 and y1 exclusive). Lines keep apart
    (by twice the taller one's height in x, half of it in y, 6 px at least)."""
    rng = np.random.default_rng(seed)
    pages = [_page(rng, height, width) for _ in range(n)]
    return np.stack([p[0] for p in pages]), [p[1] for p in pages]


def _components(mask):
    """The 8-connected components of a 2-D bool mask, as runs: (rows, starts,
    ends (exclusive), component index per run, number of components)."""
    h, w = mask.shape
    padded = np.zeros((h, w + 2), np.int8)
    padded[:, 1:-1] = mask
    d = np.diff(padded, axis=1)
    rows, starts = np.nonzero(d == 1)
    ends = np.nonzero(d == -1)[1]  # row-major, so paired with starts
    parent = list(range(len(rows)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first = np.searchsorted(rows, np.arange(h + 1))  # runs of row r: first[r]:first[r+1]
    for r in range(1, h):
        i, i_end = first[r - 1], first[r]
        j, j_end = first[r], first[r + 1]
        while i < i_end and j < j_end:  # both rows' runs in order: a merge
            if starts[i] <= ends[j] and starts[j] <= ends[i]:  # touch, diagonals too
                a, b = find(i), find(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            if ends[i] < ends[j]:
                i += 1
            else:
                j += 1
    roots = np.array([find(i) for i in range(len(rows))], np.int64)
    _, label = np.unique(roots, return_inverse=True)
    return rows, starts, ends, label.reshape(-1), int(label.max() + 1) if len(label) else 0


# The truth boxes are the ink's; DBNet's kernels are the text lines shrunk
# less than its unclip_ratio 1.6 grows them back (its training labels are
# looser than the ink): with 1.6 the boxes stick out by about a quarter of
# the line height on every side (median IoU with the ink 0.64), with 0.8
# they fit it (0.85). Compare with the truth at this ratio.
TRUTH_UNCLIP_RATIO = 0.8


def db_boxes(prob_map, thresh=0.3, box_thresh=0.5, unclip_ratio=1.6, min_size=3):
    """Text boxes [k, 4] (x0, y0, x1, y1, floats, sorted by y0 then x0) from
    one DBNet probability map [H, W] (or [1, H, W], [1, 1, H, W]), as
    PaddleOCR's DBPostProcess finds them but axis-aligned: pixels above
    thresh, 8-connected components, their bounding boxes; a component whose
    box has a side below min_size or whose mean probability is below
    box_thresh is dropped; the box then grows by area * unclip_ratio /
    perimeter on every side (DB's kernels are the text shrunk by about that)."""
    prob = np.asarray(prob_map, np.float64).reshape(prob_map.shape[-2:])
    rows, starts, ends, label, n = _components(prob > thresh)
    if n == 0:
        return np.zeros((0, 4))
    sums = np.zeros((prob.shape[0], prob.shape[1] + 1))
    np.cumsum(prob, axis=1, out=sums[:, 1:])
    run_score = sums[rows, ends] - sums[rows, starts]
    x0 = np.full(n, np.inf)
    y0 = np.full(n, np.inf)
    x1 = np.full(n, -np.inf)
    y1 = np.full(n, -np.inf)
    np.minimum.at(x0, label, starts)
    np.minimum.at(y0, label, rows)
    np.maximum.at(x1, label, ends)
    np.maximum.at(y1, label, rows + 1)
    area = np.bincount(label, ends - starts, n)
    score = np.bincount(label, run_score, n) / area
    w, h = x1 - x0, y1 - y0
    keep = (np.minimum(w, h) >= min_size) & (score >= box_thresh)
    grow = (w * h * unclip_ratio / (2 * (w + h)))[keep]
    boxes = np.stack([x0[keep] - grow, y0[keep] - grow, x1[keep] + grow, y1[keep] + grow], 1)
    return boxes[np.lexsort((boxes[:, 0], boxes[:, 1]))]


def box_iou(a, b):
    """IoU of every box of a [m, 4] with every box of b [n, 4]: [m, n]."""
    a, b = np.asarray(a, np.float64).reshape(-1, 4), np.asarray(b, np.float64).reshape(-1, 4)
    w = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    h = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    inter = np.clip(w, 0, None) * np.clip(h, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-12)


def box_match(a, b, iou=0.5):
    """One-to-one pairs (i, j) of boxes a[i], b[j] with IoU >= iou, the
    best-overlapping pairs first (greedy)."""
    m = box_iou(a, b)
    pairs = []
    while m.size and m.max() >= iou:
        i, j = np.unravel_index(int(m.argmax()), m.shape)
        pairs.append((int(i), int(j)))
        m[i, :] = -1
        m[:, j] = -1
    return pairs


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
    path = model_path("det")
    x, truth = render_pages(20, 1, *INPUT_SHAPE["det"][1:])
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    found = matched = lines = 0
    for page, want in zip(x, truth):
        prob = sess.run(None, {"x": page[None]})[0]
        boxes = db_boxes(prob, unclip_ratio=TRUTH_UNCLIP_RATIO)
        found += len(boxes)
        lines += len(want)
        matched += len(box_match(boxes, want))
    print(f"onnxruntime fp32 finds {matched}/{lines} rendered lines on {len(x)} pages "
          f"(IoU >= 0.5, one box each), {found - matched} other boxes")


if __name__ == "__main__":
    main()
