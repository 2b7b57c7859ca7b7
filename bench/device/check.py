#!/usr/bin/env python3
"""The int8 check on a device machine with AMX / AVX-VNNI (see prepare.py).

Run from the repository root there: python3 .device/check.py [--runs 200]
Prints, and writes to $OUT/device_int8.json when OUT is set: the CPU, the
measured peaks, the int8 kernel tests, GEMM GOP/s per kernel family on the
models' shapes, whether MiniLM int8 on AMX gives this bundle's AVX-512 VNNI
outputs bit for bit, and MiniLM b1 s128 latency (1 thread) of nunc on AMX and
on AVX-512 VNNI against onnxruntime's quantize_dynamic model, alternating.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHAPES = [(128, 384, 384), (128, 1536, 384), (128, 384, 1536), (128, 768, 768),
          (128, 3072, 768), (128, 768, 3072), (32, 384, 384), (512, 384, 1536)]
result = {}


def sh(cmd, key=None):
    print("$", cmd, flush=True)
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True, cwd=HERE)
    print(r.stdout[-8000:], r.stderr[-3000:], flush=True)
    if key:
        result[key] = {"rc": r.returncode, "out": r.stdout[-8000:]}
    return r


def stats(t):
    t = np.array(t) * 1e3
    return {"p50": float(np.median(t)), "min": float(t.min()), "max": float(t.max()), "n": len(t)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=200)
    args = p.parse_args()
    sh("lscpu | grep -E 'Model name|^CPU\\(s\\)'", "cpu")
    peak = sh("./peak", "peak").stdout
    result["peak"] = dict(line.split() for line in peak.splitlines())
    sh("./int8-kernel-tests --gtest_brief=1 2>&1 | tail -30", "kernel_tests")
    gemm = {}
    for isa in ("amx", "vnni", "avxvnni", "int8avx2"):
        r = sh("./gemm " + isa + " " + " ".join(str(v) for s in SHAPES for v in s))
        gemm[isa] = [line.split() for line in r.stdout.splitlines()]
    result["gemm"] = gemm

    # The same synthetic MiniLM as on the build machine (seeded generator).
    work = "/tmp/nunc-device"
    os.makedirs(work, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "make_models.py"),
                    "--out", work, "--models", "minilm"], check=True, stdout=subprocess.DEVNULL)
    path = os.path.join(work, "minilm.onnx")
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    same = digest == open(os.path.join(HERE, "minilm.onnx.sha256")).read().split()[0]
    result["same_model"] = same
    print("model identical to the build machine's:", same, flush=True)
    from onnxruntime.quantization import QuantType, quantize_dynamic
    import onnxruntime as ort
    ort_int8 = os.path.join(work, "minilm_ort_int8.onnx")
    quantize_dynamic(path, ort_int8, weight_type=QuantType.QInt8)
    feeds = dict(np.load(os.path.join(HERE, "feeds.npz")))

    def session(model, threads=1):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])

    fp32 = session(path).run(None, feeds)[0].astype(np.float64).ravel()
    int8 = session(ort_int8)
    ort_out = int8.run(None, feeds)[0].astype(np.float64).ravel()
    cos = lambda a, b: float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))  # noqa: E731
    result["cos_ort_int8_vs_fp32"] = cos(ort_out, fp32)

    outs = {}
    for target in ("amx", "avx512vnni"):
        d = os.path.join(work, target)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.join(HERE, "feeds"), d)
        r = sh(f"./minilm-{target} {d} 1 1")
        if r.returncode:
            result[f"minilm_{target}"] = "failed: " + r.stdout + r.stderr
            continue
        outs[target] = np.fromfile(os.path.join(d, "out0.bin"), dtype=np.float32)
        result[f"cos_nunc_{target}_vs_fp32"] = cos(outs[target].astype(np.float64), fp32)
    here = np.fromfile(os.path.join(HERE, "here_avx512vnni_out0.bin"), dtype=np.float32)
    for target, o in outs.items():
        result[f"{target}_equals_build_machine_vnni"] = bool(np.array_equal(o, here))
        result[f"{target}_max_abs_vs_build_machine_vnni"] = float(np.abs(o - here).max())

    # Latency, 1 thread, alternating halves.
    def nunc_times(target, n):
        d = os.path.join(work, target)
        subprocess.run([os.path.join(HERE, f"minilm-{target}"), d, "1", str(n + 10)], check=True,
                       capture_output=True)
        return list(np.fromfile(os.path.join(d, "times.bin"), dtype=np.float64)[10:])

    def ort_times(n):
        for _ in range(10):
            int8.run(None, feeds)
        t = []
        for _ in range(n):
            a = time.perf_counter()
            int8.run(None, feeds)
            t.append(time.perf_counter() - a)
        return t

    times = {"ort": [], "amx": [], "avx512vnni": []}
    for half in (args.runs // 2, args.runs - args.runs // 2):
        times["ort"] += ort_times(half)
        for target in outs:
            times[target] += nunc_times(target, half)
    lat = {k: stats(v) for k, v in times.items() if v}
    for k in outs:
        lat[k]["ratio_vs_ort_int8"] = lat[k]["p50"] / lat["ort"]["p50"]
    result["latency_ms_1thread"] = lat
    print(json.dumps({k: v for k, v in result.items() if k not in ("kernel_tests",)}, indent=1))
    if os.environ.get("OUT"):
        json.dump(result, open(os.path.join(os.environ["OUT"], "device_int8.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
