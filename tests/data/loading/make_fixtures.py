#!/usr/bin/env python3
"""Writes the checkpoint fixtures of tests/data/loading/ with the reference implementations.

Files that burn did not write: safetensors files written by Python's `safetensors` (numpy
arrays, or torch tensors for bfloat16, which numpy has no dtype for) and PyTorch `.pt` files
written by `torch.save`, all in PyTorch's layout (a Linear's weight is `[out, in]`). The tests
read them through burn's stores and through burn-guard's checked twins; CI never runs this
script. README.md beside it lists every file (keys, shapes, dtypes, what a test does with it).

Regenerate (torch from PyPI brings its CUDA libraries: about 5.4 GB in the venv, a few minutes):

    python3 -m venv /tmp/venv-fixtures
    /tmp/venv-fixtures/bin/pip install numpy safetensors torch
    /tmp/venv-fixtures/bin/python tests/data/loading/make_fixtures.py

`--no-torch` writes only the numpy files (everything but the bfloat16 file and the `.pt` files).

Values are small multiples of 1/8, exact in float16 and bfloat16, so a file in any float dtype
holds the same numbers and a test can compare loaded values bit for bit.
"""

import argparse
import hashlib
import os
import sys

import numpy as np
from safetensors.numpy import save_file as save_numpy

HERE = os.path.dirname(os.path.abspath(__file__))


def linear_weight(d_in, d_out):
    """PyTorch layout `[out, in]`: w[o, i] = (o * d_in + i + 1) / 4 (0.25, 0.5, ...)."""
    w = np.arange(1, d_in * d_out + 1, dtype=np.float32).reshape(d_out, d_in) / 4.0
    return w


def linear_bias(d_out):
    """b[o] = -(o + 1) / 8."""
    return -np.arange(1, d_out + 1, dtype=np.float32) / 8.0


def square_weight(n):
    """A `[n, n]` weight that is not symmetric, so a transposed load gives other numbers:
    w[o, i] = o - 2 i + 0.5 * (o * i)."""
    o = np.arange(n, dtype=np.float32).reshape(n, 1)
    i = np.arange(n, dtype=np.float32).reshape(1, n)
    w = (o - 2.0 * i + 0.5 * o * i).astype(np.float32)
    assert not np.array_equal(w, w.T)
    return w


def linear_3x4():
    return {"fc.weight": linear_weight(3, 4), "fc.bias": linear_bias(4)}


def mlp():
    return {
        "fc1.weight": linear_weight(3, 4),
        "fc1.bias": linear_bias(4),
        "fc2.weight": linear_weight(4, 2) - 1.0,
        "fc2.bias": linear_bias(2) + 0.5,
    }


def batch_norm_net():
    """`fc` (Linear 3 -> 4) then `bn` (BatchNorm1d(4)), as PyTorch's state_dict names them."""
    return {
        "fc.weight": linear_weight(3, 4),
        "fc.bias": linear_bias(4),
        "bn.weight": np.array([1.0, 0.5, 2.0, 1.5], dtype=np.float32),
        "bn.bias": np.array([0.0, 0.25, -0.25, 0.125], dtype=np.float32),
        "bn.running_mean": np.array([0.5, -0.5, 1.0, 0.0], dtype=np.float32),
        "bn.running_var": np.array([1.0, 2.0, 0.5, 4.0], dtype=np.float32),
        "bn.num_batches_tracked": np.array(7, dtype=np.int64),
    }


def write_numpy(name, tensors, metadata=None):
    path = os.path.join(HERE, name)
    # np.require keeps a 0-d array 0-d (ascontiguousarray would make it [1]).
    save_numpy({k: np.require(v, requirements="C") for k, v in tensors.items()}, path, metadata=metadata)
    return path


