#!/usr/bin/env python3
"""Top-1 agreement of the int8 CNNs with fp32 on a classifier that decides
something: nunc (`--quantize int8`, dynamic and static) against
onnxruntime's own int8 model (quantize_static, QDQ, per channel).

The example CNNs have random weights: their top two logits for random
images lie ~1 % of the logit range apart, so any int8 noise flips many and
top-1 agreement measures nothing (~85 % for nunc and onnxruntime alike).
Trained ImageNet weights cannot be had here. So this script keeps the
example convolutions (random) and fits the classifier head: a 10-class task
whose class c is a fixed pattern of two sinusoidal gratings per channel
plus Gaussian pixel noise (--sigma per model, set so the fp32 model is right
~80-95 % of the time, as a trained classifier is on its test set). The head
is ridge regression on the fp32 model's pooled features of --train samples
(targets +1 / -1), folded into the Gemm. Agreement is then counted on 200
fresh samples of the task; calibration uses 32 training samples: static
ranges and the input means of bias correction (on by default; the dynamic
build with samples uses only the latter).

Usage: python3 bench/cnn_top1.py [--build build] [--models resnet,mobilenet,resnext]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "models"))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
import harness  # noqa: E402

CLASSES = 10
SIGMA = {"resnet": 2.0, "mobilenet": 0.4, "resnext": 3.0}


def task(seed):
    """The class patterns and a sampler of (images, labels)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:224, 0:224].astype(np.float32)

    def grating():
        th, period, phase = rng.uniform(0, np.pi), rng.uniform(4, 24), rng.uniform(0, 2 * np.pi)
        return np.sin(2 * np.pi * (xx * np.cos(th) + yy * np.sin(th)) / period + phase)

    patterns = np.stack([np.stack([grating() + grating() for _ in range(3)])
                         for _ in range(CLASSES)]).astype(np.float32)

    def sample(n, sigma, seed):
        r = np.random.default_rng(seed)
        y = r.integers(0, CLASSES, n)
        x = patterns[y] + sigma * r.standard_normal((n, 3, 224, 224), dtype=np.float32)
        return x.astype(np.float32), y
    return sample


def run_batches(session, names, x, batch=4):
    return [np.concatenate(out) for out in zip(*(
        session.run(names, {"input": x[i:i + batch]}) for i in range(0, len(x), batch)))]


def fit_head(model_path, fitted_path, xtrain, ytrain, ridge=1000.0):
    """Writes the model with its Gemm head fitted to the task."""
    m = onnx.load(model_path)
    fc = next(n for n in m.graph.node if n.output[0] == m.graph.output[0].name)
    probe = onnx.ModelProto()
    probe.CopyFrom(m)
    probe.graph.output.append(helper.make_tensor_value_info(fc.input[0], onnx.TensorProto.FLOAT,
                                                            None))
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    s = ort.InferenceSession(probe.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    (f,) = run_batches(s, [fc.input[0]], xtrain, 8)
    mu, sd = f.mean(0), f.std(0) + 1e-6
    a = np.hstack([(f - mu) / sd, np.ones((len(f), 1))])
    targets = -np.ones((len(f), CLASSES))
    targets[np.arange(len(f)), ytrain] = 1
    w = np.linalg.solve(a.T @ a + ridge * np.eye(a.shape[1]), a.T @ targets)
    weight = (w[:-1] / sd[:, None]).T.astype(np.float32)  # [classes, features]
    bias = (w[-1] - (mu / sd) @ w[:-1]).astype(np.float32)
    inits = {i.name: i for i in m.graph.initializer}
    inits[fc.input[1]].CopyFrom(numpy_helper.from_array(weight, fc.input[1]))
    inits[fc.input[2]].CopyFrom(numpy_helper.from_array(bias, fc.input[2]))
    m.graph.output[0].type.tensor_type.shape.dim[1].dim_value = CLASSES
    onnx.save(m, fitted_path)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--models", default="resnet,mobilenet")
    p.add_argument("--train", type=int, default=400)
    args = p.parse_args()
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process
    nunc = os.path.join(args.build, "bin", "nunc")
    work = tempfile.mkdtemp(prefix="nunc_top1_")
    sample = task(7)
    calibrated = ["--calibration", "CALIB"]
    modes = (("dynamic", []),
             ("dynamic, bias-corrected", calibrated),
             ("static", ["--activations", "static", *calibrated]),
             ("static, no bias correction", ["--activations", "static", *calibrated,
                                             "--bias-correction=false"]),
             ("static mse", ["--activations", "static", "--calib-method", "mse", *calibrated]))
    print("| model | fp32 right | " + " | ".join(f"nunc {m}" for m, _ in modes)
          + " | onnxruntime int8 (QDQ) |")
    print("|---" * (len(modes) + 3) + "|")
    for name in args.models.split(","):
        d = os.path.join(work, name)
        subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "make_models.py"),
                        "--out", d, "--models", name], check=True, stdout=subprocess.DEVNULL)
        xtrain, ytrain = sample(args.train, SIGMA[name], 1)
        xtest, ytest = sample(200, SIGMA[name], 2)
        fitted = os.path.join(d, "fitted.onnx")
        fit_head(os.path.join(d, f"{name}.onnx"), fitted, xtrain, ytrain)
        f32 = ort.InferenceSession(fitted, providers=["CPUExecutionProvider"])
        (want,) = run_batches(f32, None, xtest)
        calib = os.path.join(d, "calib")
        os.makedirs(calib)
        for i in range(32):
            np.savez(os.path.join(calib, f"s{i}.npz"), input=xtrain[i:i + 1])
        agree = {}
        for mode, flags in modes:
            flags = [calib if f == "CALIB" else f for f in flags]
            out = os.path.join(d, mode.replace(" ", "_").replace(",", ""))
            subprocess.run([nunc, "compile", fitted, "--target", "x86_64-avx512vnni",
                            "--quantize", "int8", "--shape", "batch=4", *flags, "-o", out],
                           check=True, stderr=subprocess.DEVNULL)
            exe, man = harness.build(out)
            got = []
            for i in range(0, 200, 4):
                outs, _, log = harness.run(exe, man, {"input": xtest[i:i + 4]},
                                           os.path.join(d, "run"))
                assert outs is not None, log
                got.append(next(iter(outs.values())))
            agree[mode] = int((np.concatenate(got).argmax(1) == want.argmax(1)).sum())

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.it = iter([{"input": xtrain[i:i + 1]} for i in range(32)])

            def get_next(self):
                return next(self.it, None)
        pre, qdq = os.path.join(d, "pre.onnx"), os.path.join(d, "qdq.onnx")
        quant_pre_process(fitted, pre)
        quantize_static(pre, qdq, Reader(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        per_channel=True)
        (theirs,) = run_batches(ort.InferenceSession(qdq, providers=["CPUExecutionProvider"]),
                                None, xtest)
        ort_agree = int((theirs.argmax(1) == want.argmax(1)).sum())
        right = int((want.argmax(1) == ytest).sum())
        print(f"| {name} (noise {SIGMA[name]}) | {right / 2:.1f} % | "
              + " | ".join(f"{agree[m] / 2:.1f} %" for m, _ in modes)
              + f" | {ort_agree / 2:.1f} % |")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
