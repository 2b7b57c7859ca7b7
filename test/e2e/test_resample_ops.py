"""Resize (opset 10-19, and Upsample), ConvTranspose and Col2Im compiled by
nunc and compared with onnxruntime (CPU, f32) on the awkward cases that
ONNX's backend node tests leave out, mostly as PyTorch exports them:

- Resize: F.interpolate's forms (nearest with asymmetric coordinates and
  floor rounding at scale 2, 1.5 and by sizes; linear with half_pixel and
  align_corners; pytorch_half_pixel with an output dim of 1; cubic with
  A = -0.75 and exclude_outside; antialiased downsampling; the `axes`
  attribute; tf_crop_and_resize with a roi and an extrapolation value) on
  odd shapes ([1,3,7,9] -> [1,3,17,13], batch 2, a 3-D input resized on its
  last dim, a 5-D nearest), scales as an initializer and as a Constant node,
  sizes computed from the input by the Shape -> Gather -> Mul -> Concat
  chain torch writes (folded once --shape pins the dims), uint8 data in
  nearest mode, and the located error for int8/uint8 data in linear mode.
  The coordinate transforms read length_resized: onnxruntime (and torch)
  take the integer output length, as the spec's text; onnx.reference, and
  so ONNX's node test data, the fractional scale * length, which differs
  once that is not an integer; onnxruntime is the reference here.
- Resize-10 and Upsample (opset 7 and 9): onnxruntime runs them with
  asymmetric coordinates (and its own nearest rounding), as nunc imports
  them.
- ConvTranspose, which nunc lowers to a grouped 1x1 convolution, a reshape
  and a Col2Im (+ the bias): PyTorch's upsampling layers (kernel 3 stride 2
  pads 1 output_padding 1; kernel 4 stride 2 pad 1; kernel 2 stride 2;
  DCGAN's first layer on a 1x1 input), groups and depthwise, dilations,
  SAME_UPPER / SAME_LOWER, output_shape (odd total padding), 1-D and 3-D,
  with and without bias, then a Relu, channel counts 3, 7 and 17; a
  decoder block ConvTranspose -> BatchNormalization -> Relu (dense,
  grouped, depthwise); output_padding 1 at stride 1 and dilation 2 (valid
  by the spec, refused by onnxruntime: see its test); and in
  `--quantize int8` mode, where the 1x1 convolution must run on the int8
  kernels (from `--explain`) and the output stay within int8 accuracy of
  f32 onnxruntime (cosine >= 0.999, as test_int8.py) and equal nunc's own
  int8 evaluator.
- Col2Im (opset 18) with pads, strides and dilations, 1-D to 3-D:
  onnxruntime has a CPU kernel for it, so it is the reference here too.

Every library runs on 1 and 2 threads; f32 outputs must match within
rtol = atol = 1e-5: float rounding only (measured at most 5e-6 absolute,
1e-6 of the output's largest value; most ConvTranspose and Col2Im cases
are bit-exact, nearest Resize always).
"""
import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

import harness
from test_compile import host_has

RTOL = ATOL = 1e-5
VNNI = host_has("avx512_vnni")
STEP = re.compile(r"(kernel|generic)\s+(\S+)\s+(.*?)\s+;\s+(.*)$")


def make_model(nodes, inputs, initializers, opset, outputs=("y",), dtype=TP.FLOAT):
    """inputs: (name, elem type, dims); initializers: name -> array."""
    g = h.make_graph(nodes, "resample",
                     [h.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                     [h.make_tensor_value_info(o, dtype, None) for o in outputs],
                     [nh.from_array(v, k) for k, v in initializers.items()])
    model = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def compile_model(nunc, tmp_path, model, *options):
    """Compiles the model; returns (program, manifest, nunc's result)."""
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    r = nunc("compile", path, "-o", tmp_path / "out", *options)
    exe, manifest = harness.build(str(tmp_path / "out"))
    return exe, manifest, r


def assert_matches(got, want, what):
    assert got.shape == want.shape, f"{what}: nunc shape {got.shape}, onnxruntime {want.shape}"
    assert got.dtype == want.dtype, f"{what}: nunc dtype {got.dtype}, onnxruntime {want.dtype}"
    if got.size == 0:
        return
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    bad = diff > ATOL + RTOL * np.abs(want.astype(np.float64))
    if bad.any():
        at = np.unravel_index(int(np.argmax(diff)), diff.shape)
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {diff.size} elements differ; max |nunc - ort| "
            f"{diff.max():.4g} at {tuple(map(int, at))} (nunc {got[at]}, ort {want[at]})")


def compare(nunc, tmp_path, model, feeds, *options):
    """Compiles and runs the model and checks every output against onnxruntime."""
    exe, manifest, r = compile_model(nunc, tmp_path, model, *options)
    want = harness.onnxruntime_outputs(model, feeds)
    for threads, outs in harness.run_threads(exe, manifest, feeds, tmp_path).items():
        for name, ref in want.items():
            assert_matches(outs[name], ref, f"{name} ({threads} threads)")
    return r


def resize_model(shape, opset, roi=None, scales=None, sizes=None, dtype=TP.FLOAT, **attrs):
    """One Resize node "up" with roi / scales / sizes as initializers."""
    inits, ins = {}, ["x", "", "", ""]
    for i, (name, value, np_type) in enumerate(
            (("roi", roi, np.float32), ("scales", scales, np.float32),
             ("sizes", sizes, np.int64)), start=1):
        if value is not None:
            inits[name] = np.array(value, np_type)
            ins[i] = name
    while ins[-1] == "":
        ins.pop()
    return make_model([h.make_node("Resize", ins, ["y"], name="up", **attrs)],
                      [("x", dtype, shape)], inits, opset, dtype=dtype)


