"""Opt-in end to end on three real trained OCR models: the PaddleOCR models that
the rapidocr_onnxruntime wheel ships (Apache-2.0).

- ch_ppocr_mobile_v2.0_cls_infer.onnx: a MobileNetV3 text-orientation
  classifier, x [N,3,48,192] -> softmax [N,2], class 1 = rotated 180 degrees.
- ch_PP-OCRv4_rec_infer.onnx: a PP-LCNetV3 + SVTR text recognizer,
  x [N,3,48,320] -> [N,40,6625], a softmax per step over a CTC alphabet (the
  model's metadata "character", one per line: class i+1 is line i, class 0 the
  CTC blank, the last class a space).
- ch_PP-OCRv4_det_infer.onnx: a DBNet text detector (MobileNetV3-like
  backbone, FPN neck with 6 nearest Resize, a head with 2 ConvTranspose
  2x2 stride 2), x [N,3,H,W] (H, W multiples of 32; 256 x 320 here) ->
  [N,1,H,W], the probability that a pixel is text.

Their inputs are text lines rendered with Pillow's default font by
examples/models/real_ocr.py (random words and numbers, sizes, contrast, a
slight skew, noise; fixed seeds here), laid out as PaddleOCR does: resized to
height 48 keeping the aspect ratio, normalized to [-1, 1], zero-padded on the
right; for the detector, pages of a few such lines at random places, the
lines' ink boxes as the truth, normalized as rapidocr's det config does (BGR,
the same [-1, 1]); its boxes are DBNet's post-processing cut down to
axis-aligned boxes (`real_ocr.db_boxes`: probability > 0.3, 8-connected
components, unclipped). Checked:

1. The f32 library of each model matches onnxruntime on 8 such lines:
   relative error max|nunc - ort| / max|ort| <= 1e-4, every probability
   above 1e-9 within 1e-3 of its own value (the softmax saturates), and the
   same argmax everywhere (so the same decoded text and orientation).
2. Fusion: in `nunc compile --explain`, no standalone div, clip, hard_swish,
   hard_sigmoid, add, sub or batch_norm step is left, and there is a
   hard_swish epilogue per Clip node: paddle2onnx spells hardswish
   x * clip(x + 3, 0, 6) / 6 and batch norm as BatchNormalization or a
   separate scale and shift (Mul, Add), which must all end up in the
   convolutions' epilogues.
3. int8 with static activations, calibrated on 32 other lines (another
   seed), keeps the real accuracy: the recognizer reads the same strings as
   f32 onnxruntime on >= 95 % of 40 lines (argmax per step >= 98 %), and the
   classifier gives f32's orientation on >= 99 % of 100 lines, half of them
   upside down, with about f32's confidence (median log-odds drift <= 1).
   f32 onnxruntime must itself read the rendered truth (>= 95 % both), or
   the images would prove nothing.
4. The detector: f32 onnxruntime finds the rendered lines (>= 95 % of them,
   one box each, IoU >= 0.5; 100 % measured); the f32 library's probability
   map matches onnxruntime's (relative error <= 1e-4 as above) on 8 pages,
   with the same boxes; int8 with static activations, calibrated on 8 other
   pages, keeps f32's text bitmap (>= 99 % of the pixels, IoU of the text
   pixels >= 0.9) and boxes (>= 95 % matched both ways) on 16 pages; in
   `--explain`, the Resize ops run as resize steps and the ConvTranspose ops
   through col2im.

Enabled with NUNC_REAL_MODELS=1 (ctest sets it); needs
`python3 -m pip install --no-deps rapidocr_onnxruntime` (only its model files
are used) and `pillow` (scripts/setup.sh installs both; no network access at
test time).
"""
import os
import re

import harness
import numpy as np
import onnx
import onnxruntime as ort
import pytest

if os.environ.get("NUNC_REAL_MODELS") != "1":
    pytest.skip("real-model tests are opt-in: set NUNC_REAL_MODELS=1",
                allow_module_level=True)
pytest.importorskip("PIL")
from PIL import features  # noqa: E402

if not features.check("freetype2"):  # the scalable default font needs it
    pytest.skip("pillow lacks FreeType: python3 -m pip install pillow", allow_module_level=True)

import real_ocr  # noqa: E402  (examples/models, put on sys.path by conftest)

if any(real_ocr.model_path(name) is None for name in ("rec", "cls", "det")):
    pytest.skip("the OCR models are missing: "
                "python3 -m pip install --no-deps rapidocr_onnxruntime", allow_module_level=True)

