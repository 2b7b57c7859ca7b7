#!/usr/bin/env python3
"""How closely nunc follows onnxruntime on the quantized models its quantizer writes.

For each example model (ResNet, MobileNet, MiniLM; `--models`) this makes
onnxruntime's quantized variants: `quantize_static` in QDQ and QOperator
format with u8 / s8 activations, s8 / u8 weights, per tensor / per channel,
symmetric, reduce_range and percentile-calibrated QDQ models, a symmetric
s8 QOperator model, QDQ and QOperator models that keep f32 biases
(QuantizeBias=False: onnxruntime quantizes them when it loads the model)
and QDQ models of 4-bit weights (QInt4 / QUInt4); and
`quantize_dynamic` with s8 / u8 weights, per channel and reduce_range. Each
is compiled with nunc for `--target`, run on `--images` random inputs, and
compared with onnxruntime's run of the same model file (its default graph
optimizations, which fuse Q/DQ pairs into QLinearConv, QLinearAdd,
QLinearMatMul and friends). One line per variant: the share of images
whose outputs are equal bit for bit, the share of output elements equal,
the largest difference (and in steps of the output's grid, where the
model dequantizes its output: the issue's "within one step" bar), cosines (nunc, onnxruntime, f32 model) and, for
the classifiers, top-1 agreement with onnxruntime. A variant nunc cannot
compile is reported with the error, not skipped.

Usage:
  python3 bench/ort_agreement.py [--models resnet,mobilenet,minilm]
      [--only static-QDQ] [--images 3] [--target x86_64-avx512vnni]
      [--build build] [--work /tmp/ort_agreement]
"""
import argparse
import itertools
import os
import subprocess
import sys
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "test", "e2e"), os.path.join(ROOT, "examples", "models")]
import harness  # noqa: E402
from make_models import random_inputs  # noqa: E402

TEXT = ("minilm", "bert")


class Samples:
    """An onnxruntime CalibrationDataReader over fixed feeds."""

    def __init__(self, feeds):
        self.feeds = list(feeds)

    def get_next(self):
        return self.feeds.pop() if self.feeds else None


def pins(name, seq):
    if name in TEXT:
        return ["--shape", "batch=1", "--shape", f"sequence={seq}"]
    return ["--shape", "input=1x3x224x224"]


def feeds_of(name, seq, seed):
    return random_inputs(name, 1, seq if name in TEXT else None, seed)


def variants():
    """(tag, kind, keyword arguments of onnxruntime's quantizer)."""
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType
    out = []
    for fmt, act, wt, pc in itertools.product(["QDQ", "QOperator"], ["QUInt8", "QInt8"],
                                              ["QInt8", "QUInt8"], [True, False]):
        if act == "QInt8" and wt == "QUInt8":
            continue  # onnxruntime's quantizer refuses s8 activations with u8 weights
        out.append((f"static-{fmt}-{act}-{wt}{'-per-channel' if pc else ''}", "static",
                    dict(quant_format=getattr(QuantFormat, fmt),
                         activation_type=getattr(QuantType, act),
                         weight_type=getattr(QuantType, wt), per_channel=pc)))
    out.append(("static-QDQ-symmetric", "static",
                dict(quant_format=QuantFormat.QDQ, per_channel=True,
                     extra_options=dict(ActivationSymmetric=True, WeightSymmetric=True))))
    out.append(("static-QDQ-reduce-range", "static",
                dict(quant_format=QuantFormat.QDQ, per_channel=True, reduce_range=True)))
    out.append(("static-QDQ-percentile", "static",
                dict(quant_format=QuantFormat.QDQ, calibrate_method=CalibrationMethod.Percentile)))
    out.append(("static-QOperator-QInt8-symmetric", "static",
                dict(quant_format=QuantFormat.QOperator, activation_type=QuantType.QInt8,
                     extra_options=dict(ActivationSymmetric=True))))
    for fmt in ["QDQ", "QOperator"]:  # f32 biases: onnxruntime quantizes them when it loads
        out.append((f"static-{fmt}-float-bias", "static",
                    dict(quant_format=getattr(QuantFormat, fmt), per_channel=True,
                         extra_options=dict(QuantizeBias=False))))
    for act, wt in itertools.product(["QUInt8", "QInt8"], ["QInt4", "QUInt4"]):
        out.append((f"static-QDQ-{act}-{wt}", "static",
                    dict(quant_format=QuantFormat.QDQ, activation_type=getattr(QuantType, act),
                         weight_type=getattr(QuantType, wt), per_channel=wt == "QInt4")))
    for wt, pc, rr in itertools.product(["QInt8", "QUInt8"], [True, False], [False, True]):
        out.append((f"dynamic-{wt}{'-per-channel' if pc else ''}{'-reduce-range' if rr else ''}",
                    "dynamic", dict(weight_type=getattr(QuantType, wt), per_channel=pc,
                                    reduce_range=rr)))
    return out


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-300))