NEAREST_FLOOR = dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                     nearest_mode="floor")  # F.interpolate(mode="nearest")
HALF_PIXEL = dict(mode="linear", coordinate_transformation_mode="half_pixel")
ALIGN_CORNERS = dict(mode="linear", coordinate_transformation_mode="align_corners")
TF_CROP = dict(coordinate_transformation_mode="tf_crop_and_resize",
               roi=[0, 0, 0.2, -0.1, 1, 1, 0.9, 1.3], extrapolation_value=-7.5)

# (id, input shape, opset, Resize inputs and attributes)
RESIZE_CASES = [
    ("nearest_floor_x2", [1, 3, 7, 9], 13, dict(scales=[1, 1, 2, 2], **NEAREST_FLOOR)),
    ("nearest_floor_x1.5_batch2", [2, 3, 7, 9], 13,
     dict(scales=[1, 1, 1.5, 1.5], **NEAREST_FLOOR)),
    ("nearest_floor_sizes", [1, 3, 7, 9], 13, dict(sizes=[1, 3, 17, 13], **NEAREST_FLOOR)),
    ("nearest_half_pixel_down", [1, 3, 7, 9], 19, dict(scales=[1, 1, 0.6, 0.45],
                                                       mode="nearest")),
    ("nearest_round_prefer_ceil_down", [1, 3, 7, 9], 19,
     dict(scales=[1, 1, 0.6, 0.45], mode="nearest", nearest_mode="round_prefer_ceil")),
    ("nearest_ceil", [1, 3, 7, 9], 19,
     dict(scales=[1, 1, 1.5, 0.7], mode="nearest", nearest_mode="ceil")),
    ("nearest_tf_half_pixel_for_nn", [1, 3, 7, 9], 11,
     dict(roi=[], scales=[], sizes=[1, 3, 12, 5], mode="nearest",
          coordinate_transformation_mode="tf_half_pixel_for_nn")),
    ("nearest_5d", [1, 2, 3, 4, 5], 19, dict(scales=[1, 1, 2, 1.5, 0.6], mode="nearest")),
    ("nearest_batch_dim", [2, 3, 7, 9], 19, dict(scales=[2, 1, 1, 1], mode="nearest")),
    ("linear_half_pixel_sizes", [2, 3, 7, 9], 13, dict(sizes=[2, 3, 17, 13], **HALF_PIXEL)),
    ("linear_half_pixel_scales", [2, 3, 7, 9], 13,
     dict(scales=[1, 1, 1.5, 2.5], **HALF_PIXEL)),
    ("linear_channel_dim", [2, 3, 7, 9], 19, dict(scales=[1, 2, 1, 1], mode="linear")),
    ("linear_asymmetric", [1, 3, 7, 9], 19,
     dict(scales=[1, 1, 1.5, 2], mode="linear", coordinate_transformation_mode="asymmetric")),
    ("linear_align_corners_sizes", [2, 3, 7, 9], 13,
     dict(sizes=[2, 3, 17, 13], **ALIGN_CORNERS)),
    ("linear_align_corners_x2", [1, 3, 7, 9], 13, dict(scales=[1, 1, 2, 2], **ALIGN_CORNERS)),
    # F.interpolate(scale_factor=1.5, align_corners=True) exports these
    # scales; 7 * 1.5 = 10.5 -> 10 rows. torch and onnxruntime divide by
    # 10 - 1 (the spec text's length_resized); onnx.reference, and so ONNX's
    # node tests resize_downsample_scales_{linear,cubic}_align_corners
    # (which onnxruntime fails), by 10.5 - 1, on purpose (onnx/onnx#2462).
    ("linear_align_corners_x1.5", [1, 3, 7, 9], 13,
     dict(scales=[1, 1, 1.5, 1.5], **ALIGN_CORNERS)),
    ("linear_align_corners_to_1", [1, 3, 7, 9], 13,
     dict(sizes=[1, 3, 1, 5], **ALIGN_CORNERS)),
    ("linear_pytorch_half_pixel_to_1", [1, 3, 7, 9], 13,
     dict(sizes=[1, 3, 1, 13], mode="linear",
          coordinate_transformation_mode="pytorch_half_pixel")),
    # The spec and onnxruntime: x_original = 0 where length_resized is 1
    # (onnx.reference: -0.5, where scale * length is 1). Linear cannot tell
    # 0 from -0.5 (both read row 0); cubic can. 3 * 0.4 = 1.2 -> 1 row.
    ("cubic_pytorch_half_pixel_to_1", [1, 3, 7, 9], 13,
     dict(sizes=[1, 3, 1, 13], mode="cubic",
          coordinate_transformation_mode="pytorch_half_pixel")),
    ("cubic_pytorch_half_pixel_scale_to_1", [1, 3, 3, 9], 13,
     dict(scales=[1, 1, 0.4, 1], mode="cubic",
          coordinate_transformation_mode="pytorch_half_pixel")),
    ("nearest_pytorch_half_pixel_to_1", [1, 3, 7, 9], 13,
     dict(sizes=[1, 3, 1, 13], mode="nearest",
          coordinate_transformation_mode="pytorch_half_pixel")),
    ("cubic_half_pixel", [1, 3, 7, 9], 13,
     dict(sizes=[1, 3, 17, 13], mode="cubic", cubic_coeff_a=-0.75)),
    ("cubic_half_pixel_exclude_outside", [1, 3, 7, 9], 13,
     dict(sizes=[1, 3, 17, 13], mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1)),
    ("cubic_down_exclude_outside", [1, 3, 17, 13], 13,
     dict(sizes=[1, 3, 7, 9], mode="cubic", exclude_outside=1)),
    ("cubic_opset11_empty_roi", [1, 3, 7, 9], 11,
     dict(roi=[], scales=[1, 1, 1.5, 2], mode="cubic")),
    ("linear_antialias_sizes", [1, 3, 17, 23], 18,
     dict(sizes=[1, 3, 7, 9], mode="linear", antialias=1)),
    ("linear_antialias_scales", [1, 3, 17, 23], 18,
     dict(scales=[1, 1, 0.4, 0.35], mode="linear", antialias=1)),
    ("linear_antialias_up_and_down", [1, 3, 5, 6], 18,
     dict(scales=[1, 1, 2, 0.5], mode="linear", antialias=1)),
    ("cubic_antialias", [1, 3, 17, 23], 18, dict(sizes=[1, 3, 7, 9], mode="cubic", antialias=1)),
    ("cubic_antialias_exclude_outside", [1, 3, 17, 23], 18,
     dict(sizes=[1, 3, 7, 9], mode="cubic", antialias=1, exclude_outside=1)),
    ("linear_axes", [2, 3, 7, 9], 18, dict(sizes=[11, 5], axes=[3, 2], mode="linear")),
    ("nearest_negative_axis", [2, 3, 7, 9], 18, dict(scales=[2], axes=[-1], mode="nearest")),
    ("linear_not_larger", [1, 3, 7, 9], 18,
     dict(sizes=[20, 20], axes=[2, 3], mode="linear", keep_aspect_ratio_policy="not_larger")),
    ("linear_not_smaller", [1, 3, 7, 9], 18,
     dict(sizes=[20, 20], axes=[2, 3], mode="linear", keep_aspect_ratio_policy="not_smaller")),
    ("linear_half_pixel_symmetric", [1, 3, 7, 9], 19,
     dict(scales=[1, 1, 1.7, 0.7], mode="linear",
          coordinate_transformation_mode="half_pixel_symmetric")),
    # Row 8's source: onnxruntime rounds offset + (8 + 0.5) / 2.5 - 0.5 once
    # (its 0.5s are doubles): 3.0, which ceil keeps; three f32 roundings
    # give 3.0000002 and row 4.
    ("nearest_half_pixel_symmetric_ceil", [1, 1, 5, 6], 19,
     dict(scales=[1, 1, 2.5, 0.35], mode="nearest", nearest_mode="ceil",
          coordinate_transformation_mode="half_pixel_symmetric")),
    # 7 / 6 * 27 = 31.5 in double, 31.4999981 in f32: onnxruntime rounds the
    # f32 product to 31 columns. (Linear: in nearest mode onnxruntime's
    # column 17, at 14.500001 in f32, reads column 14, as if it multiplied
    # by the reciprocal scale; nunc divides, as for every other mode.)
    ("keep_aspect_tie", [1, 1, 6, 27], 18,
     dict(sizes=[7, 1], axes=[2, 3], mode="linear", keep_aspect_ratio_policy="not_smaller")),
    ("cubic_half_pixel_symmetric", [1, 3, 7, 9], 19,
     dict(sizes=[1, 3, 10, 4], mode="cubic",
          coordinate_transformation_mode="half_pixel_symmetric")),
    ("tf_crop_and_resize_linear", [1, 3, 7, 9], 13,
     dict(sizes=[1, 3, 5, 6], mode="linear", **TF_CROP)),
    ("tf_crop_and_resize_nearest", [1, 3, 7, 9], 13,
     dict(sizes=[1, 3, 5, 6], mode="nearest", **TF_CROP)),
    ("tf_crop_and_resize_cubic", [1, 3, 7, 9], 13,
     dict(sizes=[1, 3, 5, 6], mode="cubic", **TF_CROP)),
    ("tf_crop_and_resize_to_1", [1, 3, 7, 9], 13,
     dict(sizes=[1, 3, 1, 6], mode="linear", **TF_CROP)),
    # 7 * 1.5 = 10.5 -> 10 rows, 9 * 0.8 = 7.2 -> 7 columns: as align_corners
    # above, onnxruntime divides by 10 - 1 and 7 - 1, onnx.reference by
    # 10.5 - 1 and 7.2 - 1.
    ("tf_crop_and_resize_scales", [1, 3, 7, 9], 13,
     dict(scales=[1, 1, 1.5, 0.8], mode="linear", **TF_CROP)),
    ("tf_crop_and_resize_axes", [1, 3, 7, 9], 18,
     dict(sizes=[5, 6], axes=[2, 3], mode="linear", extrapolation_value=-7.5,
          coordinate_transformation_mode="tf_crop_and_resize", roi=[0.2, -0.1, 0.9, 1.3])),
    ("linear_3d_last_dim", [2, 5, 7], 13, dict(sizes=[2, 5, 12], mode="linear")),
    # F.interpolate(scale_factor=(0.7, 1.4)) on 10 x 5 gives 7 x 7 (sizes
    # floor(10 * 0.7) in double), and so does onnxruntime from the f32
    # scales (it multiplies in float: 10 * 0.7f rounds to 7.0f). The f32
    # scale 0.699999988 times 10 in exact arithmetic is 6.99999988, which
    # onnx's shape inference and onnx.reference floor to 6. The source row
    # of output row 3 is then (3 + 0.5) / 0.7f - 0.5: 4.5 in f32, a tie
    # that round_prefer_floor takes down, 4.50000009 in double: nunc
    # computes the coordinates in f32, as onnxruntime.
    ("nearest_f32_scales_0.7_1.4", [1, 3, 10, 5], 13,
     dict(scales=[1, 1, 0.7, 1.4], mode="nearest")),
]


