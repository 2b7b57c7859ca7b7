#!/usr/bin/env python3
"""Builds the bundle for an int8 check on a machine with AMX / AVX-VNNI.

This machine kind (AMD Zen 4) has neither AMX nor AVX-VNNI; a lent device
machine (Intel Xeon, Sapphire/Emerald Rapids) has both. This script builds,
here, everything that check needs without MLIR or nunc itself: the int8
kernel tests, the GEMM and peak benchmarks, and MiniLM (b1 s128, int8)
compiled for x86_64-amx and x86_64-avx512vnni, linked into the C driver of
the e2e tests, with the feeds and this machine's x86_64-avx512vnni outputs.
bench/device/check.py runs it there.

Usage: python3 bench/device/prepare.py [--build build] [--out .device]
"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "models"))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
import harness  # noqa: E402
from make_models import random_inputs  # noqa: E402

F = ("-O2 -std=gnu++20 -DXBYAK_NO_EXCEPTION -DLLVM_DISABLE_ABI_BREAKING_CHECKS_ENFORCING=1 "
     "-Icodegen/x86 -Icodegen/include -isystem /usr/lib/llvm-22/include -static-libstdc++ "
     "-static-libgcc -pthread").split()
KERNELS = ["codegen/x86/Int8GemmKernel.cpp", "codegen/x86/QuantizeRowsKernel.cpp",
           "codegen/x86/VectorMath.cpp"]
GTEST = ["/usr/lib/x86_64-linux-gnu/libgtest_main.a", "/usr/lib/x86_64-linux-gnu/libgtest.a"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--out", default=os.path.join(ROOT, ".device"))
    args = p.parse_args()
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cc = lambda srcs, exe, libs=(): subprocess.run(  # noqa: E731
        ["g++", *F, *srcs, "-o", os.path.join(out, exe), *libs], cwd=ROOT, check=True)
    cc(["test/unit/Int8GemmKernelTest.cpp", *KERNELS], "int8-kernel-tests", GTEST)
    cc(["bench/GemmBench.cpp", "codegen/x86/GemmKernel.cpp", *KERNELS], "gemm")
    cc(["bench/Peak.cpp"], "peak")

    work = os.path.join(args.build, "bench")
    os.makedirs(work, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "make_models.py"),
                    "--out", work, "--models", "minilm"], check=True, stdout=subprocess.DEVNULL)
    feeds = random_inputs("minilm", 1, 128, 0)
    feed_dir = os.path.join(out, "feeds")
    for target in ("amx", "avx512vnni"):
        lib = os.path.join(work, f"minilm_device_{target}")
        shutil.rmtree(lib, ignore_errors=True)
        subprocess.run([os.path.join(args.build, "bin", "nunc"), "compile",
                        os.path.join(work, "minilm.onnx"), "--target", f"x86_64-{target}",
                        "--quantize", "int8", "--shape", "batch=1", "--shape", "sequence=128",
                        "-o", lib], check=True)
        exe, manifest = harness.build(lib)
        shutil.copy(exe, os.path.join(out, f"minilm-{target}"))
        if target == "avx512vnni":
            # This machine's outputs: the AMX kernels must give the same bits.
            outs, _, log = harness.run(exe, manifest, feeds, feed_dir)
            assert outs is not None, log
            for j, o in enumerate(manifest["outputs"]):
                os.rename(os.path.join(feed_dir, f"out{j}.bin"),
                          os.path.join(out, f"here_avx512vnni_out{j}.bin"))
    np.savez(os.path.join(out, "feeds.npz"), **feeds)
    subprocess.run(["sha256sum", os.path.join(work, "minilm.onnx")],
                   stdout=open(os.path.join(out, "minilm.onnx.sha256"), "w"), check=True)
    for f in ("check.py",):
        shutil.copy(os.path.join(ROOT, "bench", "device", f), out)
    print("bundle:", out, sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out)
                              for f in fs) // 2**20, "MiB")


if __name__ == "__main__":
    main()