def output_step(path):
    """The step of the grid the model's first output is dequantized from
    (a DequantizeLinear with a constant per-tensor scale), else None."""
    import onnx
    from onnx import numpy_helper
    graph = onnx.load(path).graph
    node = next((n for n in graph.node if graph.output[0].name in n.output), None)
    if node is None or node.op_type != "DequantizeLinear":
        return None
    scale = next((numpy_helper.to_array(i) for i in graph.initializer if i.name == node.input[1]),
                 None)
    return float(scale) if scale is not None and scale.size == 1 else None


def one(args, name, tag, kind, kw):
    import onnxruntime as ort
    from onnxruntime.quantization import quantize_dynamic, quantize_static
    d = os.path.join(args.work, f"{name}-{tag}")
    os.makedirs(d, exist_ok=True)
    src, q = os.path.join(args.work, "models", f"{name}.onnx"), os.path.join(d, "q.onnx")
    try:
        if kind == "static":
            quantize_static(src, q, Samples(feeds_of(name, args.seq, 40 + i) for i in range(2)),
                            **kw)
        else:
            quantize_dynamic(src, q, **kw)
    except Exception as e:  # onnxruntime's quantizer refused the variant
        return f"onnxruntime's quantizer failed: {type(e).__name__}: {str(e)[:80]}"
    nunc = os.path.join(args.build, "bin", "nunc")
    out = os.path.join(d, "out")
    r = subprocess.run([nunc, "compile", q, "--target", args.target, *pins(name, args.seq),
                        "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        return "NUNC COMPILE FAILED: " + r.stderr.strip()[-400:]
    exe, man = harness.build(out)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    sess = ort.InferenceSession(q, options, providers=["CPUExecutionProvider"])
    f32 = ort.InferenceSession(src, options, providers=["CPUExecutionProvider"])
    equal_images, equal, worst, cos_ort, cos_nunc, cos_ort_f32, top1 = 0, [], 0.0, [], [], [], []
    for i in range(args.images):
        feeds = feeds_of(name, args.seq, 5 + i)
        outs, _, log = harness.run(exe, man, feeds, os.path.join(d, f"w{i}"))
        if outs is None:
            return "NUNC RUN FAILED: " + log[-300:]
        got = next(iter(outs.values()))
        want, ref = sess.run(None, feeds)[0], f32.run(None, feeds)[0]
        equal_images += bool(np.array_equal(got, want))
        equal.append(np.mean(got == want))
        worst = max(worst, float(np.abs(got.astype(np.float64) - want).max()))
        cos_ort.append(cosine(got, want))
        cos_nunc.append(cosine(got, ref))
        cos_ort_f32.append(cosine(want, ref))
        if name not in TEXT:
            top1.append(int(got.argmax() == want.argmax()))
    step = output_step(q)
    steps = f" ({worst / step:.2f} steps of its grid)" if step else ""
    text = (f"equal {equal_images}/{args.images} images, {np.mean(equal):.3f} of elements, "
            f"max |d| {worst:.3g}{steps}; cos(nunc, ort) {min(cos_ort):.6f}, cos(nunc, f32) "
            f"{np.mean(cos_nunc):.6f}, cos(ort, f32) {np.mean(cos_ort_f32):.6f}")
    if top1:
        text += f"; top-1 as ort {sum(top1)}/{len(top1)}"
    return text


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="resnet,mobilenet,minilm")
    p.add_argument("--only", default="", help="variants whose tag contains this")
    p.add_argument("--images", type=int, default=3)
    p.add_argument("--seq", type=int, default=16, help="encoders' sequence length")
    p.add_argument("--target", default="x86_64-avx512vnni")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--work", default="/tmp/ort_agreement")
    args = p.parse_args()
    models = args.models.split(",")
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "make_models.py"),
                    "--out", os.path.join(args.work, "models"), "--models", ",".join(models)],
                   check=True, stdout=subprocess.DEVNULL)
    for name in models:
        for tag, kind, kw in variants():
            if args.only and args.only not in tag:
                continue
            try:
                line = one(args, name, tag, kind, kw)
            except Exception:
                line = "ERROR " + traceback.format_exc()[-300:]
            print(f"{name:9s} {tag:40s} {line}", flush=True)


if __name__ == "__main__":
    main()