@pytest.mark.parametrize("shape,opset,spec", [c[1:] for c in RESIZE_CASES],
                         ids=[c[0] for c in RESIZE_CASES])
def test_resize_matches_onnxruntime(nunc, tmp_path, shape, opset, spec):
    x = np.random.default_rng(len(shape) + opset).standard_normal(shape).astype(np.float32)
    compare(nunc, tmp_path, resize_model(shape, opset, **spec), {"x": x})


def test_resize_scales_constant_and_sizes_from_shape(nunc, tmp_path):
    """What torch writes: scales from a Constant node; sizes computed from the
    input's shape (Shape, Gather, Cast, Mul, Floor, Cast, Unsqueeze, Slice,
    Concat) on symbolic dims, which --shape pins and nunc folds to
    constants."""
    def const(name, value):
        return h.make_node("Constant", [], [name], value=nh.from_array(value))

    nodes = [
        h.make_node("Shape", ["x"], ["shape"]),
        const("two_i", np.array(2, np.int64)), const("three_i", np.array(3, np.int64)),
        h.make_node("Gather", ["shape", "two_i"], ["height"], axis=0),
        h.make_node("Gather", ["shape", "three_i"], ["width"], axis=0),
        # floor(height * 2.5) through float, as torch's scale_factor export;
        # width * 2 in int64
        h.make_node("Cast", ["height"], ["height_f"], to=TP.FLOAT),
        const("factor", np.array(2.5, np.float32)),
        h.make_node("Mul", ["height_f", "factor"], ["height_scaled"]),
        h.make_node("Floor", ["height_scaled"], ["height_floor"]),
        h.make_node("Cast", ["height_floor"], ["out_height"], to=TP.INT64),
        h.make_node("Mul", ["width", "two_i"], ["out_width"]),
        h.make_node("Unsqueeze", ["out_height", "axis0"], ["h1"]),
        h.make_node("Unsqueeze", ["out_width", "axis0"], ["w1"]),
        h.make_node("Slice", ["shape", "start", "stop"], ["batch_channels"]),
        h.make_node("Concat", ["batch_channels", "h1", "w1"], ["sizes"], axis=0),
        h.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear",
                    coordinate_transformation_mode="pytorch_half_pixel"),
        const("scales", np.array([1, 1, 1.5, 1.5], np.float32)),
        h.make_node("Resize", ["x", "", "scales"], ["y_nearest"], **NEAREST_FLOOR),
    ]
    inits = {"axis0": np.array([0], np.int64), "start": np.array([0], np.int64),
             "stop": np.array([2], np.int64)}
    model = make_model(nodes, [("x", TP.FLOAT, ["N", 3, "H", "W"])], inits, 13,
                       outputs=("y", "y_nearest"))
    x = np.random.default_rng(1).standard_normal((2, 3, 7, 9)).astype(np.float32)
    compare(nunc, tmp_path, model, {"x": x}, "--shape", "x=2x3x7x9")