REL_TOL = 1e-4
N_F32 = 8  # lines compared element by element with onnxruntime
N_CALIBRATION = 32
N_DET_F32 = 8  # pages compared element by element with onnxruntime
N_DET = 16  # pages whose int8 bitmaps and boxes are compared with f32's
N_DET_CALIBRATION = 8  # few: the calibration runs nunc's evaluator on every page
DB_THRESH = 0.3  # rapidocr's det "thresh": a pixel above it is text


def host_has(flag):
    with open("/proc/cpuinfo") as f:
        return flag in f.read().split()


# The int8 kernels of the VNNI target are the ones real deployments use.
TARGET = ("x86_64-avx512vnni" if host_has("avx512_vnni") else
          "x86_64-avx2" if host_has("avx2") else None)
if TARGET is None:
    pytest.skip("needs AVX2 or AVX-512 VNNI", allow_module_level=True)


def make_lines(n, seed, width, flip_odd=False):
    """n rendered lines [n, 3, 48, width] and their texts; with flip_odd,
    every other line is turned 180 degrees (label 1)."""
    x, texts = real_ocr.render_lines(n, seed, width)
    if flip_odd:
        real_ocr.turn_odd_lines(x)
    return x, texts


def read(probs, chars):
    """The recognizer's strings (greedy CTC), spaces dropped: the gap
    between two words is read either way."""
    return [s.replace(" ", "") for s in real_ocr.ctc_decode(probs, chars)]


def relative_error(ours, ref):
    return float(np.abs(ours.astype(np.float64) - ref).max() / max(np.abs(ref).max(), 1e-30))


class OcrModel:
    """A model, its evaluation inputs x with the f32 onnxruntime outputs,
    its calibration inputs, and its compiled libraries (each compiled once).
    Lines (rec, cls) or pages (det): see line_model and the det fixture."""

    def __init__(self, nunc, work, name, x, calibration_x):
        self.nunc, self.work, self.name = nunc, work, name
        self.shape = real_ocr.INPUT_SHAPE[name]
        self.path = real_ocr.model_path(name)
        self.x = x
        sess = ort.InferenceSession(self.path, providers=["CPUExecutionProvider"])
        self.ref = sess.run(None, {"x": self.x})[0]
        self.calibration = work / "calibration"
        self.calibration.mkdir()
        for i in range(len(calibration_x)):
            np.savez(self.calibration / f"s{i:02d}.npz", x=calibration_x[i:i + 1])
        self.libraries = {}

    def compile(self, variant):
        """(program, manifest, --explain output) of the f32 or int8 library."""
        if variant not in self.libraries:
            out = self.work / variant
            options = [] if variant == "f32" else [
                "--quantize", "int8", "--activations", "static",
                "--calibration", self.calibration]
            r = self.nunc("compile", self.path, "--target", TARGET, "--shape",
                          "x=" + "x".join(map(str, (1, *self.shape))), "--explain",
                          *options, "-o", out)
            exe, manifest = harness.build(str(out))
            self.libraries[variant] = exe, manifest, r.stdout
        return self.libraries[variant]

    def run(self, variant, n=None):
        """The library's outputs on the first n evaluation lines, one process each."""
        exe, manifest, _ = self.compile(variant)
        (output,) = [o["name"] for o in manifest["outputs"]]
        ys = []
        for i in range(len(self.x) if n is None else n):
            outs, _, log = harness.run(exe, manifest, {"x": self.x[i:i + 1]},
                                       str(self.work / variant / "w"))
            assert outs is not None, log
            ys.append(outs[output])
        return np.concatenate(ys)


def line_model(nunc, work, name, n_eval, seed, flip_odd):
    """The recognizer or classifier on n_eval lines (texts, and labels with
    flip_odd), calibrated on lines from another seed."""
    width = real_ocr.INPUT_SHAPE[name][2]
    x, texts = make_lines(n_eval, seed, width, flip_odd)
    xc, _ = make_lines(N_CALIBRATION, seed + 1000, width, flip_odd)
    model = OcrModel(nunc, work, name, x, xc)
    model.texts = texts
    model.labels = np.arange(n_eval) % 2 if flip_odd else None
    return model


@pytest.fixture(scope="module")
def cls(nunc, tmp_path_factory):
    return line_model(nunc, tmp_path_factory.mktemp("cls"), "cls", 100, 3, True)


@pytest.fixture(scope="module")
def rec(nunc, tmp_path_factory):
    return line_model(nunc, tmp_path_factory.mktemp("rec"), "rec", 40, 1, False)


