"""Opt-in end to end on two real trained OCR models: the PaddleOCR models that
the rapidocr_onnxruntime wheel ships (Apache-2.0).

- ch_ppocr_mobile_v2.0_cls_infer.onnx: a MobileNetV3 text-orientation
  classifier, x [N,3,48,192] -> softmax [N,2], class 1 = rotated 180 degrees.
- ch_PP-OCRv4_rec_infer.onnx: a PP-LCNetV3 + SVTR text recognizer,
  x [N,3,48,320] -> [N,40,6625], a softmax per step over a CTC alphabet (the
  model's metadata "character", one per line: class i+1 is line i, class 0 the
  CTC blank, the last class a space).

Their inputs are text lines rendered here with PIL's default font (random
words and numbers, sizes, contrast, a slight skew, noise; fixed seeds), laid
out as PaddleOCR does: resized to height 48 keeping the aspect ratio,
normalized to [-1, 1], zero-padded on the right. Checked:

1. The f32 library of each model matches onnxruntime on 8 such lines:
   relative error max|nunc - ort| / max|ort| <= 1e-4 and the same argmax
   everywhere (so the same decoded text and orientation).
2. Fusion: in `nunc compile --explain`, no standalone div, clip, hard_swish,
   add, sub or batch_norm step is left, and there is a hard_swish epilogue
   per Clip node: both exporters spell hardswish x * clip(x + 3, 0, 6) / 6 and
   batch norm as a scale and a shift (or BatchNormalization), which must all
   end up in the convolutions' epilogues.
3. int8 with static activations, calibrated on 32 other lines (another
   seed), keeps the real accuracy: the recognizer reads the same strings as
   f32 onnxruntime on >= 95 % of 40 lines (argmax per step >= 98 %), and the
   classifier gives f32's orientation on >= 99 % of 100 lines, half of them
   upside down. f32 onnxruntime must itself read the rendered truth (>= 95 %
   both), or the images would prove nothing.

Enabled with NUNC_REAL_MODELS=1 (ctest sets it); needs
`python3 -m pip install --no-deps rapidocr_onnxruntime` (only its model files
are used) and `pillow` (scripts/setup.sh installs both; no network access at
test time).
"""
import importlib.util
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
# find_spec does not import the package (whose own dependencies, opencv...,
# are not installed): only the .onnx files in it are used.
_spec = importlib.util.find_spec("rapidocr_onnxruntime")
if _spec is None:
    pytest.skip("the OCR models are missing: "
                "python3 -m pip install --no-deps rapidocr_onnxruntime", allow_module_level=True)
MODEL_DIR = os.path.join(list(_spec.submodule_search_locations)[0], "models")
Image = pytest.importorskip("PIL.Image")
from PIL import ImageDraw, ImageFont  # noqa: E402

CLS_MODEL = "ch_ppocr_mobile_v2.0_cls_infer.onnx"
REC_MODEL = "ch_PP-OCRv4_rec_infer.onnx"
HEIGHT = 48
REL_TOL = 1e-4
N_F32 = 8  # lines compared element by element with onnxruntime
N_CALIBRATION = 32


def host_has(flag):
    with open("/proc/cpuinfo") as f:
        return flag in f.read().split()


# The int8 kernels of the VNNI target are the ones real deployments use.
TARGET = ("x86_64-avx512vnni" if host_has("avx512_vnni") else
          "x86_64-avx2" if host_has("avx2") else None)
if TARGET is None:
    pytest.skip("needs AVX2 or AVX-512 VNNI", allow_module_level=True)

WORDS = ("invoice total amount paid due date order number customer account balance "
         "tax rate price item quantity street road city phone email shipping").split()


def random_text(rng):
    words = [WORDS[rng.integers(len(WORDS))] if rng.random() < 0.6
             else str(rng.integers(0, 100000)) for _ in range(rng.integers(1, 4))]
    text = " ".join(words)
    return text.upper() if rng.random() < 0.3 else text


def render(text, rng, width, upside_down=False):
    """One text line as the model's input [3, 48, width]."""
    font = ImageFont.load_default(size=int(rng.integers(26, 40)))
    left, top, right, bottom = font.getbbox(text)
    w, h = right - left + 16, bottom - top + 12
    background, ink = int(rng.integers(170, 256)), int(rng.integers(0, 90))
    im = Image.new("L", (w, h), background)
    ImageDraw.Draw(im).text((8 - left, 6 - top), text, fill=ink, font=font)
    # A scanned line is never perfectly level nor clean.
    im = im.rotate(float(rng.normal(0, 1.0)), resample=Image.BILINEAR, fillcolor=background)
    a = np.asarray(im, np.float32) + rng.normal(0, 6, (h, w))
    im = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    # PaddleOCR's resize_norm_img: height 48, aspect kept (width capped),
    # [-1, 1], zeros on the right.
    nw = min(width, int(np.ceil(HEIGHT * w / h)))
    a = np.asarray(im.resize((nw, HEIGHT), Image.BILINEAR), np.float32) / 127.5 - 1
    if upside_down:
        # The pipeline turns the crop, then pads: the padding stays on the
        # right, so the classifier cannot tell the orientation from it.
        a = a[::-1, ::-1]
    x = np.zeros((3, HEIGHT, width), np.float32)
    x[:, :, :nw] = a
    return x


def make_lines(n, seed, width, flip_odd=False):
    rng = np.random.default_rng(seed)
    texts = [random_text(rng) for _ in range(n)]
    x = np.stack([render(t, rng, width, upside_down=flip_odd and i % 2 == 1)
                  for i, t in enumerate(texts)])
    return x, texts


def alphabet(path):
    meta = {p.key: p.value for p in onnx.load(path, load_external_data=False).metadata_props}
    return [""] + meta["character"].splitlines() + [" "]  # class 0: the CTC blank