def test_tf_crop_and_resize_crops_a_dim_of_unchanged_size(nunc, tmp_path):
    """A roi on a dim whose size does not change still crops it, as ONNX's
    reference does (onnxruntime 1.32 skips such a dim and ignores its
    roi); compared with onnx.reference here."""
    from onnx.reference import ReferenceEvaluator
    model = resize_model([1, 2, 4, 5], 19, roi=[0, 0, 0.1, 0.2, 1, 1, 0.8, 0.9],
                         sizes=[1, 2, 4, 5], mode="linear",
                         coordinate_transformation_mode="tf_crop_and_resize")
    x = np.random.default_rng(4).standard_normal([1, 2, 4, 5]).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    assert not np.allclose(want, x), "the roi must change the values"
    exe, manifest, _ = compile_model(nunc, tmp_path, model)
    for threads, outs in harness.run_threads(exe, manifest, {"x": x}, tmp_path).items():
        np.testing.assert_allclose(outs["y"], want, rtol=1e-5, atol=1e-5,
                                   err_msg=f"{threads} threads")


def test_resize_nearest_on_uint8(nunc, tmp_path):
    x = np.random.default_rng(2).integers(0, 256, (2, 3, 7, 9)).astype(np.uint8)
    model = resize_model([2, 3, 7, 9], 19, scales=[1, 1, 1.5, 2], dtype=TP.UINT8,
                         **NEAREST_FLOOR)
    compare(nunc, tmp_path, model, {"x": x})


@pytest.mark.parametrize("dtype,name", [(TP.UINT8, "uint8"), (TP.INT8, "int8")],
                         ids=["uint8", "int8"])
def test_resize_linear_on_integers_is_a_located_error(nunc, tmp_path, dtype, name):
    """onnxruntime interpolates 8-bit data; nunc's linear and cubic kernels
    take float only: a located error, no library, no crash."""
    path = tmp_path / "model.onnx"
    onnx.save(resize_model([1, 3, 7, 9], 19, scales=[1, 1, 1.5, 2], dtype=dtype,
                           mode="linear"), str(path))
    r = nunc("compile", path, "-o", tmp_path / "out", check=False)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert (f'model.onnx: node "up" (Resize, opset 19): error: linear Resize takes float '
            f"data, got '{name}'") in r.stderr, r.stderr
    assert not (tmp_path / "out" / "libmodel.a").exists()


