#!/usr/bin/env python3
"""Where a compiled model's time goes: perf samples per kernel kind.

Compiles an example model (minilm, bert, resnet, mobilenet, made as
bench/run.py makes them) or any .onnx file with nunc, runs the library's
driver under `perf record` (its default event: cycles, or cpu-clock in
VMs without hardware counters) and sums the samples per kernel kind from the manifest:
the kernel name without its shape, so the 6 attention calls of MiniLM are
one line. The steps a kernel call runs before its kernel (`quantize`,
`range`, `pack`, `pad`: symbols <lib>_k<N>_<step>) count apart, as
"<step> (before <kind>)". Shares are of all samples of the process.
Kernels with the same bytes share one copy of code (docs/codegen.md), so
perf gives their samples to one of their symbols: --by-call names every
call of such a copy on its line ("k10=k17=k24 ...", with the description
of the one perf named; a shared quantize step may serve GEMMs of other
kinds).

Usage:
  python3 bench/profile.py minilm --quantize int8 [--batch 1] [--seq 128]
  python3 bench/profile.py path/to/model.onnx --shape x=1x64 [--runs 300]
  ... [--target x86_64-avx512vnni] [--threads 1] [--by-call] [--top 25]
  ... [--keep DIR] [-- extra nunc compile flags]

Needs perf (Debian: `apt-get install linux-perf`) and
kernel.perf_event_paranoid <= 2.
"""
import argparse
import collections
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "models"))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from make_models import random_inputs  # noqa: E402
from run import CONFIGS, shape_pins  # noqa: E402


def kernel_kind(name):
    return re.sub(r"\[.*?\]", "[]", name)


def shared_code(archive, lib):
    """For each kernel symbol of the library whose code other symbols share,
    those symbols ("k10", "k17_quantize", ...) in call order."""
    by_address = collections.defaultdict(list)
    for (index, step), address in sorted(harness.kernel_symbols(archive, lib).items(),
                                         key=lambda s: (s[0][0], s[0][1] or "")):
        by_address[address].append(f"k{index}" + (f"_{step}" if step else ""))
    return {f"{lib}_{name}": names for names in by_address.values() if len(names) > 1
            for name in names}


def aggregate(report, manifest, by_call, shared=None):
    """Sums `perf report --sort sym` percentages per kernel kind (or call)."""
    lib = manifest["name"]
    symbol = re.compile(re.escape(lib) + r"_k(\d+)(?:_(\w+))?$")
    shares = collections.Counter()
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(\S+)", line)
        if not m:
            continue
        pct, sym = float(m.group(1)), m.group(2)
        k = symbol.match(sym)
        if not k:
            shares[sym] += pct
            continue
        index, step = int(k.group(1)), k.group(2)
        kernel = manifest["kernels"][index]["kernel"]
        calls = "=".join(n.split("_")[0] for n in (shared or {}).get(sym, [f"k{index}"]))
        what = f"{calls} {kernel}" if by_call else kernel_kind(kernel)
        shares[f"{step} (before {what})" if step else what] += pct
    return shares


def prepared_model(model, work, batch, seq, shapes):
    """(path, nunc's --shape pins, feeds or None) for an example model's name
    (written into `work` as bench/run.py makes it) or an .onnx path."""
    if model in CONFIGS:
        subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models",
                                                     "make_models.py"),
                        "--out", work, "--models", model], check=True,
                       stdout=subprocess.DEVNULL)
        seq = None if model in ("resnet", "mobilenet", "resnext") else seq
        return (os.path.join(work, f"{model}.onnx"), shape_pins(model, batch, seq),
                random_inputs(model, batch, seq, 1))
    return model, [a for s in shapes for a in ("--shape", s)], None


def manifest_feeds(manifest):
    """Random floats (zeros for other types) for every input of a library."""
    import numpy as np
    rng = np.random.default_rng(1)
    return {io["name"]: rng.standard_normal(io["shape"]).astype(harness.NP_TYPES[io["dtype"]])
            if io["dtype"].startswith("f") else
            np.zeros(io["shape"], dtype=harness.NP_TYPES[io["dtype"]])
            for io in manifest["inputs"]}


def add_model_arguments(p):
    """The model and how to compile and run it (prepared_model's arguments)."""
    p.add_argument("model", help="an example model's name or an .onnx path")
    p.add_argument("--target", default=None,
                   help="default: x86_64-avx512vnni with --quantize, else native")
    p.add_argument("--quantize", default=None)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--seq", type=int, default=128, help="encoders' sequence length")
    p.add_argument("--shape", action="append", default=[],
                   help="nunc's --shape pins for an .onnx path")
    p.add_argument("--threads", type=int, default=1)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_model_arguments(p)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--runs", type=int, default=300, help="inferences under perf")
    p.add_argument("--by-call", action="store_true", help="one line per kernel call")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--keep", metavar="DIR", default=None,
                   help="work in DIR and keep it (perf.data, the library) for perf annotate")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    args.extra = extra
    if not shutil.which("perf"):
        sys.exit("profile.py needs perf (Debian: apt-get install linux-perf)")
    nunc = os.path.join(args.build, "bin", "nunc")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with (contextlib.nullcontext(os.path.abspath(args.keep)) if args.keep else
          tempfile.TemporaryDirectory(prefix="nunc-profile-")) as work:
        path, pins, feeds = prepared_model(args.model, work, args.batch, args.seq, args.shape)
        target = args.target or ("x86_64-avx512vnni" if args.quantize else "native")
        quant = ["--quantize", args.quantize] if args.quantize else []
        out = os.path.join(work, "out")
        r = subprocess.run([nunc, "compile", path, "--target", target, *pins, *quant,
                            *args.extra, "-o", out], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(r.stderr)
        exe, manifest = harness.build(out)
        if feeds is None:
            feeds = manifest_feeds(manifest)
        run_dir = os.path.join(work, "run")
        # As bench/run.py runs it: a batch split into items runs k at once.
        slots = args.threads if manifest.get("batch_split", 1) > 1 else 1
        outs, _, log = harness.run(exe, manifest, feeds, run_dir, threads=args.threads,
                                   slots=slots)
        if outs is None:
            sys.exit(log)
        data = os.path.join(work, "perf.data")
        rec = subprocess.run(["perf", "record", "-q", "-o", data, exe, run_dir,
                              str(args.threads), str(args.runs)],
                             capture_output=True, text=True,
                             env=dict(os.environ, NUNC_WORKSPACE_SLOTS=str(slots)))
        if rec.returncode != 0:
            sys.exit("perf record failed:\n" + rec.stderr)
        report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "sym"],
                                capture_output=True, text=True, check=True).stdout
        samples = re.search(r"# Samples: (\S+)", report)
        shares = aggregate(report, manifest, args.by_call,
                           shared_code(os.path.join(out, f"lib{manifest['name']}.a"),
                                       manifest["name"]))
        print(f"{os.path.basename(path)} {target} {' '.join(pins + quant + args.extra)}: "
              f"{args.runs} runs, {samples.group(1) if samples else '?'} samples")
        for what, pct in shares.most_common(args.top):
            print(f"{pct:6.2f} %  {what}")


if __name__ == "__main__":
    main()
