#!/usr/bin/env python3
"""nunc vs onnxruntime on real trained models: PaddleOCR's text recognizer
(PP-OCRv4 rec, 48 x 320 lines), orientation classifier (mobile v2.0 cls,
48 x 192) and text detector (PP-OCRv4 det, DBNet, 256 x 320 pages), from the
PyPI wheel rapidocr_onnxruntime (examples/models/real_ocr.py).

Batch 1, one thread, both engines alternating in --blocks blocks of runs in
one run of this script; p50 with min and max (ms). Rows:
  f32:  nunc's library vs onnxruntime on the model as shipped;
  int8: `nunc compile --quantize int8 --activations static` calibrated on 32
        rendered lines (detector: 16 pages) vs onnxruntime's quantize_static
        (QDQ, per-channel s8 weights, u8 activations, MinMax on the same
        inputs) of the pre-processed model, run by onnxruntime;
  qdq:  that QDQ model on both engines (nunc imports its Q/DQ pairs).
Accuracy on --samples fresh rendered lines (classifier: every other one
turned 180 degrees) or pages: the recognizer's text (spaces ignored) against
the rendered truth and against f32's, the per-step argmax agreement with f32;
the classifier's orientation (against the turn) and top-1 agreement with f32;
the detector's boxes (real_ocr.db_boxes) matched one to one at IoU >= 0.5
with the rendered lines' and with f32 onnxruntime's, and its text bitmap
(probability > 0.3) against f32's: the pixels that agree, and the IoU of the
text pixels.

Usage: python3 bench/real_ocr.py [--build build] [--runs 200] [--samples 100]
                                 [--models rec,cls,det]
Needs: pip install --no-deps rapidocr_onnxruntime; pip install pillow.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "models"))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
import harness  # noqa: E402
import real_ocr  # noqa: E402


def session(path):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def ort_times(sess, x, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sess.run(None, {"x": x})
        times.append(time.perf_counter() - t0)
    return times


def summary(times):
    t = np.array(times) * 1e3
    return float(np.median(t)), float(t.min()), float(t.max())


class Library:
    """A compiled model and its C driver."""

    def __init__(self, nunc, model, shape, out, extra):
        subprocess.run([nunc, "compile", model, "--shape", "x=1x" + "x".join(map(str, shape)),
                        "-o", out] + extra, check=True, capture_output=True)
        self.exe, self.manifest = harness.build(out)
        self.work = os.path.join(out, "work")

    def run(self, x, repeat=1):
        outs, times, log = harness.run(self.exe, self.manifest, {"x": x}, self.work,
                                       repeat=repeat)
        if outs is None:
            raise RuntimeError(log)
        return next(iter(outs.values())), list(times)


def inputs(name, samples):
    """(calibration inputs, evaluation inputs, truth) of a model; truth: the
    recognizer's texts, the classifier's labels, the detector's line boxes."""
    shape = real_ocr.INPUT_SHAPE[name]
    if name == "det":
        calib, _ = real_ocr.render_pages(16, 100, *shape[1:])
        x, boxes = real_ocr.render_pages(samples, 7, *shape[1:])
        return calib, x, boxes
    calib, _ = real_ocr.render_lines(32, 100, width=shape[2])
    x, texts = real_ocr.render_lines(samples, 7, width=shape[2])
    if name == "rec":
        return calib, x, texts
    real_ocr.turn_odd_lines(calib)
    real_ocr.turn_odd_lines(x)
    return calib, x, np.arange(len(x)) % 2