# (op, opset, mode): Resize-10 and Upsample-9 take scales as an input,
# Upsample-7 as an attribute.
LEGACY = [("Resize", 10, "nearest"), ("Resize", 10, "linear"), ("Upsample", 9, "nearest"),
          ("Upsample", 9, "linear"), ("Upsample", 7, "nearest"), ("Upsample", 7, "linear")]


@pytest.mark.parametrize("op,opset,mode", LEGACY,
                         ids=[f"{op}{opset}-{mode}" for op, opset, mode in LEGACY])
def test_legacy_resize_and_upsample_match_onnxruntime(nunc, tmp_path, op, opset, mode):
    """Several scales per model, one node each: 2 and 2; 1.5 and 2.5 (odd
    sizes); downsampling 0.6 and 0.45 (Resize-10 only: Upsample's scales
    must be >= 1); and, nearest only, 2 on the batch dim (onnxruntime's
    linear mode resizes the last two dims only)."""
    all_scales = [[1, 1, 2, 2], [1, 1, 1.5, 2.5]]
    if op == "Resize":
        all_scales.append([1, 1, 0.6, 0.45])
    if mode == "nearest":
        all_scales.append([2, 1, 1, 1])
    nodes, inits, outputs = [], {}, []
    for i, scales in enumerate(all_scales):
        outputs.append(f"y{i}")
        if opset < 9:
            nodes.append(h.make_node(op, ["x"], [f"y{i}"], mode=mode,
                                     scales=[float(s) for s in scales]))
        else:
            inits[f"scales{i}"] = np.array(scales, np.float32)
            nodes.append(h.make_node(op, ["x", f"scales{i}"], [f"y{i}"], mode=mode))
    model = make_model(nodes, [("x", TP.FLOAT, [2, 3, 7, 9])], inits, opset, outputs)
    x = np.random.default_rng(opset).standard_normal((2, 3, 7, 9)).astype(np.float32)
    compare(nunc, tmp_path, model, {"x": x})


def conv_transpose_model(x_shape, out_channels, kernel, seed, group=1, bias=True, relu=False,
                         **attrs):
    """ConvTranspose "up" (+ Relu): weights [C, M / group, kernel...]."""
    r = np.random.default_rng(seed)
    kernel = kernel if isinstance(kernel, list) else [kernel] * (len(x_shape) - 2)
    inits = {"w": (r.standard_normal([x_shape[1], out_channels // group, *kernel]) * 0.3)
             .astype(np.float32)}
    ins = ["x", "w"]
    if bias:
        inits["b"] = r.standard_normal(out_channels).astype(np.float32)
        ins.append("b")
    nodes = [h.make_node("ConvTranspose", ins, ["t" if relu else "y"], name="up", group=group,
                         **attrs)]
    if relu:
        nodes.append(h.make_node("Relu", ["t"], ["y"]))
    model = make_model(nodes, [("x", TP.FLOAT, ["N", *x_shape[1:]])], inits, 17)
    return model, {"x": r.standard_normal(x_shape).astype(np.float32)}


# (id, input shape, output channels, kernel, group, bias, relu, attributes)
CONV_TRANSPOSE_CASES = [
    ("k3_s2_p1_op1", [1, 3, 7, 9], 7, 3, 1, True, False,
     dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])),
    ("k3_s2_p1_op1_relu", [2, 3, 7, 9], 17, 3, 1, True, True,
     dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])),
    ("k3_s2_p1_op1_no_bias", [1, 3, 7, 9], 17, 3, 1, False, False,
     dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])),
    ("k4_s2_p1", [2, 7, 5, 6], 17, 4, 1, True, False, dict(strides=[2, 2], pads=[1, 1, 1, 1])),
    ("k2_s2", [1, 16, 8, 10], 8, 2, 1, True, False, dict(strides=[2, 2])),
    ("dcgan_1x1_input", [2, 100, 1, 1], 64, 4, 1, False, False, {}),
    ("group2", [1, 6, 5, 7], 10, 3, 2, True, False,
     dict(strides=[2, 2], pads=[1, 0, 1, 2])),
    ("depthwise17", [1, 17, 5, 7], 17, 3, 17, True, False,
     dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])),
    ("depthwise_multiplier2", [1, 3, 5, 7], 6, 3, 3, True, False, dict(strides=[2, 1])),
    ("dilations2", [1, 3, 5, 7], 7, 3, 1, True, False,
     dict(dilations=[2, 2], strides=[1, 2], pads=[2, 1, 0, 1])),
    ("pads_beyond_kernel", [1, 3, 7, 9], 5, 3, 1, False, False, dict(pads=[2, 2, 3, 1])),
    ("stride3_op2", [1, 3, 7, 9], 5, 3, 1, True, False,
     dict(strides=[3, 2], output_padding=[2, 1], pads=[0, 1, 1, 0])),
    ("same_upper_k4", [1, 3, 5, 7], 7, 4, 1, True, False,
     dict(strides=[2, 2], auto_pad="SAME_UPPER")),
    ("same_lower_k4", [1, 3, 5, 7], 7, 4, 1, True, False,
     dict(strides=[2, 2], auto_pad="SAME_LOWER")),
    ("same_upper_k3", [1, 3, 5, 7], 7, 3, 1, True, False,
     dict(strides=[2, 2], auto_pad="SAME_UPPER")),
    ("same_lower_k3", [1, 3, 5, 7], 7, 3, 1, True, False,
     dict(strides=[2, 2], auto_pad="SAME_LOWER")),
    ("same_upper_s3", [1, 3, 5, 7], 7, 3, 1, True, False,
     dict(strides=[3, 3], auto_pad="SAME_UPPER")),
    # natural output 11 x 15: total padding 1 and 1 (odd) for [10, 14], 1 and 2
    # for [10, 13], none for [12, 16] (past the natural size: zeros + bias)
    ("output_shape_odd_padding", [1, 3, 5, 7], 7, 3, 1, True, False,
     dict(strides=[2, 2], output_shape=[10, 14])),
    ("output_shape_same_upper", [1, 3, 5, 7], 7, 3, 1, True, False,
     dict(strides=[2, 2], output_shape=[10, 13], auto_pad="SAME_UPPER")),
    ("output_shape_same_lower", [1, 3, 5, 7], 7, 3, 1, True, False,
     dict(strides=[2, 2], output_shape=[10, 13], auto_pad="SAME_LOWER")),
    ("output_shape_larger", [1, 3, 5, 7], 7, 3, 1, True, False,
     dict(strides=[2, 2], output_shape=[12, 16])),
    ("1d", [2, 7, 11], 3, 5, 1, True, False, dict(strides=[3], pads=[2, 1])),
    ("3d", [1, 3, 3, 4, 5], 7, [3, 2, 3], 1, True, False,
     dict(strides=[2, 1, 2], pads=[1, 0, 0, 1, 1, 1])),
]