@pytest.fixture(scope="module")
def det(nunc, tmp_path_factory):
    """The detector on N_DET pages (truth: their lines' ink boxes),
    calibrated on pages from another seed."""
    height, width = real_ocr.INPUT_SHAPE["det"][1:]
    x, truth = real_ocr.render_pages(N_DET, 5, height, width)
    xc, _ = real_ocr.render_pages(N_DET_CALIBRATION, 1005, height, width)
    model = OcrModel(nunc, tmp_path_factory.mktemp("det"), "det", x, xc)
    model.truth = truth
    return model


@pytest.fixture(params=["cls", "rec"])
def model(request):
    return request.getfixturevalue(request.param)


def test_f32_library_matches_onnxruntime(model):
    got, want = model.run("f32", N_F32), model.ref[:N_F32]
    assert got.shape == want.shape
    errors = [relative_error(g, w) for g, w in zip(got, want)]
    assert max(errors) <= REL_TOL, errors
    # The softmax saturates (the classifier's winner mostly rounds to 1.0),
    # so the error above only sees the winning class: the small
    # probabilities must agree too, relatively (measured ~1e-4 and ~1e-5).
    big = want > 1e-9
    small = float((np.abs(got.astype(np.float64) - want)[big] / want[big]).max())
    print(f"{os.path.basename(model.path)}: relative error {max(errors):.3g}, "
          f"of the probabilities above 1e-9 {small:.3g}")
    assert small <= 1e-3, f"probabilities above 1e-9 differ by {small:.3g} (relative)"
    # Top-2 gaps here are >= 6e-4, beyond the 2e-4 that the error allows.
    differ = np.argwhere(got.argmax(-1) != want.argmax(-1))
    assert differ.size == 0, f"argmax differs at {differ.tolist()}"


STEP = re.compile(r"(kernel|generic)\s+(\S+)\s+(.*?)\s+;\s")
UNFUSED = {"nunc.div", "nunc.clip", "nunc.hard_swish", "nunc.hard_sigmoid", "nunc.add",
           "nunc.sub", "nunc.batch_norm"}


def explained_steps(model, variant):
    """(kind, op, kernel) of every step that `--explain` lists."""
    _, manifest, explain = model.compile(variant)
    steps = [m.groups() for m in map(STEP.match, explain.splitlines()) if m]
    # The parse must see every step, or an unfused one could slip through.
    total = re.search(r"^(\d+) steps", explain, re.M)
    assert total and len(steps) == int(total.group(1)) == len(manifest["kernels"]), explain
    return steps


def test_hard_swish_and_batch_norm_fused_into_convolutions(model):
    steps = explained_steps(model, "f32")
    left = [(op, kernel) for _, op, kernel in steps
            if op in UNFUSED or kernel.startswith(("elementwise.div", "elementwise.clip"))]
    assert not left, left
    clips = sum(n.op_type == "Clip" for n in onnx.load(model.path).graph.node)
    epilogues = sum("conv" in op and kernel.endswith((" hard_swish", " hard_swish +post"))
                    for _, op, kernel in steps)
    assert clips > 0 and epilogues == clips, (epilogues, clips)
    # PP-LCNetV3's learnable affine block after the hardswish (a scalar Mul
    # and Add) is the epilogue's post Mul/Add; the classifier has none.
    posts = sum(kernel.endswith(" +post") for _, _, kernel in steps)
    assert (posts > 0) == (model.name == "rec"), posts


def assert_convolutions_in_int8(model):
    """Or the comparisons with f32 would prove nothing. Depthwise ones and
    the squeeze-excitation ones on 1x1 maps stay f32 by design: 28 of 42 in
    the classifier, 23 of 24 in the recognizer run in int8."""
    dense = [kernel for _, op, kernel in explained_steps(model, "int8")
             if "conv" in op and not kernel.startswith("depthwise")]
    int8 = [kernel for kernel in dense if kernel.startswith("conv.int8")]
    assert len(int8) >= len(dense) / 2, dense


# The AVX2 target has no int8 convolution kernels: they would all stay f32.
needs_vnni = pytest.mark.skipif(TARGET != "x86_64-avx512vnni",
                                reason="int8 convolutions need AVX-512 VNNI")


