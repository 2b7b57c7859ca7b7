#!/usr/bin/env python3
"""Mutation fuzzer for nunc's importer, pipeline and kernels.

Takes seed models (ONNX's backend node tests, as test/conformance writes
them, and any .onnx files given), breaks each in one to three ways at the
protobuf level (dims, element types, attributes, node inputs and outputs,
initializers, op types, opsets, node order, bytes) and runs every mutant
through `nunc run` twice: compiled for this machine, and with the reference
evaluator, on the same random inputs (written by the fuzzer where the
shapes are static, else drawn by nunc). A run must end in one of two ways:
outputs (exit 0), or a clear error (exit 1 with an "error:" line). A signal,
another exit code, a hang past the timeout, or an exit 1 without an error
line is a defect; so is a compiled run that refuses a model the evaluator
runs, except for shapes only run-time values decide (nunc compiles static
shapes), and a compiled run whose outputs differ from the
evaluator's where both succeed (NaN equals NaN), unless each element
agrees with the evaluator's or with onnxruntime's run of the mutant
(where the fuzzer wrote the inputs and onnxruntime runs it).

--quantize=int8-static checks the static int8 path instead: each mutant
whose inputs the fuzzer writes is compiled with `--quantize int8
--activations static`, calibrated on those inputs (check_static_int8).

--ort-quantize adds onnxruntime's own quantizers: each mutant that passes
and whose inputs the fuzzer writes is quantized by quantize_static
(calibrated on those inputs; QDQ with u8, s8 or u16 activations, s8
weights or u8 ones with u8 activations, per tensor or per channel,
symmetric activations or not, or QOperator) or quantize_dynamic, as its
index picks (ort_quantize_variant), and the quantized model is then
checked as a mutant of its own on the same inputs: a valid QDQ, QOperator
or dynamic model of a shape no seed has, for the importer's Q/DQ fusions.
In this mode half the mutants are their seed unchanged, whose grids still
vary with the calibration inputs. A model onnxruntime's quantizer refuses
or adds no quantized op to is skipped.

Deterministic: mutant i of a run with --seed S is the same on every machine
with the same seeds.

--special-values feeds NaN, infinities and subnormals. A non-finite element
then agrees with any non-finite one (sums of infinities and of values near
FLT_MAX differ by their order, and the evaluator sums in f64), and the
relative tolerance is 1 %. Known differences there: MaxPool and the max
reductions' vmaxps step over NaN (std::max in onnxruntime does too; the
evaluator keeps it), and sums whose terms of +-1e30 (products or squares of
1e15) cancel keep different remainders in f32 (the kernels, onnxruntime)
and f64 (the evaluator): an expanded LayerNorm's E[x^2] - E[x]^2, a
MatMul of two such inputs. Even without special inputs, a mutant can sum
terms near the float range that cancel (6 / x near x = 0 into a conv): an
element on which the evaluator and onnxruntime disagree may be off the
evaluator's by up to 4 times their difference.

A QDQ model's output that comes from a QuantizeLinear, or a DequantizeLinear
of one scale, may be a grid step off the evaluator's: the compiled epilogues
compute codes in one step and may round a tie the other way.

In a quantized model (its own Q/DQ or QOperator ops, or --quantize int8), a
code that rounds the other way may move up to 5 % of an output's elements
by up to 2 % of its largest magnitude, or keep a cosine of 0.999 over the
output; with --quantize int8 a QDQ model's own codes round as written
(--one-step-requantization=false), and mutants with NaN or infinite
constants (or --special-values) are run for crashes only: int8 ranges step
over NaN, as onnxruntime's do.

Defects are written to --out (the mutant, the command and what it printed);
--replay DIR runs a saved mutant again. Multi-node seeds (encoders, their
quantized forms, attention, decoders, small CNNs): make_seeds.py.

  fuzz_models.py --nunc build/bin/nunc --seeds build/test/conformance/node \\
      --iterations 2000 --seed 1 --out /tmp/fuzz
"""
import argparse
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import harness  # noqa: E402 (the e2e tests' C driver for a library)

INT_VALUES = [0, 1, -1, 2, -2, 3, 7, -7, 64, 2**31 - 1, -2**31, 2**40, -2**40, 2**62]
FLOAT_VALUES = [0.0, -1.0, 1e-30, 1e30, float("inf"), float("-inf"), float("nan"), 0.5]
DIM_VALUES = [0, 1, 2, 3, 7, 17, 2**31, 2**40, -3]
ELEM_TYPES = [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 12, 13, 16, 8, 99]


def tensor_value_infos(graph):
    init = {t.name for t in graph.initializer}
    return [v for v in list(graph.input) + list(graph.output)
            if v.name not in init and v.type.HasField("tensor_type")]


def mutate_dim(model, rng):
    vis = [v for v in tensor_value_infos(model.graph) if v.type.tensor_type.shape.dim]
    if not vis:
        return False
    dims = rng.choice(vis).type.tensor_type.shape.dim
    d = dims[rng.randrange(len(dims))]
    if rng.random() < 0.15:
        d.dim_param = rng.choice(["N", "", "?"])
    else:
        d.dim_value = rng.choice(DIM_VALUES)
    return True


def mutate_rank(model, rng):
    vis = tensor_value_infos(model.graph)
    if not vis:
        return False
    shape = rng.choice(vis).type.tensor_type.shape
    if shape.dim and rng.random() < 0.5:
        del shape.dim[rng.randrange(len(shape.dim))]
    else:
        shape.dim.add().dim_value = rng.choice([1, 2, 3])
    return True


def mutate_elem_type(model, rng):
    vis = tensor_value_infos(model.graph)
    if not vis:
        return False
    rng.choice(vis).type.tensor_type.elem_type = rng.choice(ELEM_TYPES)
    return True


def all_attributes(graph):
    return [(n, a) for n in graph.node for a in n.attribute]