@pytest.mark.parametrize("x_shape,out_channels,kernel,group,bias,relu,attrs",
                         [c[1:] for c in CONV_TRANSPOSE_CASES],
                         ids=[c[0] for c in CONV_TRANSPOSE_CASES])
def test_conv_transpose_matches_onnxruntime(nunc, tmp_path, x_shape, out_channels, kernel,
                                            group, bias, relu, attrs):
    model, feeds = conv_transpose_model(x_shape, out_channels, kernel, len(x_shape) * 7 + group,
                                        group, bias, relu, **attrs)
    compare(nunc, tmp_path, model, feeds, "--shape", "x=" + "x".join(map(str, x_shape)))


@pytest.mark.parametrize("group,channels,bias", [(1, 12, False), (2, 12, True), (6, 6, False)],
                         ids=["dense", "group2_bias", "depthwise"])
def test_conv_transpose_batch_norm_relu(nunc, tmp_path, group, channels, bias):
    """A decoder block as torch exports it: ConvTranspose (k3 s2 p1 op1),
    BatchNormalization, Relu; nunc may fold the batch norm into the
    weights, whose output channels are dim 1 ([C, M / group, k, k])."""
    model, feeds = conv_transpose_model([2, 6, 5, 7], channels, 3, 3 + group, group, bias,
                                        strides=[2, 2], pads=[1, 1, 1, 1],
                                        output_padding=[1, 1])
    r = np.random.default_rng(group)
    norm = {"scale": r.uniform(0.5, 2, channels), "shift": r.standard_normal(channels),
            "mean": r.standard_normal(channels), "var": r.uniform(0.5, 2, channels)}
    model.graph.initializer.extend(nh.from_array(v.astype(np.float32), k)
                                   for k, v in norm.items())
    model.graph.node[0].output[0] = "t"
    model.graph.node.extend([
        h.make_node("BatchNormalization", ["t", *norm], ["n"], epsilon=1e-5),
        h.make_node("Relu", ["n"], ["y"])])
    compare(nunc, tmp_path, model, feeds, "--shape", "x=2x6x5x7")


def test_conv_transpose_output_padding_below_dilation(nunc, tmp_path):
    """The spec, torch and nunc's own shape rule allow an output_padding
    below the stride or the dilation: stride 1, dilation 2, output_padding 1
    adds a last row and column that no input reaches (the bias alone).
    onnxruntime and onnx.reference refuse this model at run time, so the
    reference is onnxruntime's output without the output_padding, padded
    with the bias. nunc must either compute that or refuse it with one
    located error about output_padding."""
    attrs = dict(dilations=[2, 2], strides=[1, 1])
    model, feeds = conv_transpose_model([1, 3, 5, 7], 7, 3, 11, output_padding=[1, 1], **attrs)
    plain, _ = conv_transpose_model([1, 3, 5, 7], 7, 3, 11, **attrs)
    want = harness.onnxruntime_outputs(plain, feeds)["y"]
    bias = nh.to_array(next(i for i in model.graph.initializer if i.name == "b"))
    want = np.pad(want, [(0, 0), (0, 0), (0, 1), (0, 1)])
    want[:, :, -1, :] = want[:, :, :, -1] = bias[None, :, None]
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    r = nunc("compile", path, "-o", tmp_path / "out", "--shape", "x=1x3x5x7", check=False)
    if r.returncode != 0:
        errors = [line for line in r.stderr.splitlines() if "error:" in line]
        assert r.returncode == 1 and len(errors) == 1 and "output_padding" in errors[0] and \
            'node "up" (ConvTranspose, opset 17)' in errors[0], r.stderr
        return
    exe, manifest = harness.build(str(tmp_path / "out"))
    for threads, outs in harness.run_threads(exe, manifest, feeds, tmp_path).items():
        assert_matches(outs["y"], want, f"y ({threads} threads)")


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