def ctc_decode(probs, chars):
    """Greedy CTC: argmax per step, merge repeats, drop blanks. Spaces are
    dropped too: the gap between words is read either way."""
    out = []
    for ids in probs.argmax(-1):
        keep = [i for k, i in enumerate(ids) if i != 0 and (k == 0 or i != ids[k - 1])]
        out.append("".join(chars[i] for i in keep).replace(" ", ""))
    return out


def relative_error(ours, ref):
    return float(np.abs(ours.astype(np.float64) - ref).max() / max(np.abs(ref).max(), 1e-30))


class OcrModel:
    """A model, its evaluation lines with the f32 onnxruntime outputs, its
    calibration lines, and its compiled libraries (each compiled once)."""

    def __init__(self, nunc, work, name, width, n_eval, seed, flip_odd):
        self.nunc, self.work, self.width = nunc, work, width
        self.path = os.path.join(MODEL_DIR, name)
        self.x, self.texts = make_lines(n_eval, seed, width, flip_odd)
        self.labels = np.arange(n_eval) % 2 if flip_odd else None
        sess = ort.InferenceSession(self.path, providers=["CPUExecutionProvider"])
        self.ref = sess.run(None, {"x": self.x})[0]
        # Calibration lines from another seed than the evaluation ones.
        xc, _ = make_lines(N_CALIBRATION, seed + 1000, width, flip_odd)
        self.calibration = work / "calibration"
        self.calibration.mkdir()
        for i in range(N_CALIBRATION):
            np.savez(self.calibration / f"s{i:02d}.npz", x=xc[i:i + 1])
        self.libraries = {}

    def compile(self, variant):
        """(program, manifest, --explain output) of the f32 or int8 library."""
        if variant not in self.libraries:
            out = self.work / variant
            options = [] if variant == "f32" else [
                "--quantize", "int8", "--activations", "static",
                "--calibration", self.calibration]
            r = self.nunc("compile", self.path, "--target", TARGET, "--shape",
                          f"x=1x3x{HEIGHT}x{self.width}", "--explain", *options, "-o", out)
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


@pytest.fixture(scope="module")
def cls(nunc, tmp_path_factory):
    return OcrModel(nunc, tmp_path_factory.mktemp("cls"), CLS_MODEL, 192, 100, 3, True)


@pytest.fixture(scope="module")
def rec(nunc, tmp_path_factory):
    return OcrModel(nunc, tmp_path_factory.mktemp("rec"), REC_MODEL, 320, 40, 1, False)


@pytest.fixture(params=["cls", "rec"])
def model(request):
    return request.getfixturevalue(request.param)


def test_f32_library_matches_onnxruntime(model):
    got, want = model.run("f32", N_F32), model.ref[:N_F32]
    assert got.shape == want.shape
    errors = [relative_error(g, w) for g, w in zip(got, want)]
    print(f"{os.path.basename(model.path)}: relative error max {max(errors):.3g}")
    assert max(errors) <= REL_TOL, errors
    differ = np.argwhere(got.argmax(-1) != want.argmax(-1))
    assert differ.size == 0, f"argmax differs at {differ.tolist()}"


STEP = re.compile(r"(kernel|generic)\s+(\S+)\s+(.*?)\s+;\s")
UNFUSED = {"nunc.div", "nunc.clip", "nunc.hard_swish", "nunc.add", "nunc.sub",
           "nunc.batch_norm"}


def test_hard_swish_and_batch_norm_fused_into_convolutions(model):
    _, manifest, explain = model.compile("f32")
    steps = [m.groups() for m in map(STEP.match, explain.splitlines()) if m]
    # The parse must see every step, or an unfused one could slip through.
    total = re.search(r"^(\d+) steps", explain, re.M)
    assert total and len(steps) == int(total.group(1)) == len(manifest["kernels"]), explain
    left = [(op, kernel) for _, op, kernel in steps
            if op in UNFUSED or kernel.startswith(("elementwise.div", "elementwise.clip"))]
    assert not left, left
    clips = sum(n.op_type == "Clip" for n in onnx.load(model.path).graph.node)
    epilogues = sum(op == "nunc.fused_conv" and kernel.endswith("hard_swish")
                    for _, op, kernel in steps)
    assert clips > 0 and epilogues == clips, (epilogues, clips)


def test_int8_static_recognizer_reads_like_f32(rec):
    chars = alphabet(rec.path)
    truth = [t.replace(" ", "") for t in rec.texts]
    f32 = ctc_decode(rec.ref, chars)
    got = rec.run("int8")
    int8 = ctc_decode(got, chars)
    n = len(truth)
    f32_right = sum(a == b for a, b in zip(f32, truth)) / n
    same = sum(a == b for a, b in zip(int8, f32)) / n
    steps = float((got.argmax(-1) == rec.ref.argmax(-1)).mean())
    print(f"recognizer: f32 reads {f32_right:.1%} of the truth; int8 reads f32's string "
          f"on {same:.1%}, argmax per step agrees on {steps:.2%}")
    assert f32_right >= 0.95, [(a, b) for a, b in zip(f32, truth) if a != b]
    assert same >= 0.95, [(a, b) for a, b in zip(int8, f32) if a != b]
    assert steps >= 0.98, steps


def test_int8_static_classifier_turns_like_f32(cls):
    got = cls.run("int8").argmax(-1)
    f32 = cls.ref.argmax(-1)
    f32_right = float((f32 == cls.labels).mean())
    same = float((got == f32).mean())
    print(f"classifier: f32 orientation right on {f32_right:.1%}; int8 agrees with f32 "
          f"on {same:.1%}")
    assert f32_right >= 0.95, f32_right
    assert same >= 0.99, same