def mutate_attribute(model, rng):
    attrs = all_attributes(model.graph)
    if not attrs:
        return False
    node, a = rng.choice(attrs)
    r = rng.random()
    if r < 0.1:
        node.attribute.remove(a)
    elif a.type == onnx.AttributeProto.INT:
        a.i = rng.choice(INT_VALUES)
    elif a.type == onnx.AttributeProto.INTS:
        if a.ints and r < 0.6:
            a.ints[rng.randrange(len(a.ints))] = rng.choice(INT_VALUES)
        elif r < 0.8:
            del a.ints[:]
        else:
            a.ints.append(rng.choice(INT_VALUES))
    elif a.type == onnx.AttributeProto.FLOAT:
        a.f = rng.choice(FLOAT_VALUES)
    elif a.type == onnx.AttributeProto.FLOATS:
        if a.floats:
            a.floats[rng.randrange(len(a.floats))] = rng.choice(FLOAT_VALUES)
        else:
            a.floats.append(rng.choice(FLOAT_VALUES))
    elif a.type == onnx.AttributeProto.STRING:
        a.s = rng.choice([b"", b"x", b"NOTSET", b"SAME_UPPER", b"linear", b"\xff"])
    elif a.type == onnx.AttributeProto.TENSOR:
        mutate_tensor(a.t, rng)
    else:
        a.type = rng.choice([onnx.AttributeProto.INT, onnx.AttributeProto.FLOAT,
                             onnx.AttributeProto.STRING])
    return True


def mutate_attribute_type(model, rng):
    attrs = all_attributes(model.graph)
    if not attrs:
        return False
    _, a = rng.choice(attrs)
    a.type = rng.choice([onnx.AttributeProto.INT, onnx.AttributeProto.INTS,
                         onnx.AttributeProto.FLOAT, onnx.AttributeProto.STRING,
                         onnx.AttributeProto.TENSOR, onnx.AttributeProto.GRAPH, 0])
    return True


def add_attribute(model, rng):
    if not model.graph.node:
        return False
    node = rng.choice(model.graph.node)
    name = rng.choice(["axis", "axes", "keepdims", "perm", "pads", "strides", "group",
                       "kernel_shape", "dilations", "transB", "alpha", "mode", "to",
                       "epsilon", "num_heads", "unknown_attribute"])
    kind = rng.random()
    if kind < 0.5:
        node.attribute.append(onnx.helper.make_attribute(name, rng.choice(INT_VALUES)))
    elif kind < 0.8:
        node.attribute.append(onnx.helper.make_attribute(
            name, [rng.choice(INT_VALUES) for _ in range(rng.randrange(0, 5))] or [0]))
    else:
        node.attribute.append(onnx.helper.make_attribute(name, rng.choice(FLOAT_VALUES)))
    return True


def value_names(graph):
    names = [v.name for v in graph.input] + [t.name for t in graph.initializer]
    for n in graph.node:
        names += list(n.output)
    return [x for x in names if x]


def mutate_node_inputs(model, rng):
    nodes = list(model.graph.node)
    if not nodes:
        return False
    node = rng.choice(nodes)
    r = rng.random()
    if r < 0.25 and node.input:
        del node.input[-1]
    elif r < 0.4 and node.input:
        node.input[rng.randrange(len(node.input))] = ""
    elif r < 0.6:
        node.input.append(rng.choice(value_names(model.graph) + [""]))
    elif r < 0.8 and len(node.input) >= 2:
        i, j = rng.sample(range(len(node.input)), 2)
        node.input[i], node.input[j] = node.input[j], node.input[i]
    elif node.input:
        node.input[rng.randrange(len(node.input))] = rng.choice(
            value_names(model.graph) + ["no_such_value"])
    else:
        return False
    return True


def mutate_outputs(model, rng):
    g = model.graph
    r = rng.random()
    if r < 0.3 and g.output:
        del g.output[rng.randrange(len(g.output))]
    elif r < 0.6 and g.node:
        node = rng.choice(g.node)
        if node.output:
            node.output[rng.randrange(len(node.output))] = rng.choice(
                value_names(g) + ["", "fresh"])
    elif g.node:
        rng.choice(g.node).output.append(rng.choice(["extra", g.output[0].name if g.output
                                                      else "extra"]))
    else:
        return False
    return True