@needs_vnni
def test_int8_static_recognizer_reads_like_f32(rec):
    assert_convolutions_in_int8(rec)
    chars = real_ocr.charset(rec.path)
    truth = [t.replace(" ", "") for t in rec.texts]
    f32 = read(rec.ref, chars)
    got = rec.run("int8")
    int8 = read(got, chars)
    n = len(truth)
    f32_right = sum(a == b for a, b in zip(f32, truth)) / n
    same = sum(a == b for a, b in zip(int8, f32)) / n
    steps = float((got.argmax(-1) == rec.ref.argmax(-1)).mean())
    print(f"recognizer: f32 reads {f32_right:.1%} of the truth; int8 reads f32's string "
          f"on {same:.1%}, argmax per step agrees on {steps:.2%}")
    assert f32_right >= 0.95, [(a, b) for a, b in zip(f32, truth) if a != b]
    assert same >= 0.95, [(a, b) for a, b in zip(int8, f32) if a != b]
    # 98.5 % here; mostly a character one CTC step earlier or later, which
    # keeps the string. A calibration on blank images gives 95.9 %.
    assert steps >= 0.975, steps


@needs_vnni
def test_int8_static_classifier_turns_like_f32(cls):
    assert_convolutions_in_int8(cls)
    probs = cls.run("int8")
    got, f32 = probs.argmax(-1), cls.ref.argmax(-1)
    f32_right = float((f32 == cls.labels).mean())
    same = float((got == f32).mean())
    # The classifier is so sure (its winner mostly rounds to 1.0) that even
    # ranges calibrated on blank images keep every answer: its confidence
    # shows the damage. Median |log-odds(int8) - log-odds(f32)|: measured
    # 0.23 (0.33 when every depthwise conv read a u8 grid, before the SNR
    # gate of the handover); 17 with that blank calibration.
    log_odds = [np.log(np.maximum(p[:, 1].astype(np.float64), 1e-38) /
                       np.maximum(p[:, 0].astype(np.float64), 1e-38)) for p in (probs, cls.ref)]
    drift = float(np.median(np.abs(log_odds[0] - log_odds[1])))
    print(f"classifier: f32 orientation right on {f32_right:.1%}; int8 agrees with f32 "
          f"on {same:.1%}, median log-odds drift {drift:.3g}")
    assert f32_right >= 0.95, f32_right
    assert same >= 0.99, same
    assert drift <= 1.0, drift


class Samples:
    """An onnxruntime CalibrationDataReader over fixed feeds."""

    def __init__(self, feeds):
        self.feeds = list(feeds)

    def get_next(self):
        return self.feeds.pop() if self.feeds else None


@needs_vnni
@pytest.mark.parametrize("name,fmt", [("cls", "QDQ"), ("rec", "QDQ"), ("det", "QDQ"),
                                      ("det", "QOperator")])
