"""Writes the real-model fixtures: torchvision's ResNet-18 and ResNet-34 and a small Hugging Face
BERT, with PyTorch's own outputs for the same inputs. CI never runs this; the tests read what it
wrote. Run from the repository root:

    python3 -m venv /tmp/venv-models
    /tmp/venv-models/bin/pip install torch torchvision transformers safetensors
    /tmp/venv-models/bin/python tests/data/models/make_models.py
"""

import hashlib
import json
import pathlib

import torch
import torchvision
from safetensors.torch import save_file
from transformers import BertConfig, BertModel

OUT = pathlib.Path(__file__).resolve().parent
torch.use_deterministic_algorithms(True)
torch.set_num_threads(1)

# The images every test feeds ResNet-18: `[256, 3, 32, 32]`, each value a multiple of 1/1024 in
# [-1, 1), from the flat index alone (Knuth's multiplicative hash), so that Rust makes the same
# f32 values without a file: `tests/common/models.rs` `images`.
IMAGES = 256


def images(n=IMAGES):
    k = torch.arange(n * 3 * 32 * 32, dtype=torch.int64)
    h = (k * 2654435761) % (1 << 32)
    return (((h % 2049) - 1024).to(torch.float32) / 1024.0).reshape(n, 3, 32, 32)


def f16(state):
    """The state dict with every float tensor in F16 (integers, `num_batches_tracked`, kept)."""
    return {
        k: (v.to(torch.float16) if v.is_floating_point() else v).contiguous()
        for k, v in state.items()
    }


def as_f32(state):
    return {k: (v.to(torch.float32) if v.is_floating_point() else v) for k, v in state.items()}


def fake_quant_q8s(w):
    """PyTorch's own fake quantization, per tensor, symmetric, 8-bit in [-127, 127] (burn's
    `QuantValue::Q8S`): scale = max|w| / 127."""
    scale = float(w.abs().max()) / 127.0
    if scale == 0.0:
        return w.clone()
    return torch.fake_quantize_per_tensor_affine(w, scale, 0, -127, 127)


def logits(model, x):
    with torch.no_grad():
        return model(x).to(torch.float32)


def summary(reference, other):
    diff = (reference - other).abs()
    agree = (reference.argmax(1) == other.argmax(1)).float().mean().item()
    return {"max_abs": diff.max().item(), "mean_abs": diff.mean().item(), "top1_agreement": agree}


def resnet18():
    torch.manual_seed(18)
    model = torchvision.models.resnet18(num_classes=10)
    # Running statistics that are not the initial 0 and 1: ten training batches.
    model.train()
    with torch.no_grad():
        for _ in range(10):
            model(torch.randn(16, 3, 32, 32))
    model.eval()
    state = f16(model.state_dict())
    save_file(state, OUT / "resnet18_f16.safetensors", metadata={"producer": "torch"})

    # PyTorch's outputs from the F16 values, computed in f32.
    model.load_state_dict(as_f32(state))
    x = images()
    reference = logits(model, x)
    # The same model with every parameter (not the buffers) fake-quantized per tensor, Q8S:
    # what burn-guard's `try_quantize_weights` quantizes by default.
    quantized = torchvision.models.resnet18(num_classes=10)
    fq = {
        name: (fake_quant_q8s(v) if name in dict(model.named_parameters()) else v)
        for name, v in as_f32(state).items()
    }
    quantized.load_state_dict(fq)
    quantized.eval()
    q8 = logits(quantized, x)
    save_file(
        {"logits_f32": reference.contiguous(), "logits_q8s_fake": q8.contiguous()},
        OUT / "resnet18_reference.safetensors",
    )
    return {
        "params": sum(v.numel() for k, v in model.state_dict().items() if v.is_floating_point()),
        "keys": len(state),
        "q8s_fake_vs_f32": summary(reference, q8),
    }


def resnet34():
    """ResNet-34's keys and shapes, its values zero (the file only needs to be ResNet-34's)."""
    model = torchvision.models.resnet34(num_classes=10)
    state = {k: torch.zeros_like(v) for k, v in f16(model.state_dict()).items()}
    save_file(state, OUT / "resnet34_zeros_f16.safetensors", metadata={"producer": "torch"})
    return {"keys": len(state)}


def bert():
    torch.manual_seed(64)
    config = BertConfig(
        vocab_size=256,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=64,
        hidden_act="gelu",
    )
    model = BertModel(config)
    model.eval()
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    save_file(state, OUT / "bert_tiny.safetensors", metadata={"producer": "torch"})
    ids = (torch.arange(4 * 16, dtype=torch.int64).reshape(4, 16) * 37 + 11) % config.vocab_size
    with torch.no_grad():
        out = model(input_ids=ids)
    save_file(
        {
            "input_ids": ids,
            "last_hidden_state": out.last_hidden_state.contiguous(),
            "pooler_output": out.pooler_output.contiguous(),
        },
        OUT / "bert_tiny_reference.safetensors",
    )
    return {"keys": len(state), "config": config.to_diff_dict()}


def main():
    facts = {
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "resnet18": resnet18(),
        "resnet34": resnet34(),
        "bert_tiny": bert(),
    }
    import transformers

    facts["transformers"] = transformers.__version__
    files = {}
    for path in sorted(OUT.glob("*.safetensors")):
        data = path.read_bytes()
        files[path.name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    facts["files"] = files
    (OUT / "facts.json").write_text(json.dumps(facts, indent=2, sort_keys=True) + "\n")
    print(json.dumps(facts, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