def mutate_tensor(t, rng):
    r = rng.random()
    if r < 0.25 and t.raw_data:
        t.raw_data = t.raw_data[:rng.randrange(len(t.raw_data))]
    elif r < 0.45 and t.dims:
        t.dims[rng.randrange(len(t.dims))] = rng.choice(DIM_VALUES)
    elif r < 0.6:
        t.data_type = rng.choice(ELEM_TYPES)
    elif r < 0.7:
        t.dims.append(rng.choice([1, 2, 0]))
    elif t.data_type in (TensorProto.INT64, TensorProto.INT32):
        arr = onnx.numpy_helper.to_array(t).copy()
        if arr.size:
            flat = arr.reshape(-1)
            info = np.iinfo(arr.dtype)
            flat[rng.randrange(flat.size)] = rng.choice(
                [info.min, info.max, -1, 0, -2, 2**20, int(info.max // 2)])
            t.CopyFrom(onnx.numpy_helper.from_array(arr, t.name))
    elif t.data_type == TensorProto.FLOAT:
        arr = onnx.numpy_helper.to_array(t).copy()
        if arr.size:
            arr.reshape(-1)[rng.randrange(arr.size)] = rng.choice(FLOAT_VALUES)
            t.CopyFrom(onnx.numpy_helper.from_array(arr, t.name))
    else:
        t.raw_data = bytes(rng.randrange(256) for _ in range(rng.randrange(16)))
    return True


def constant_tensors(graph):
    out = list(graph.initializer)
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                out.append(a.t)
    return out


def mutate_initializer(model, rng):
    ts = constant_tensors(model.graph)
    if not ts:
        return False
    return mutate_tensor(rng.choice(ts), rng)


def input_to_initializer(model, rng):
    """A graph input becomes a constant: exercises constant folding."""
    g = model.graph
    vis = [v for v in g.input if v.type.HasField("tensor_type")
           and v.name not in {t.name for t in g.initializer}]
    if not vis:
        return False
    v = rng.choice(vis)
    tt = v.type.tensor_type
    dims = [d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim]
    if any(d < 0 or d > 4096 for d in dims) or int(np.prod(dims)) > 65536:
        return False
    try:
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
    except Exception:
        return False
    nprng = np.random.default_rng(rng.randrange(2**32))
    if np.issubdtype(dtype, np.integer):
        arr = nprng.integers(-3, 4, size=dims).astype(dtype)
    elif dtype == np.bool_:
        arr = nprng.integers(0, 2, size=dims).astype(np.bool_)
    elif np.issubdtype(dtype, np.floating):
        arr = nprng.uniform(-2, 2, size=dims).astype(dtype)
    else:
        return False
    g.initializer.append(onnx.numpy_helper.from_array(arr, v.name))
    g.input.remove(v)
    return True


def mutate_op_type(model, rng, op_types):
    if not model.graph.node:
        return False
    node = rng.choice(model.graph.node)
    node.op_type = rng.choice(op_types)
    return True


def mutate_opset(model, rng):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = rng.choice([1, 5, 7, 9, 11, 13, 17, 19, 21, 23, 24, 25, 99, 0, -1])
            return True
    return False


def mutate_node_order(model, rng):
    nodes = list(model.graph.node)
    if len(nodes) < 2:
        return False
    rng.shuffle(nodes)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return True


def duplicate_names(model, rng):
    g = model.graph
    if len(g.node) >= 1 and g.input:
        node = rng.choice(g.node)
        if node.output:
            node.output[0] = g.input[0].name
            return True
    return False


STRUCTURED = [mutate_dim, mutate_rank, mutate_elem_type, mutate_attribute, mutate_attribute,
              mutate_attribute_type, add_attribute, mutate_node_inputs, mutate_outputs,
              mutate_initializer, mutate_initializer, input_to_initializer,
              input_to_initializer, mutate_op_type, mutate_opset, mutate_node_order,
              duplicate_names]


def make_mutant(seed_bytes, rng, op_types, depth=0):
    """The mutant's bytes and the names of the mutations applied (1 to 3,
    mostly 1; with depth > 0, 1 to depth)."""
    if rng.random() < 0.06:
        data = bytearray(seed_bytes)
        if data and rng.random() < 0.5:
            for _ in range(rng.randrange(1, 9)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        else:
            data = data[:rng.randrange(len(data) + 1)]
        return bytes(data), ["bytes"]
    model = onnx.ModelProto()
    model.ParseFromString(seed_bytes)
    done = []
    for _ in range(rng.randint(1, depth) if depth else rng.choice([1, 1, 2, 3])):
        f = rng.choice(STRUCTURED)
        try:
            ok = f(model, rng, op_types) if f is mutate_op_type else f(model, rng)
        except (ValueError, TypeError, OverflowError):
            ok = False  # a tensor the previous mutations left unreadable to numpy
        if ok:
            done.append(f.__name__)
    return model.SerializeToString(), done


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
        return "timeout", text


def classify(rc, text):
    """None when the run ended properly, else what went wrong."""
    if rc == "timeout":
        return "hang"
    if rc == 0:
        return None
    if rc == 1:
        if "internal error" in text:  # (nunc's line for a failure that said nothing)
            return "internal error"
        return None if "error" in text else "exit 1 without an error message"
    if isinstance(rc, int) and rc < 0:
        return f"signal {-rc}"
    return f"exit {rc}"


def parse(data):
    """The mutant as a ModelProto, or None where its bytes do not parse
    (nunc must then refuse it; the helpers below answer for no model)."""
    try:
        return onnx.load_from_string(data)
    except Exception:
        return None


def grid_steps(model):
    """{graph output: the step of the grid it comes from}: a QuantizeLinear's
    codes (1) or a DequantizeLinear's values with one constant scale. The
    compiled epilogues round a QDQ model's ties in one step, so such an
    output may be a step off the evaluator's (docs/int8.md)."""
    if model is None:
        return {}
    scalars = {}
    for t in model.graph.initializer:
        try:
            a = onnx.numpy_helper.to_array(t)
        except Exception:
            continue
        if a.size == 1 and a.dtype.kind == "f":
            scalars[t.name] = abs(float(a.reshape(-1)[0]))
    outputs = {o.name for o in model.graph.output}
    steps = {}
    for n in model.graph.node:
        for o in n.output:
            if o not in outputs:
                continue
            if n.op_type == "QuantizeLinear":
                steps[o] = 1.0
            elif n.op_type == "DequantizeLinear" and len(n.input) > 1 and n.input[1] in scalars:
                steps[o] = scalars[n.input[1]]
    return steps


QUANTIZED_OPS = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv",
                 "QLinearMatMul", "MatMulInteger", "ConvInteger", "QLinearAdd", "QLinearMul",
                 "QAttention", "QEmbedLayerNormalization", "QLinearSoftmax",
                 "QLinearAveragePool", "QLinearGlobalAveragePool", "QLinearSigmoid",
                 "QLinearLeakyRelu", "QLinearConcat", "DynamicQuantizeMatMul"}


def quantized_ops(model):
    """How many quantized ops (QDQ, QOperator) the model holds."""
    return 0 if model is None else sum(n.op_type in QUANTIZED_OPS for n in model.graph.node)


def quantized_model(model):
    """Whether the model holds quantized ops of its own (QDQ, QOperator)."""
    return quantized_ops(model) > 0


def non_finite_constants(model):
    """Whether an initializer or Constant of the model holds NaN or an
    infinity."""
    if model is None:
        return False
    tensors = list(model.graph.initializer) + [
        a.t for n in model.graph.node if n.op_type == "Constant" for a in n.attribute
        if a.name == "value" and a.HasField("t")]
    for t in tensors:
        try:
            a = onnx.numpy_helper.to_array(t)
        except Exception:
            continue
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            return True
    return False


# In a quantized model (its own codes, or --quantize int8), a code that
# rounds the other way (the kernels' f32 steps against the evaluator's, or
# onnxruntime's kernels' steps) moves the outputs after it: up to this share
# of an output's elements may be off by up to this fraction of its largest
# magnitude, or the whole output keep this cosine (a QDQ encoder's
# LayerNorms spread a tie over their rows: onnxruntime's own runs of one at
# two optimization levels keep 0.9998; a bias lost in an epilogue gave
# 0.984).
TIE_SHARE, TIE_MAGNITUDE, TIE_COSINE = 0.05, 0.02, 0.999

# An element on which the evaluator and onnxruntime disagree may be off the
# evaluator's by this many times their difference.
ILL_CONDITIONED_SPREAD = 4


def outputs_agree(a_path, b_paths, steps=None, quantized=False, special=False):
    """None where the compiled outputs (a_path) agree with the evaluator's
    (b_paths[0]), each element with it or with another run's (onnxruntime's,
    where given: b_paths[1:]); `steps` as grid_steps gives them;
    `quantized`: a quantized model's ties; `special`: a non-finite element
    agrees with a non-finite one (NaN, inf or -inf: sums of infinities and
    of values near FLT_MAX differ by their order, and the evaluator sums in
    f64), and the relative tolerance is 1 %. An element on which the
    evaluator and another run disagree may be off the evaluator's by
    ILL_CONDITIONED_SPREAD times their difference."""
    steps = steps or {}
    a, b = np.load(a_path), np.load(b_paths[0])
    others = [np.load(p) for p in b_paths[1:]]
    if sorted(a.files) != sorted(b.files):
        return f"outputs differ in names: {sorted(a.files)} vs {sorted(b.files)}"
    for name in a.files:
        x, y = a[name], b[name]
        if x.shape != y.shape or x.dtype != y.dtype:
            return f"output {name}: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}"
        ys = [y] + [o[name] for o in others if name in o.files and o[name].shape == x.shape
                    and o[name].dtype == x.dtype]
        if x.dtype.kind == "f":
            # The evaluator rounds f16 intermediates as ONNX's reference
            # does; the kernels keep f32 between steps.
            rtol, atol = (2e-2, 2e-3) if x.dtype.itemsize < 4 else (1e-3, 1e-4)
            if special:  # (terms of 1e15 cancel to far smaller sums)
                rtol = max(rtol, 1e-2)
            xf = x.astype(np.float64)
            sames = []
            with np.errstate(invalid="ignore"):
                for other in ys:
                    yf = other.astype(np.float64)
                    same = (np.isclose(xf, yf, rtol=rtol, atol=atol)
                            | (np.isnan(xf) & np.isnan(yf))
                            | (np.abs(xf - yf) <= 1.001 * steps.get(name, 0.0)))
                    if special:
                        same |= ~np.isfinite(xf) & ~np.isfinite(yf)
                    sames.append(same)
                # Where the evaluator and onnxruntime disagree themselves
                # (sums of terms near inf that cancel), their difference
                # measures the element's conditioning.
                y0 = y.astype(np.float64)
                for other in ys[1:]:
                    spread = np.abs(other.astype(np.float64) - y0)
                    sames.append(np.abs(xf - y0) <= ILL_CONDITIONED_SPREAD * spread)
                if np.logical_or.reduce(sames).all() or (
                        quantized and any(ties(xf, o.astype(np.float64), same)
                                          for o, same in zip(ys, sames))):
                    continue
            same = sames[0]
        else:
            sames = [x == other for other in ys]
            if name in steps and x.dtype.kind in "iu":
                sames = [same | (np.abs(x.astype(np.int64) - other.astype(np.int64)) <= 1)
                         for same, other in zip(sames, ys)]
            if np.logical_or.reduce(sames).all():
                continue
            same = sames[0]
        i = int(np.argmin(same.reshape(-1)))
        return (f"output {name}: compiled {x.reshape(-1)[i]!r} vs reference "
                f"{y.reshape(-1)[i]!r} at flat index {i}")
    return None


def ties(xf, yf, same):
    """Whether the elements of xf off yf (not `same`) are a quantized
    model's rounding ties (TIE_SHARE and TIE_MAGNITUDE, or TIE_COSINE)."""
    if same.all():
        return True
    finite = np.isfinite(xf) & np.isfinite(yf)
    if not (same | finite).all() or not finite.any():  # a non-finite element off
        return False
    near = np.abs(xf - yf) <= TIE_MAGNITUDE * np.abs(yf[finite]).max()
    if (~same).mean() <= TIE_SHARE and (same | near).all():
        return True
    u, v = xf[finite], yf[finite]
    return bool(u @ v >= TIE_COSINE * np.linalg.norm(u) * np.linalg.norm(v) > 0)


def declared_input_bytes(model):
    """The bytes of the graph inputs' static dims (0 if unreadable)."""
    if model is None:
        return 0
    total = 0
    init = {t.name for t in model.graph.initializer}
    for v in model.graph.input:
        if v.name in init or not v.type.HasField("tensor_type"):
            continue
        n = 1
        for d in v.type.tensor_type.shape.dim:
            n *= max(d.dim_value, 1)
        total += n * 8
    return total


# Mutants whose inputs would take more than this are compiled, not run:
# `nunc run` would spend its time drawing random inputs.
RUN_LIMIT_BYTES = 256 << 20


# (No floats whose squares overflow f32: the evaluator sums normalizations
# in f64, where they stay finite.)
SPECIAL_FLOATS = [np.nan, np.inf, -np.inf, 1e15, -1e15, 3e-39, -0.0, 0.0, 65504.0, 1e-7]


def write_inputs(model, seed, path, special=False):
    """Writes random inputs to `path`, as `nunc run --random-inputs
    --int-range=-4:12` would draw them but for unsigned integers (here
    [0, 12)): floats uniform in [-1, 1), integers in [-4, 12), bools; with
    `special`, NaN, infinities, huge, subnormal and signed-zero
    floats among the uniform ones. False where an input's shape or type is
    not static and plain."""
    if model is None:
        return False
    rng = np.random.default_rng(seed)
    init = {t.name for t in model.graph.initializer}
    arrays = {}
    for v in model.graph.input:
        if v.name in init:
            continue
        if not v.type.HasField("tensor_type") or not v.type.tensor_type.HasField("shape"):
            return False
        dims = []
        for d in v.type.tensor_type.shape.dim:
            if not d.HasField("dim_value") or d.dim_value < 0:
                return False
            dims.append(d.dim_value)
        if int(np.prod(dims)) > (1 << 20):
            return False
        try:
            dtype = onnx.helper.tensor_dtype_to_np_dtype(v.type.tensor_type.elem_type)
        except Exception:
            return False
        if dtype == np.bool_:
            a = rng.integers(0, 2, dims).astype(np.bool_)
        elif np.issubdtype(dtype, np.integer):
            lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -4
            a = rng.integers(lo, 12, dims).astype(dtype)
        elif dtype in (np.float16, np.float32, np.float64):
            a = rng.uniform(-1, 1, dims).astype(dtype)
            if special:
                flat = a.reshape(-1)
                picks = rng.random(flat.size) < 0.1
                with np.errstate(over="ignore"):
                    flat[picks] = rng.choice(SPECIAL_FLOATS, int(picks.sum())).astype(dtype)
        else:
            return False
        arrays[v.name] = a
    try:
        np.savez(path, **arrays)
    except (TypeError, ValueError):  # a name numpy cannot store: nunc draws them
        return False
    return True


# The errors the compiled path may give where the evaluator runs: shapes
# that run-time values decide (nunc compiles static shapes), and int8
# kernels on tensors without elements.
COMPILE_ONLY_LIMITS = ("every dim must be static", "has no elements")

# Runs a model in onnxruntime on a .npz of inputs (argv: model, inputs,
# outputs), in a process of its own: a mutant may crash it.
ONNXRUNTIME_RUN = """
import sys, numpy as np, onnxruntime as ort
s = ort.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
feeds = dict(np.load(sys.argv[2]))
np.savez(sys.argv[3], **dict(zip([o.name for o in s.get_outputs()], s.run(None, feeds))))
"""


# Quantizes a model with onnxruntime's quantizer (argv: model, inputs
# (the calibration sample), output, then ort_quantize_variant's fields), in
# a process of its own.
ONNXRUNTIME_QUANTIZE = """
import logging, sys, numpy as np
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_dynamic, quantize_static)
logging.disable(logging.WARNING)
src, inputs, dst, kind, per_channel, activations, weights, symmetric = sys.argv[1:9]
types = {"u8": QuantType.QUInt8, "s8": QuantType.QInt8, "u16": QuantType.QUInt16}
if kind == "dynamic":
    quantize_dynamic(src, dst, weight_type=types[weights], per_channel=per_channel == "1")
else:
    class Reader(CalibrationDataReader):
        def __init__(self):
            self.samples = iter([dict(np.load(inputs))])
        def get_next(self):
            return next(self.samples, None)
    quantize_static(src, dst, Reader(),
                    quant_format=QuantFormat.QDQ if kind == "qdq" else QuantFormat.QOperator,
                    activation_type=types[activations], weight_type=types[weights],
                    per_channel=per_channel == "1",
                    extra_options={"ActivationSymmetric": symmetric == "1"})
"""


def ort_quantize_variant(i):
    """Mutant i's onnxruntime quantizer, by index so that a replay takes the
    same: (kind, per channel, activations, weights, symmetric activations)
    of quantize_static (QDQ; QOperator) or quantize_dynamic. QDQ takes u8,
    s8 or u16 activations (A16W8: the 16-bit inputs of the int8 GEMMs) and
    s8 weights, or u8 ones (zero points in the weights) with u8
    activations."""
    kind, j = ("qdq", "qdq", "qoperator", "qdq", "dynamic", "qdq")[i % 6], i // 6
    activations = ("u8", "s8", "u16")[j % 3] if kind == "qdq" else "u8"
    # (quantize_static refuses u8 weights with s8 activations)
    weights = "u8" if i % 7 in (2, 5) and activations == "u8" else "s8"
    symmetric = "1" if kind != "dynamic" and i % 5 == 1 else "0"
    return kind, str(j % 2), activations, weights, symmetric


def ort_quantized(path, inputs, dst, i, timeout):
    """The model at `path` quantized by onnxruntime (ort_quantize_variant(i),
    calibrated on `inputs`) as bytes (None where it refuses or adds no
    quantized op: a QDQ seed as it is), and that variant."""
    variant = ort_quantize_variant(i)
    cmd = [sys.executable, "-c", ONNXRUNTIME_QUANTIZE, path, inputs, dst, *variant]
    rc, _ = run(cmd, timeout)
    if rc != 0 or not os.path.exists(dst):
        return None, variant
    data = open(dst, "rb").read()
    added = quantized_ops(parse(data)) > quantized_ops(parse(open(path, "rb").read()))
    return (data if added else None), variant


def check_one(nunc, data, workdir, timeout, input_seed, extra=(), special=False, link=None,
              threads=1):
    """What went wrong with this mutant (None: nothing) and the transcript.
    `link`: also compile it as a library for this target (check_library)."""
    path = os.path.join(workdir, "model.onnx")
    with open(path, "wb") as f:
        f.write(data)
    model = parse(data)
    if STATIC_INT8 in extra:
        return check_static_int8(nunc, path, model, workdir, timeout, input_seed, special,
                                 threads, link or "native")
    if declared_input_bytes(model) > RUN_LIMIT_BYTES:
        cmd = [nunc, "compile", path, *extra, "-o", os.path.join(workdir, "lib")]
        rc, text = run(cmd, timeout)
        problem = classify(rc, text)
        return (f"compile: {problem}" if problem else None,
                f"$ {' '.join(cmd)}\nexit {rc}\n{text}\n")
    inputs = os.path.join(workdir, "inputs.npz")
    written = write_inputs(model, input_seed, inputs, special)
    if written:
        common = ["--input", inputs, *extra]
    else:
        common = ["--random-inputs", f"--seed={input_seed}", "--int-range=-4:12", *extra]
    out_c, out_r = os.path.join(workdir, "compiled.npz"), os.path.join(workdir, "reference.npz")
    int8 = any(f.endswith("int8") for f in extra)
    own_codes = quantized_model(model)
    quantized = int8 or own_codes
    # With --quantize int8 a QDQ model's own codes round as the evaluator
    # runs its ops (without --quantize, onnxruntime decides a mismatch).
    as_written = ["--one-step-requantization=false"] if int8 and own_codes else []
    cmd_c = [nunc, "run", path, *common, *as_written, "-o", out_c]
    cmd_r = [nunc, "run", "--reference", path, *common, "-o", out_r]
    rc_c, text_c = run(cmd_c, timeout)
    transcript = f"$ {' '.join(cmd_c)}\nexit {rc_c}\n{text_c}\n"
    problem = classify(rc_c, text_c)
    if problem:
        return f"compiled: {problem}", transcript
    rc_r, text_r = run(cmd_r, timeout)
    transcript += f"$ {' '.join(cmd_r)}\nexit {rc_r}\n{text_r}\n"
    problem = classify(rc_r, text_r)
    if problem:
        return f"reference: {problem}", transcript
    # The compiled path refuses only shapes that run-time values decide
    # (nunc compiles static shapes); any other refusal of a model the
    # evaluator runs is a defect (a 3.8 TB arena was one).
    if rc_c == 1 and rc_r == 0 and not any(m in text_c for m in COMPILE_ONLY_LIMITS):
        return "compiled refuses a model the evaluator runs", transcript
    # int8 ranges step over NaN as onnxruntime's do, and NaN and infinite
    # values have no codes: such runs are checked for crashes only.
    if rc_c == 0 and rc_r == 0 and not (int8 and (special or non_finite_constants(model))):
        steps = grid_steps(model)
        try:
            diff = outputs_agree(out_c, [out_r], steps, quantized, special)
            if diff and written and not int8:
                # A QDQ model's codes follow onnxruntime's kernels where the
                # evaluator runs the ops as written, and infinities' sums
                # their order: onnxruntime's run counts too.
                out_o = os.path.join(workdir, "onnxruntime.npz")
                rc_o, text_o = run([sys.executable, "-c", ONNXRUNTIME_RUN, path, inputs, out_o],
                                   timeout)
                transcript += f"$ onnxruntime {path} {inputs}\nexit {rc_o}\n{text_o}\n"
                if rc_o == 0:
                    diff = outputs_agree(out_c, [out_r, out_o], steps, quantized, special)
        except ValueError as e:  # (numpy reads at most 64 dims; nunc refuses more)
            return f"unreadable outputs: {e}", transcript
        if diff:
            return f"mismatch: {diff}", transcript
        if threads > 1:
            out_t = os.path.join(workdir, "threads.npz")
            cmd_t = [nunc, "run", path, *common, *as_written, f"--threads={threads}", "-o", out_t]
            rc_t, text_t = run(cmd_t, timeout)
            transcript += f"$ {' '.join(cmd_t)}\nexit {rc_t}\n{text_t}\n"
            if rc_t != 0:
                return f"compiled on {threads} threads: exit {rc_t}", transcript
            diff = same_bits(out_t, out_c)
            if diff:
                return f"compiled on {threads} threads: {diff}", transcript
        if link and written:
            problem, text = check_library(nunc, path, inputs, [*extra, *as_written], out_c,
                                          workdir, timeout, link, steps, quantized, special)
            transcript += text
            if problem:
                return f"library: {problem}", transcript
    return None, transcript


STATIC_INT8 = "--quantize=int8-static"
# And calibration samples whose activations are not finite (a mutant's
# weights overflow): no static range fits them.
STATIC_INT8_LIMITS = COMPILE_ONLY_LIMITS + ("int8 ranges need finite activations",)


def static_int8_variant(i, workdir):
    """Mutant i's calibration method and the options that change which
    layers quantize and how (by index, so a replay takes the same)."""
    flags = [f"--calib-method={('minmax', 'percentile=99.9', 'mse', 'entropy')[i % 4]}"]
    if i % 3 == 1:
        flags.append("--smoothquant")
    if i % 5 == 2:  # (the greedy search keeps layers in f32)
        flags += [f"--report={os.path.join(workdir, 'quant.md')}", "--accuracy-target=cos=0.9999"]
    if i % 7 == 3:
        flags.append("--min-handover-snr=0")
    if i % 11 == 4:
        flags.append("--attention=f32")
    return flags


def check_static_int8(nunc, path, model, workdir, timeout, input_seed, special, threads,
                      target):
    """--quantize=int8-static: `nunc compile --quantize int8 --activations
    static`, calibrated on the inputs the fuzzer writes, for `target`
    (--link-target's), must end cleanly; a library it builds must run (on
    one thread and on `threads`, the same bits) and give what the evaluator
    gives on the module that compile lowered (its static grids, u8 handovers and
    fused epilogues as the kernels take them), within a quantized model's
    ties; and it may refuse only what the f32 evaluator refuses too, shapes
    and empty tensors as the compiled path may, or calibration samples
    whose activations are not finite. Mutants whose inputs the fuzzer
    cannot write (no calibration samples) are left out."""
    inputs = os.path.join(workdir, "inputs.npz")
    if declared_input_bytes(model) > RUN_LIMIT_BYTES or not write_inputs(
            model, input_seed, inputs, special):
        return None, "(no calibration samples: left out)\n"
    lib, lowered = os.path.join(workdir, "lib"), os.path.join(workdir, "lowered.mlir")
    cmd = [nunc, "compile", path, "--target", target, "--split-batch=false",
           "--quantize=int8", "--activations=static", f"--calibration={inputs}",
           f"--print-lowered-ir={lowered}", "-o", lib, *static_int8_variant(input_seed, workdir)]
    rc, text = run(cmd, timeout)
    transcript = f"$ {' '.join(cmd)}\nexit {rc}\n{text}\n"
    problem = classify(rc, text)
    if problem:
        return f"static int8 compile: {problem}", transcript
    if rc != 0:
        out_f = os.path.join(workdir, "f32.npz")
        cmd_f = [nunc, "run", "--reference", path, "--input", inputs, "-o", out_f]
        rc_f, text_f = run(cmd_f, timeout)
        transcript += f"$ {' '.join(cmd_f)}\nexit {rc_f}\n{text_f}\n"
        problem = classify(rc_f, text_f)
        if problem:
            return f"reference: {problem}", transcript
        if rc_f == 0 and not any(m in text for m in STATIC_INT8_LIMITS):
            return "static int8 compile refuses a model the evaluator runs", transcript
        return None, transcript
    out_r = os.path.join(workdir, "reference.npz")
    problem, text = run_lowered(nunc, lowered, inputs, out_r, timeout)
    transcript += text
    if problem:
        return problem, transcript
    problem, got, text = run_library(lib, inputs, workdir, timeout)
    transcript += text
    if problem or not got:
        return problem, transcript
    if threads > 1:
        problem, got_t, text = run_library(lib, inputs, os.path.join(workdir, "threads"),
                                           timeout, threads)
        transcript += text
        diff = problem or (same_bits(got_t, got) if got_t else None)
        if diff:
            return f"the library on {threads} threads: {diff}", transcript
    if special or non_finite_constants(model):  # (ranges over NaN: crashes only)
        return None, transcript
    try:
        diff = outputs_agree(got, [out_r], grid_steps(model), quantized=True)
    except ValueError as e:
        return f"unreadable outputs: {e}", transcript
    return (f"mismatch with the lowered module: {diff}" if diff else None), transcript


def check_library(nunc, path, inputs, flags, out_c, workdir, timeout, target="native",
                  steps=None, quantized=False, special=False):
    """Compiles the model as a library with `flags` for `target`, links it
    into the tests' C driver and runs it on the same inputs. For this
    machine (native: the pipeline `nunc run` compiles with those flags, no
    batch split) its outputs must be `nunc run`'s bit for bit; for another
    target (its own kernels: AVX2, AVX-512 without VNNI, ...), the
    evaluator's on the module that compile lowered for it, as
    outputs_agree judges (`steps`, `quantized`, `special`). "native+split"
    keeps compile's batch split (a batch whose items no op mixes runs one
    item at a time): f32 outputs must still be `nunc run`'s bit for bit,
    int8 ones agree with them as outputs_agree judges (each image of a split
    batch takes its own dynamic conv input range, docs/int8.md).
    Returns (what went wrong or None, transcript)."""
    lib, lowered = os.path.join(workdir, "lib"), os.path.join(workdir, "lowered.mlir")
    split = target == "native+split"
    target = "native" if split else target
    native = target == "native"
    lowered_reference = not native
    cmd = [nunc, "compile", path, "--target", target,
           *([] if split else ["--split-batch=false"]), *flags,
           *([f"--print-lowered-ir={lowered}"] if lowered_reference else []), "-o", lib]
    rc, text = run(cmd, timeout)
    transcript = f"$ {' '.join(cmd)}\nexit {rc}\n{text}\n"
    problem = classify(rc, text)
    if problem:
        return f"nunc compile: {problem}", transcript
    if rc != 0:
        return "nunc compile fails where nunc run compiled", transcript
    want = out_c
    if lowered_reference:
        want = os.path.join(workdir, "lowered.npz")
        problem, text = run_lowered(nunc, lowered, inputs, want, timeout)
        transcript += text
        if problem:
            return problem, transcript
    problem, got, text = run_library(lib, inputs, workdir, timeout)
    transcript += text
    if problem or not got:
        return problem, transcript
    int8 = any(f.endswith("int8") for f in flags)
    if native and not (split and int8):
        return same_bits(got, out_c), transcript
    try:
        diff = outputs_agree(got, [want], steps, quantized, special)
    except ValueError as e:
        return f"unreadable outputs: {e}", transcript
    against = "the lowered module" if lowered_reference else "nunc run"
    return (f"against {against}: {diff}" if diff else None), transcript


def run_lowered(nunc, lowered, inputs, out, timeout):
    """The evaluator on the module `nunc compile --print-lowered-ir` wrote,
    its outputs to `out`: (what went wrong or None, transcript). It must
    run what compile compiled."""
    cmd = [nunc, "run", "--reference", lowered, "--input", inputs, "-o", out]
    rc, text = run(cmd, timeout)
    transcript = f"$ {' '.join(cmd)}\nexit {rc}\n{text}\n"
    if rc == 0:
        return None, transcript
    problem = classify(rc, text) or "refuses the module compile lowered"
    return f"reference on the lowered module: {problem}", transcript


def run_library(lib, inputs, workdir, timeout, threads=1):
    """Builds the C driver for the library in `lib` and runs it on the .npz
    `inputs`, on `threads` threads, in `workdir`: (what went wrong or None,
    the .npz of its outputs or None where they cannot be read back,
    transcript)."""
    try:
        exe, manifest = harness.build(lib)
    except RuntimeError as e:
        return "the header or library does not build", None, f"{e}\n"
    ios = manifest["inputs"] + manifest["outputs"]
    if any(io["dtype"] not in harness.NP_TYPES for io in ios):
        return None, None, ""  # (bfloat16: no numpy type to read it back)
    try:
        outs, _, log = harness.run(exe, manifest, dict(np.load(inputs)),
                                   os.path.join(workdir, "run"), threads=threads,
                                   timeout=timeout)
    except subprocess.TimeoutExpired:
        return "the library's run hangs", None, ""
    except (AssertionError, KeyError, ValueError) as e:  # (inputs the manifest does not take)
        return f"the library's inputs or outputs: {e!r}", None, ""
    transcript = f"$ driver {lib} (threads {threads})\n{log}\n"
    if outs is None:
        return "the library's run failed", None, transcript
    got = os.path.join(workdir, "library.npz")
    np.savez(got, **outs)
    return None, got, transcript


def same_bits(a_path, b_path):
    """None where two runs' outputs are the same bits (any NaN equal to any
    NaN), else the first difference."""
    a, b = np.load(a_path), np.load(b_path)
    if sorted(a.files) != sorted(b.files):
        return f"outputs {sorted(a.files)} where nunc run gave {sorted(b.files)}"
    for name in a.files:
        x, y = a[name], b[name]
        if x.dtype == np.bool_ or y.dtype == np.bool_:  # (the driver reads bools as bytes)
            x, y = x.astype(np.uint8), y.astype(np.uint8)
        if x.shape != y.shape or x.dtype != y.dtype:
            return f"output {name}: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}"
        if x.tobytes() == y.tobytes() or (
                x.dtype.kind == "f" and np.array_equal(x, y, equal_nan=True)):
            continue
        differ = (x != y) & ~(np.isnan(x) & np.isnan(y)) if x.dtype.kind == "f" else x != y
        i = int(np.argmax(differ.reshape(-1)))
        return (f"output {name}: {x.reshape(-1)[i]!r} vs nunc run's {y.reshape(-1)[i]!r} "
                f"at flat index {i}")
    return None


def load_seeds(paths):
    seeds = []
    for p in paths:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                m = os.path.join(p, name, "model.onnx")
                if os.path.isfile(m):
                    seeds.append((name, open(m, "rb").read()))
                elif name.endswith(".onnx"):
                    seeds.append((name, open(os.path.join(p, name), "rb").read()))
        else:
            seeds.append((os.path.basename(p), open(p, "rb").read()))
    return seeds


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nunc", required=True)
    p.add_argument("--seeds", nargs="*", default=[],
                   help="node-test directories (NAME/model.onnx) or .onnx files")
    p.add_argument("--iterations", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--skip", default="",
                   help="comma-separated substrings: seed models whose name holds one are left out")
    p.add_argument("--out", help="write each defect's mutant and transcript here")
    p.add_argument("--depth", type=int, default=0,
                   help="mutations per mutant: 1 to DEPTH (default: 1 to 3, mostly 1)")
    p.add_argument("--special-values", action="store_true",
                   help="inputs with NaN, infinities, huge and subnormal floats (where the "
                   "inputs' shapes are static)")
    p.add_argument("--quantize", help="pass --quantize to both runs (int8: the compiled int8 "
                   "kernels against the evaluator's int8 semantics); int8-static: compile "
                   "with static activations calibrated on the mutant's inputs and run the "
                   "library against the evaluator on the module compile lowered")
    p.add_argument("--ort-quantize", action="store_true",
                   help="also quantize each mutant that passes with onnxruntime's quantizers "
                   "(calibrated on its inputs) and check that model on the same inputs")
    p.add_argument("--link-every", type=int, default=0, metavar="K",
                   help="every K-th mutant that runs is also compiled "
                   "as a library, linked into a C program and run: its outputs must be "
                   "nunc run's, bit for bit (see --link-target)")
    p.add_argument("--link-target", default="native", metavar="T",
                   help="compile the --link-every libraries (and with --quantize=int8-static "
                   "every library) for this target: another than native is judged against "
                   "the evaluator on the module compile lowered for it, as the evaluator's "
                   "outputs are (x86_64-avx2, x86_64-avx512 and x86_64-avxvnni-evex run on "
                   "an AVX-512 VNNI host); native+split: this machine with compile's batch "
                   "split (int8 outputs within a quantized model's ties)")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="also run each mutant compiled on N threads: the same bits as on one")
    p.add_argument("--replay", help="run a saved mutant (a directory --out wrote) again")
    args = p.parse_args()
    if args.ort_quantize and args.quantize:
        p.error("--ort-quantize checks onnxruntime's quantized models, without --quantize")
    if "+" in args.link_target and args.link_target != "native+split":
        p.error("--link-target takes a target or native+split")
    if args.quantize == "int8-static" and args.link_target == "native+split":
        p.error("--quantize=int8-static compiles without the batch split (the lowered module "
                "then takes the batch)")

    extra = [f"--quantize={args.quantize}"] if args.quantize else []
    if args.replay:
        with tempfile.TemporaryDirectory() as w:
            data = open(os.path.join(args.replay, "model.onnx"), "rb").read()
            seed = int(open(os.path.join(args.replay, "input_seed")).read())
            flags_file = os.path.join(args.replay, "flags")
            if os.path.exists(flags_file):  # the flags it was found with
                flags = open(flags_file).read().split()
                extra = [f for f in flags if f not in ("--special-values", "--link")
                         and not f.startswith(("--threads=", "--link="))]
                args.special_values = "--special-values" in flags
                link = next((f.split("=", 1)[1] if "=" in f else "native" for f in flags
                             if f == "--link" or f.startswith("--link=")), None)
                args.threads = next((int(f.split("=")[1]) for f in flags
                                     if f.startswith("--threads=")), args.threads)
            else:
                link = (args.link_target if STATIC_INT8 in extra or args.link_every > 0
                        else None)
            problem, transcript = check_one(args.nunc, data, w, args.timeout, seed, extra,
                                            args.special_values, link, args.threads)
        print(transcript)
        print("defect:", problem or "none")
        return 1 if problem else 0

    skip = [s for s in args.skip.split(",") if s]
    seeds = [s for s in load_seeds(args.seeds) if not any(x in s[0] for x in skip)]
    if not seeds:
        sys.exit("no seed models")
    op_types = sorted({n.op_type for _, b in seeds for n in onnx.load_from_string(b).graph.node})

    def job(i):
        rng = random.Random(args.seed * 1_000_003 + i)
        name, base = seeds[rng.randrange(len(seeds))]
        if args.ort_quantize and rng.random() < 0.5:
            # The seed as it is: its calibration on the mutant's inputs
            # alone gives its quantized model other grids.
            data, how = base, ["none"]
        else:
            data, how = make_mutant(base, rng, op_types, args.depth)
        with tempfile.TemporaryDirectory() as w:
            link = (args.link_target if STATIC_INT8 in extra or (
                args.link_every > 0 and i % args.link_every == 0) else None)
            problem, transcript = check_one(args.nunc, data, w, args.timeout, i, extra,
                                            args.special_values, link, args.threads)
            inputs = os.path.join(w, "inputs.npz")
            quantized_by_ort = 0
            if args.ort_quantize and not problem and os.path.exists(inputs):
                # The same inputs: check_one writes them from the index.
                q = os.path.join(w, "quantized")
                os.makedirs(q)
                qdata, variant = ort_quantized(os.path.join(w, "model.onnx"), inputs,
                                               os.path.join(q, "source.onnx"), i, args.timeout)
                if qdata is not None:
                    quantized_by_ort = 1
                    problem, transcript = check_one(args.nunc, qdata, q, args.timeout, i, extra,
                                                    args.special_values, link, args.threads)
                    if problem:
                        data, name = qdata, f"{name}-ort-{'-'.join(variant)}"
        return i, name, how, data, problem, transcript, link, quantized_by_ort

    defects = quantized_by_ort = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for i, name, how, data, problem, transcript, link, by_ort in pool.map(
                job, range(args.iterations)):
            quantized_by_ort += by_ort
            if not problem:
                continue
            defects += 1
            print(f"[{i}] {name} ({', '.join(how)}): {problem}", flush=True)
            if args.out:
                d = os.path.join(args.out, f"{i:06d}-{name}")
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
                with open(os.path.join(d, "model.onnx"), "wb") as f:
                    f.write(data)
                with open(os.path.join(d, "input_seed"), "w") as f:
                    f.write(str(i))
                with open(os.path.join(d, "flags"), "w") as f:
                    f.write(" ".join(extra + (["--special-values"] if args.special_values
                                              else []) + ([f"--link={link}"] if link else [])
                                     + [f"--threads={args.threads}"]))
                with open(os.path.join(d, "transcript.txt"), "w") as f:
                    f.write(f"seed model {name}; mutations {how}\n{problem}\n\n{transcript}")
    print(f"{args.iterations} mutants, {defects} defects"
          + (f" ({quantized_by_ort} quantized by onnxruntime)" if args.ort_quantize else ""))
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