def accuracy(name, path, y, ref, truth):
    """The table's (right (truth), text or boxes as f32, argmax or pixels as f32)."""
    n = len(y)
    if name == "rec":
        chars = real_ocr.charset(path)
        got = [s.replace(" ", "") for s in real_ocr.ctc_decode(y, chars)]
        want = [s.replace(" ", "") for s in real_ocr.ctc_decode(ref, chars)]
        right = sum(g == t.replace(" ", "") for g, t in zip(got, truth))
        same = sum(g == w for g, w in zip(got, want))
        step = float((y.argmax(-1) == ref.argmax(-1)).mean())
        return f"{right}/{n}", f"{same}/{n}", f"{step * 100:.2f} %"
    if name == "cls":
        step = float((y.argmax(-1) == ref.argmax(-1)).mean())
        return f"{int((y.argmax(-1) == truth).sum())}/{n}", "", f"{step * 100:.2f} %"
    right = lines = same = boxes = 0
    for page, page_ref, want in zip(y, ref, truth):
        found = real_ocr.db_boxes(page, unclip_ratio=real_ocr.TRUTH_UNCLIP_RATIO)
        right += len(real_ocr.box_match(found, want))
        lines += len(want)
        f32 = real_ocr.db_boxes(page_ref)
        same += len(real_ocr.box_match(real_ocr.db_boxes(page), f32))
        boxes += len(f32)
    ours, f32 = y > 0.3, ref > 0.3
    iou = (ours & f32).sum() / max((ours | f32).sum(), 1)
    return (f"{right}/{lines}", f"{same}/{boxes}",
            f"{(ours == f32).mean() * 100:.2f} % (IoU {iou:.3f})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--blocks", type=int, default=4)
    p.add_argument("--samples", type=int, default=100)
    p.add_argument("--models", default="rec,cls,det", help="a subset of rec,cls,det")
    args = p.parse_args()
    nunc = os.path.join(args.build, "bin", "nunc")
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    rows, accuracy_rows = [], []
    tmp = tempfile.mkdtemp(prefix="nunc-real-ocr-")
    for name in args.models.split(","):
        path = real_ocr.model_path(name)
        if path is None:
            raise SystemExit("pip install --no-deps rapidocr_onnxruntime")
        shape = real_ocr.INPUT_SHAPE[name]
        calib, x, truth = inputs(name, args.samples)
        cal_dir = os.path.join(tmp, f"{name}_calibration")
        os.makedirs(cal_dir)
        for i in range(len(calib)):
            np.savez(os.path.join(cal_dir, f"{i}.npz"), x=calib[i:i + 1])

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.i = 0

            def get_next(self):
                if self.i == len(calib):
                    return None
                self.i += 1
                return {"x": calib[self.i - 1:self.i]}

        pre = real_ocr.ort_quantizable_copy(path, os.path.join(tmp, f"{name}_pre.onnx"))
        qdq = os.path.join(tmp, f"{name}_qdq.onnx")
        quantize_static(pre, qdq, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
        engines = {
            "f32": (Library(nunc, path, shape, os.path.join(tmp, f"{name}_f32"), []),
                    session(path)),
            "int8": (Library(nunc, path, shape, os.path.join(tmp, f"{name}_int8"),
                             ["--quantize", "int8", "--activations", "static",
                              "--calibration", cal_dir]), session(qdq)),
            "qdq": (Library(nunc, qdq, shape, os.path.join(tmp, f"{name}_qdq"), []),
                    session(qdq)),
        }
        f32_ref = engines["f32"][1]
        ref = np.concatenate([f32_ref.run(None, {"x": x[i:i + 1]})[0] for i in range(len(x))])
        for mode, (lib, sess) in engines.items():
            ours = np.concatenate([lib.run(x[i:i + 1])[0] for i in range(len(x))])
            theirs = np.concatenate([sess.run(None, {"x": x[i:i + 1]})[0] for i in range(len(x))])
            for engine, y in (("nunc", ours), ("onnxruntime", theirs)):
                accuracy_rows.append((name, mode, engine, *accuracy(name, path, y, ref, truth)))
            x1 = x[:1]
            lib.run(x1, repeat=10)
            ort_times(sess, x1, 10)
            ours_t, theirs_t = [], []
            per = max(1, args.runs // args.blocks)
            for _ in range(args.blocks):
                ours_t += lib.run(x1, repeat=per)[1]
                theirs_t += ort_times(sess, x1, per)
            a, b = summary(ours_t), summary(theirs_t)
            rows.append((name, mode, a, b))
            print(f"{name} {mode}: nunc {a[0]:.3f} ms, onnxruntime {b[0]:.3f} ms, "
                  f"ratio {a[0] / b[0]:.3f}", flush=True)
    print("\n| model | mode | nunc p50 (min-max) ms | onnxruntime p50 (min-max) ms | ratio |")
    print("|---|---|---|---|---|")
    for name, mode, a, b in rows:
        print(f"| {name} | {mode} | {a[0]:.3f} ({a[1]:.3f}-{a[2]:.3f}) | "
              f"{b[0]:.3f} ({b[1]:.3f}-{b[2]:.3f}) | {a[0] / b[0]:.3f} |")
    print("\n| model | mode | engine | right (truth) | text or boxes as f32 "
          "| argmax or pixels as f32 |")
    print("|---|---|---|---|---|---|")
    for r in accuracy_rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
