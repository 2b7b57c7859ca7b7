"""Shared fixtures of the end-to-end tests: the nunc binaries and the example
models, generated once per session into the build tree."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "models"))


def _bin_dir():
    d = os.environ.get("NUNC_BIN_DIR", os.path.join(ROOT, "build", "bin"))
    if not os.path.exists(os.path.join(d, "nunc")):
        pytest.exit(f"nunc is not built in {d} (set NUNC_BIN_DIR)", returncode=2)
    return d


@pytest.fixture(scope="session")
def nunc():
    exe = os.path.join(_bin_dir(), "nunc")

    def run(*args, check=True):
        r = subprocess.run([exe, *map(str, args)], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"nunc {' '.join(map(str, args))} failed "
                                 f"({r.returncode}):\n{r.stderr}")
        return r

    return run


@pytest.fixture(scope="session")
def models():
    """Directory with the five example models (written once, reused)."""
    d = os.environ.get("NUNC_MODELS_DIR", os.path.join(ROOT, "build", "test", "e2e", "models"))
    os.makedirs(d, exist_ok=True)
    script = os.path.join(ROOT, "examples", "models", "make_models.py")
    if not all(os.path.exists(os.path.join(d, f"{m}.onnx"))
               for m in ("mlp", "minilm", "bert", "resnet", "mobilenet", "resnext")):
        subprocess.run([sys.executable, script, "--out", d], check=True,
                       stdout=subprocess.DEVNULL)
    return d