@pytest.mark.skipif(not VNNI, reason="the host lacks AVX-512 VNNI (int8 convolutions)")
def test_conv_transpose_int8(nunc, tmp_path):
    """--quantize int8 (dynamic activations): the ConvTranspose's 1x1
    convolution runs on the int8 kernel (the col2im and the bias stay f32),
    the output keeps f32's direction (cosine >= 0.999 against onnxruntime,
    as test_int8.py), and the library equals nunc's int8 evaluator, item by
    item, up to float rounding."""
    x_shape = [2, 32, 9, 11]
    model, feeds = conv_transpose_model(x_shape, 24, 4, 5, relu=True, strides=[2, 2],
                                        pads=[1, 1, 1, 1])
    pin = ["--shape", "x=" + "x".join(map(str, x_shape))]
    exe, manifest, r = compile_model(nunc, tmp_path, model, "--target", "x86_64-avx512vnni",
                                     "--quantize", "int8", "--explain", *pin)
    assert "int8: 0 linear ops, 1 convolution, 0 embedding tables" in r.stderr, r.stderr
    steps = [m.groups() for m in map(STEP.match, r.stdout.splitlines()) if m]
    total = re.search(r"^(\d+) steps", r.stdout, re.M)
    assert total and len(steps) == int(total.group(1)), r.stdout
    ours = [(op, kernel) for _, op, kernel, where in steps
            if 'node "up" (ConvTranspose, opset 17)' in where]
    assert [op for op, _ in ours][:2] == ["nunc.quantized_conv", "nunc.col2im"], r.stdout
    assert ours[0][1].startswith("conv.int8.avx512vnni[") and "1x1 kernel" in ours[0][1], ours
    want = harness.onnxruntime_outputs(model, feeds)["y"]
    results = harness.run_threads(exe, manifest, feeds, tmp_path)
    for threads, outs in results.items():
        c = cosine(outs["y"], want)
        assert c >= 0.999, f"{threads} threads: cosine {c:.6f}"
    # The batch of 2 runs one item at a time (nunc-split-batch: dynamic
    # ranges per item), so the evaluator runs each item alone.
    assert "runs the batch of 2 one item at a time" in r.stderr, r.stderr
    one = ["--shape", "x=" + "x".join(map(str, [1] + x_shape[1:]))]
    for i in range(x_shape[0]):
        np.savez(tmp_path / "in.npz", x=feeds["x"][i:i + 1])
        nunc("run", "--reference", tmp_path / "model.onnx", "--input", tmp_path / "in.npz",
             *one, "--quantize", "int8", "-o", tmp_path / "ref.npz")
        ref = np.load(tmp_path / "ref.npz")["y"]
        np.testing.assert_allclose(results[1]["y"][i:i + 1], ref, rtol=1e-5,
                                   atol=1e-5 * np.abs(ref).max(), err_msg=f"item {i}")


