#!/usr/bin/env python3
"""Writes ONNX's backend node tests as data directories.

The onnx wheel ships the test definitions (onnx.backend.test.case.node) but
not always their data. This writes, for every case, the standard layout
  OUT/<test name>/model.onnx
  OUT/<test name>/test_data_set_<i>/input_<j>.pb, output_<j>.pb
  OUT/<test name>/tolerance.txt   ("rtol atol", from the case definition)
"""
import argparse
import os
import shutil
import warnings

import numpy as np
import onnx
from onnx import numpy_helper


def write_tensor(path, value, name):
    proto = value if isinstance(value, onnx.TensorProto) else numpy_helper.from_array(
        np.asarray(value), name)
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args()
    warnings.simplefilter("ignore")
    import onnx.backend.test.case.node as node_cases

    if os.path.exists(args.output):
        shutil.rmtree(args.output)
    os.makedirs(args.output)
    written = 0
    for case in node_cases.collect_testcases():
        graph = case.model.graph
        # Only tensor-typed I/O: sequences, maps and optionals are not ONNX
        # tensors and no op nunc claims takes them.
        if not all(v.type.HasField("tensor_type") for v in list(graph.input) + list(graph.output)):
            continue
        d = os.path.join(args.output, case.name)
        os.makedirs(d)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        with open(os.path.join(d, "tolerance.txt"), "w") as f:
            f.write(f"{case.rtol} {case.atol}\n")
        for i, (inputs, outputs) in enumerate(case.data_sets):
            s = os.path.join(d, f"test_data_set_{i}")
            os.makedirs(s)
            for j, v in enumerate(inputs):
                write_tensor(os.path.join(s, f"input_{j}.pb"), v, graph.input[j].name)
            for j, v in enumerate(outputs):
                write_tensor(os.path.join(s, f"output_{j}.pb"), v, graph.output[j].name)
        written += 1
    print(f"wrote {written} node tests to {args.output}")


if __name__ == "__main__":
    main()
