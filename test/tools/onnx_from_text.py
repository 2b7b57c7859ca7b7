#!/usr/bin/env python3
"""Writes a binary .onnx model from ONNX's textual syntax, for lit tests.

Lines starting with '#' or '//' (lit RUN/CHECK lines) are ignored, so a test
file can hold its model. Options shape the protobuf in ways the text syntax
cannot: raw_data initializers, external data, truncation.
"""
import argparse
import os
import sys

import onnx
import onnx.parser
from onnx import numpy_helper


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("input", help="text model ('-' for stdin)")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--raw-data", action="store_true",
                   help="store initializers as raw_data instead of typed fields")
    p.add_argument("--external-data", metavar="LOCATION",
                   help="move initializers to this file beside the model")
    p.add_argument("--external-location", metavar="TEXT",
                   help="write this 'location' into the model instead (bad-input tests)")
    p.add_argument("--truncate", type=int, metavar="N",
                   help="cut the serialized model to its first N bytes")
    p.add_argument("--set-dims", metavar="NAME=D1,D2",
                   help="overwrite an initializer's declared dims (bad-input tests)")
    args = p.parse_args()

    text = sys.stdin.read() if args.input == "-" else open(args.input).read()
    lines = [l for l in text.splitlines()
             if not l.lstrip().startswith(("#", "//"))]
    model = onnx.parser.parse_model("\n".join(lines))

    if args.raw_data or args.external_data:
        for i, t in enumerate(model.graph.initializer):
            model.graph.initializer[i].CopyFrom(
                numpy_helper.from_array(numpy_helper.to_array(t), t.name))
    if args.set_dims:
        name, dims = args.set_dims.split("=")
        for t in model.graph.initializer:
            if t.name == name:
                del t.dims[:]
                t.dims.extend(int(d) for d in dims.split(","))
    if args.external_data:
        folder = os.path.dirname(os.path.abspath(args.output))
        offset = 0
        with open(os.path.join(folder, args.external_data), "wb") as f:
            for t in model.graph.initializer:
                data = t.raw_data
                f.write(data)
                t.ClearField("raw_data")
                t.data_location = onnx.TensorProto.EXTERNAL
                for k, v in (("location", args.external_location or args.external_data),
                             ("offset", str(offset)), ("length", str(len(data)))):
                    e = t.external_data.add()
                    e.key, e.value = k, v
                offset += len(data)

    data = model.SerializeToString()
    if args.truncate is not None:
        data = data[: args.truncate]
    with open(args.output, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