def test_onnxruntime_qdq_model_equals_onnxruntime(nunc, tmp_path, name, fmt):
    """The model as onnxruntime's quantize_static writes it (QDQ, u8
    activations, s8 weights per channel, calibrated on 2 other inputs):
    nunc's library equals onnxruntime's run bit for bit on 2 inputs. Each
    op between pairs computes as onnxruntime's QLinear kernel does: convs
    (QLinearConv), the SE blocks' pools (QLinearGlobalAveragePool), the
    recognizer's 3x2 AveragePool (QLinearAveragePool: a division, the zero
    point added before the rounding), its SVTR attention and the CTC
    Softmax over 6625 classes, the classifier's Softmax (QLinearSoftmax),
    the Adds and Muls (QLinearAdd, QLinearMul), the LayerNorms (MLAS's
    f32 order). The detector's QOperator form too: its head's first
    ConvTranspose keeps an f32 weight between pairs, which onnxruntime
    quantizes when it loads the model, as nunc does
    (nunc-quantize-float-weights-and-biases), and its FPN adds codes that
    nearest Resizes moved (QLinearAdd)."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    if name == "det":
        height, width = real_ocr.INPUT_SHAPE["det"][1:]
        x, _ = real_ocr.render_pages(4, 7, height, width)
    else:
        x, _ = make_lines(4, 7, real_ocr.INPUT_SHAPE[name][2])
    x = np.asarray(x, np.float32)
    pre, q = str(tmp_path / "pre.onnx"), str(tmp_path / f"{name}_{fmt.lower()}.onnx")
    real_ocr.ort_quantizable_copy(real_ocr.model_path(name), pre)
    quantize_static(pre, q, Samples({"x": x[i:i + 1]} for i in range(2)),
                    quant_format=getattr(QuantFormat, fmt), activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True)
    shape = "x".join(map(str, (1, *real_ocr.INPUT_SHAPE[name])))
    nunc("compile", q, "--target", TARGET, "--shape", f"x={shape}", "-o", tmp_path / "out")
    exe, manifest = harness.build(str(tmp_path / "out"))
    sess = ort.InferenceSession(q, providers=["CPUExecutionProvider"])
    for i in (2, 3):
        outs, _, log = harness.run(exe, manifest, {"x": x[i:i + 1]}, str(tmp_path / "w"))
        assert outs is not None, log
        got, want = next(iter(outs.values())), sess.run(None, {"x": x[i:i + 1]})[0]
        assert np.array_equal(got, want), (i, float(np.mean(got == want)),
                                           float(np.abs(got - want).max()))


def test_onnxruntime_finds_the_rendered_lines(det):
    """Or the detector's pages would prove nothing: f32 onnxruntime finds
    each rendered line once (measured: all 63 on the 16 pages, no other box)."""
    found = matched = 0
    for prob, truth in zip(det.ref, det.truth):
        boxes = real_ocr.db_boxes(prob, DB_THRESH, unclip_ratio=real_ocr.TRUTH_UNCLIP_RATIO)
        found += len(boxes)
        matched += len(real_ocr.box_match(boxes, truth))
    lines = sum(map(len, det.truth))
    print(f"detector: f32 onnxruntime finds {matched} of {lines} lines, "
          f"{found - matched} other boxes")
    assert matched >= 0.95 * lines and found - matched <= 0.05 * lines, (matched, found, lines)


def test_f32_detector_matches_onnxruntime(det):
    got, want = det.run("f32", N_DET_F32), det.ref[:N_DET_F32]
    assert got.shape == want.shape
    errors = [relative_error(g, w) for g, w in zip(got, want)]  # max|want| is about 1
    flips = [int(((g > DB_THRESH) != (w > DB_THRESH)).sum()) for g, w in zip(got, want)]
    print(f"detector f32: relative error {max(errors):.3g}, "
          f"pixels on the other side of {DB_THRESH}: {sum(flips)}")
    assert max(errors) <= REL_TOL, errors
    for i, (g, w) in enumerate(zip(got, want)):
        # Only a pixel within the error of the threshold may turn, and the
        # boxes are the same (a pixel turning at a component's edge would
        # move one box by a pixel: none measured).
        turned = (g > DB_THRESH) != (w > DB_THRESH)
        assert np.all(np.abs(w[turned] - DB_THRESH) <= REL_TOL), i
        ours, theirs = real_ocr.db_boxes(g, DB_THRESH), real_ocr.db_boxes(w, DB_THRESH)
        assert ours.shape == theirs.shape and np.array_equal(ours, theirs), (i, ours, theirs)


def test_detector_resize_and_conv_transpose_lowered(det):
    """The FPN's nearest Resize ops run as resize steps, the head's
    ConvTranspose ops as a convolution whose columns col2im adds up."""
    steps = explained_steps(det, "f32")
    named = " ".join(f"{op} {kernel}" for _, op, kernel in steps).lower()
    assert "resize" in named and "col2im" in named, sorted({op for _, op, _ in steps})


@needs_vnni
def test_int8_static_detector_finds_like_f32(det):
    assert_convolutions_in_int8(det)
    got = det.run("int8")
    ours, f32 = got > DB_THRESH, det.ref > DB_THRESH
    agree = float((ours == f32).mean())
    # Text is some 5 % of a page: the IoU of the text pixels tells more.
    iou = float((ours & f32).sum() / max((ours | f32).sum(), 1))
    matched = found = f32_boxes = 0
    for g, w in zip(got, det.ref):
        a, b = real_ocr.db_boxes(g, DB_THRESH), real_ocr.db_boxes(w, DB_THRESH)
        matched += len(real_ocr.box_match(a, b))
        found += len(a)
        f32_boxes += len(b)
    print(f"detector int8: {agree:.2%} of the pixels as f32 (text pixels IoU {iou:.3f}), "
          f"boxes matched {matched} of f32's {f32_boxes} (int8 finds {found})")
    # onnxruntime's quantize_static model (QDQ, per-channel, MinMax on the
    # same 8 pages), on these pages: 99.74 % of the pixels, IoU 0.954, all
    # 63 boxes (each within 2 px of f32's).
    assert agree >= 0.99, agree
    assert iou >= 0.9, iou
    assert matched >= 0.95 * f32_boxes and matched >= 0.95 * found, (matched, f32_boxes, found)