def numpy_fixtures():
    written = []
    base = linear_3x4()
    written.append(write_numpy("linear_3x4_f32.safetensors", base))
    written.append(
        write_numpy("linear_3x4_f16.safetensors", {k: v.astype(np.float16) for k, v in base.items()})
    )
    written.append(
        write_numpy("linear_3x4_f64.safetensors", {k: v.astype(np.float64) for k, v in base.items()})
    )
    written.append(
        write_numpy(
            "linear_4x4_square_f32.safetensors",
            {"fc.weight": square_weight(4), "fc.bias": linear_bias(4)},
        )
    )
    written.append(
        write_numpy(
            "linear_3x4_extra_key.safetensors",
            dict(base, **{"head.weight": np.full((2, 2), 0.5, dtype=np.float32)}),
        )
    )
    written.append(write_numpy("linear_3x4_missing_bias.safetensors", {"fc.weight": base["fc.weight"]}))
    nan = base["fc.weight"].copy()
    nan[1, 1] = np.nan
    nan[2, 0] = np.inf
    written.append(write_numpy("linear_3x4_nan.safetensors", {"fc.weight": nan, "fc.bias": base["fc.bias"]}))
    written.append(
        write_numpy(
            "linear_3x4_int_weight.safetensors",
            {"fc.weight": np.arange(12, dtype=np.int64).reshape(4, 3), "fc.bias": base["fc.bias"]},
        )
    )
    written.append(
        write_numpy(
            "linear_3x4_alias_keys.safetensors",
            dict(
                base,
                **{
                    "layer.weight": base["fc.weight"] + 10.0,
                    "layer.bias": base["fc.bias"] + 10.0,
                },
            ),
        )
    )
    written.append(write_numpy("mlp_f32.safetensors", mlp()))
    written.append(write_numpy("batch_norm_f32.safetensors", batch_norm_net()))
    return written


def torch_fixtures():
    import torch
    from safetensors.torch import save_file as save_torch

    written = []
    base = {k: torch.from_numpy(v) for k, v in linear_3x4().items()}
    path = os.path.join(HERE, "linear_3x4_bf16.safetensors")
    save_torch({k: v.to(torch.bfloat16).contiguous() for k, v in base.items()}, path)
    written.append(path)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 4)

    class Mlp(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(3, 4)
            self.fc2 = torch.nn.Linear(4, 2)

    class BnNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 4)
            self.bn = torch.nn.BatchNorm1d(4)

    def state_of(module, values):
        # load_state_dict(strict=True): every key of `values` lands, none is missing.
        module.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in values.items()}, strict=True)
        return module.state_dict()

    path = os.path.join(HERE, "linear_3x4.pt")
    torch.save(state_of(Net(), linear_3x4()), path)
    written.append(path)

    path = os.path.join(HERE, "mlp.pt")
    torch.save(state_of(Mlp(), mlp()), path)
    written.append(path)

    path = os.path.join(HERE, "mlp_checkpoint.pt")
    torch.save({"model_state_dict": state_of(Mlp(), mlp()), "epoch": 3}, path)
    written.append(path)

    path = os.path.join(HERE, "batch_norm.pt")
    torch.save(state_of(BnNet(), batch_norm_net()), path)
    written.append(path)

    # The same MLP written as `nn.Sequential`: its keys are the layers' indices.
    sequential = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    renamed = {k.replace("fc1.", "0.").replace("fc2.", "2."): v for k, v in mlp().items()}
    path = os.path.join(HERE, "mlp_sequential.pt")
    torch.save(state_of(sequential, renamed), path)
    written.append(path)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-torch", action="store_true", help="skip the files that need torch")
    args = parser.parse_args()

    written = numpy_fixtures()
    if not args.no_torch:
        written += torch_fixtures()

    import safetensors

    versions = f"numpy {np.__version__}, safetensors {safetensors.__version__}"
    if not args.no_torch:
        import torch

        versions += f", torch {torch.__version__}"
    print(f"# written with Python {sys.version.split()[0]}, {versions}")
    for path in sorted(written):
        with open(path, "rb") as f:
            data = f.read()
        digest = hashlib.sha256(data).hexdigest()[:16]
        print(f"{os.path.basename(path)}\t{len(data)} B\tsha256 {digest}")


if __name__ == "__main__":
    main()