def test_conv_transpose_qdq_matches_onnxruntime(nunc, tmp_path):
    """onnxruntime's quantize_static QDQ model of a ConvTranspose (k4 s2 p1)
    + Relu (u8 activations, s8 weights per channel): nunc lowers it through
    the weight's DequantizeLinear (the Reshape/Transpose fold once that is
    a constant) and rounds to the model's grids. It must agree with
    onnxruntime (which runs the QDQ node in int8) within one step of the
    output grid."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    model, feeds = conv_transpose_model([1, 8, 6, 7], 6, 4, 9, relu=True, strides=[2, 2],
                                        pads=[1, 1, 1, 1])
    f32 = tmp_path / "f32.onnx"
    onnx.save(model, str(f32))
    rng = np.random.default_rng(10)
    samples = [rng.standard_normal([1, 8, 6, 7]).astype(np.float32) for _ in range(8)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(samples)

        def get_next(self):
            x = next(self.it, None)
            return None if x is None else {"x": x}

    qdq = tmp_path / "qdq.onnx"
    quantize_static(str(f32), str(qdq), Reader(), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8)
    qmodel = onnx.load(str(qdq))
    assert any(n.op_type == "DequantizeLinear" for n in qmodel.graph.node)
    # The output grid: the scale of the last DequantizeLinear.
    last = [n for n in qmodel.graph.node if n.op_type == "DequantizeLinear"][-1]
    scale = float(nh.to_array(next(i for i in qmodel.graph.initializer
                                   if i.name == last.input[1])))
    exe, manifest, r = compile_model(nunc, tmp_path, qmodel, "--shape", "x=1x8x6x7")
    want = harness.onnxruntime_outputs(qmodel, feeds)["y"]
    for threads, outs in harness.run_threads(exe, manifest, feeds, tmp_path).items():
        diff = np.abs(outs["y"] - want)
        print(f"QDQ ConvTranspose ({threads} threads): max |nunc - ort| {diff.max():.4g}, "
              f"grid step {scale:.4g}, same step {(diff < scale / 2).mean():.2%}")
        assert diff.max() <= scale * 1.01, (threads, diff.max(), scale)
        # Most elements on the same step (a rounding tie may differ).
        assert (diff < scale / 2).mean() >= 0.98, (threads, (diff < scale / 2).mean())


# (id, input shape [N, C * prod(block), L], image_shape, block_shape, attributes)
COL2IM_CASES = [
    ("plain", [1, 2 * 3 * 3, 35], [7, 9], [3, 3], {}),
    ("pads_strides_dilations", [1, 2 * 3 * 3, 40], [9, 11], [3, 3],
     dict(pads=[1, 2, 0, 1], strides=[2, 1], dilations=[1, 2])),
    ("batch2_pads_strides", [2, 2 * 3 * 3, 15], [5, 6], [3, 3],
     dict(pads=[1, 1, 1, 1], strides=[1, 2])),
    ("1d", [2, 3 * 4, 5], [11], [4], dict(strides=[2], pads=[1, 0])),
    ("3d", [1, 2 * 2 * 2 * 2, 27], [4, 4, 4], [2, 2, 2], {}),
]


@pytest.mark.parametrize("x_shape,image,block,attrs", [c[1:] for c in COL2IM_CASES],
                         ids=[c[0] for c in COL2IM_CASES])
def test_col2im_matches_onnxruntime(nunc, tmp_path, x_shape, image, block, attrs):
    """onnxruntime has a CPU Col2Im kernel (opset 18), so it is the reference."""
    model = make_model([h.make_node("Col2Im", ["x", "image", "block"], ["y"], **attrs)],
                       [("x", TP.FLOAT, x_shape)],
                       {"image": np.array(image, np.int64), "block": np.array(block, np.int64)},
                       18)
    x = np.random.default_rng(len(image)).standard_normal(x_shape).astype(np.float32)
    compare(nunc, tmp_path, model, {"x": x})


GRID_SAMPLE_CASES = [  # opset, mode, padding_mode, align_corners
    (16, "bilinear", "zeros", 0), (16, "nearest", "border", 1), (16, "bicubic", "reflection", 0),
    (20, "linear", "reflection", 1), (20, "cubic", "zeros", 1), (20, "nearest", "reflection", 0),
    (20, "cubic", "border", 0), (20, "linear", "border", 1), (20, "nearest", "zeros", 0),
]


@pytest.mark.parametrize("opset,mode,padding,align", GRID_SAMPLE_CASES,
                         ids=[f"{o}-{m}-{p}-{a}" for o, m, p, a in GRID_SAMPLE_CASES])
def test_grid_sample_matches_onnxruntime(nunc, tmp_path, opset, mode, padding, align):
    """GridSample of a [2, 3, 7, 9] image on a [2, 5, 11] grid whose points
    lie inside, on the borders and up to 3 widths outside (reflection then
    turns several times), at exact pixel centers and half-way points (where
    nearest rounds half to even), 1 and 2 threads."""
    r = np.random.default_rng(13)
    grid = r.uniform(-3.5, 3.5, (2, 5, 11, 2)).astype(np.float32)
    grid[0, 0, :, 0] = np.linspace(-1, 1, 11)
    grid[0, 1, :, 1] = np.linspace(-1, 1, 11)
    grid[1, 0, :, :] = (np.arange(22).reshape(11, 2) - 10) / 8.0  # half-pixel points
    grid[1, 1, :, :] = r.uniform(-1, 1, (11, 2))
    feeds = {"x": r.standard_normal((2, 3, 7, 9)).astype(np.float32), "grid": grid}
    model = make_model([h.make_node("GridSample", ["x", "grid"], ["y"], mode=mode,
                                    padding_mode=padding, align_corners=align)],
                       [("x", TP.FLOAT, [2, 3, 7, 9]), ("grid", TP.FLOAT, [2, 5, 11, 2])], {},
                       opset)
    compare(nunc, tmp_path, model, feeds)


def test_affine_grid_into_grid_sample_matches_onnxruntime(nunc, tmp_path):
    """A spatial transformer's sampler: AffineGrid of a run-time theta (both
    align_corners) into GridSample, as torch's affine_grid + grid_sample
    export."""
    r = np.random.default_rng(14)
    theta = (np.array([[1, 0, 0], [0, 1, 0]], np.float32) +
             0.3 * r.standard_normal((2, 2, 3)).astype(np.float32))
    size = np.array([2, 3, 6, 10], np.int64)
    nodes = [h.make_node("AffineGrid", ["theta", "size"], ["g0"], align_corners=0),
             h.make_node("AffineGrid", ["theta", "size"], ["g1"], align_corners=1),
             h.make_node("GridSample", ["x", "g0"], ["y"], mode="linear"),
             h.make_node("GridSample", ["x", "g1"], ["y1"], mode="linear", align_corners=1)]
    model = make_model(nodes, [("x", TP.FLOAT, [2, 3, 8, 8]), ("theta", TP.FLOAT, [2, 2, 3])],
                       {"size": size}, 20, outputs=("y", "y1", "g0", "g1"))
    compare(nunc, tmp_path, model, {"x": r.standard_normal((2, 3, 8, 8)).astype(np.float32),
                                    "theta": theta})


def test_affine_grid_of_a_dim_of_one_is_at_zero(nunc, tmp_path):
    """A dim of 1 sits at 0 with or without align_corners, as torch's
    affine_grid (ONNX's reference puts it at -1 with align_corners,
    onnxruntime at 1): the identity theta gives x in [-1, 1] and y 0."""
    size = np.array([1, 1, 1, 3], np.int64)
    nodes = [h.make_node("AffineGrid", ["theta", "size"], ["g1"], align_corners=1),
             h.make_node("AffineGrid", ["theta", "size"], ["g0"], align_corners=0)]
    model = make_model(nodes, [("theta", TP.FLOAT, [1, 2, 3])], {"size": size}, 20,
                       outputs=("g1", "g0"))
    exe, manifest, _ = compile_model(nunc, tmp_path, model)
    theta = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)
    got, _, log = harness.run(exe, manifest, {"theta": theta}, str(tmp_path / "w"))
    assert got is not None, log
    np.testing.assert_array_equal(got["g1"], [[[[-1, 0], [0, 0], [1, 0]]]])
    np.testing.assert_allclose(got["g0"], [[[[-2 / 3, 0], [0, 0], [2 / 3, 0]]]], rtol=1e-6)
