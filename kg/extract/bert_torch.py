"""BertModel's encoder in torch, built from Hugging Face-named weights, for the training of the joint
models (:mod:`kg.extract.scierc.training`, :mod:`kg.extract.learned.training`); and its weights back
under the names :class:`kg.extract.encoder.BertEncoder` reads. Run time needs neither torch nor this.
"""

from __future__ import annotations

import math
import random

import numpy as np

from kg.errors import UsageError

LAYER_NAMES = {
    "query": "attention.self.query",
    "key": "attention.self.key",
    "value": "attention.self.value",
    "attention_out": "attention.output.dense",
    "attention_norm": "attention.output.LayerNorm",
    "intermediate": "intermediate.dense",
    "out": "output.dense",
    "out_norm": "output.LayerNorm",
}


def seeded_torch(seed: int):
    """torch, with it and Python's and numpy's generators seeded for a training; a clear error without it."""
    try:
        import torch
    except ImportError:
        raise UsageError("training needs torch: pip install -e '.[train]' (or: make train)") from None
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return torch


def bert_module(torch, weights: dict[str, np.ndarray], config: dict, *, layers: int | None = None):
    """BertModel (no pooler) as a torch module, from ``weights``; ``layers`` keeps only the first ones."""
    nn, functional = torch.nn, torch.nn.functional
    hidden, eps = config["hidden_size"], config["layer_norm_eps"]
    count = config["num_hidden_layers"] if layers is None else layers

    def tensor(name: str):
        return torch.from_numpy(np.array(weights[name], dtype=np.float32))

    def linear(name: str, inputs: int, outputs: int):
        layer = nn.Linear(inputs, outputs)
        layer.weight.data, layer.bias.data = tensor(f"{name}.weight"), tensor(f"{name}.bias")
        return layer

    def norm(name: str):
        layer = nn.LayerNorm(hidden, eps=eps)
        layer.weight.data, layer.bias.data = tensor(f"{name}.weight"), tensor(f"{name}.bias")
        return layer

    class Bert(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.heads = config["num_attention_heads"]
            self.word = nn.Embedding.from_pretrained(tensor("embeddings.word_embeddings.weight"), freeze=False)
            self.position = nn.Parameter(tensor("embeddings.position_embeddings.weight"))
            self.token_type = nn.Parameter(tensor("embeddings.token_type_embeddings.weight")[0].clone())
            self.norm = norm("embeddings.LayerNorm")
            self.layers = nn.ModuleList()
            inner = config["intermediate_size"]
            for i in range(count):
                p = f"encoder.layer.{i}"
                shapes = {
                    "query": (hidden, hidden),
                    "key": (hidden, hidden),
                    "value": (hidden, hidden),
                    "attention_out": (hidden, hidden),
                    "intermediate": (hidden, inner),
                    "out": (inner, hidden),
                }
                layer = nn.ModuleDict(
                    {short: linear(f"{p}.{LAYER_NAMES[short]}", *shape) for short, shape in shapes.items()}
                )
                layer["attention_norm"] = norm(f"{p}.{LAYER_NAMES['attention_norm']}")
                layer["out_norm"] = norm(f"{p}.{LAYER_NAMES['out_norm']}")
                self.layers.append(layer)

        def forward(self, ids, mask):
            n, t = ids.shape
            x = self.norm(self.word(ids) + self.position[:t] + self.token_type)
            h = self.heads
            bias = (1.0 - mask)[:, None, None, :] * -1e9
            for layer in self.layers:

                def split(name):
                    return layer[name](x).view(n, t, h, hidden // h).transpose(1, 2)

                attention = torch.softmax(
                    split("query") @ split("key").transpose(-1, -2) / math.sqrt(hidden // h) + bias, -1
                )
                context = (attention @ split("value")).transpose(1, 2).reshape(n, t, hidden)
                x = layer["attention_norm"](x + layer["attention_out"](context))
                x = layer["out_norm"](x + layer["out"](functional.gelu(layer["intermediate"](x))))
            return x

    return Bert()


def encoder_arrays(state: dict[str, np.ndarray], layers: int, *, prefix: str = "bert.") -> dict[str, np.ndarray]:
    """The encoder's weights of a state dict (numpy arrays) under :class:`BertEncoder`'s names,
    ``encoder/``-prefixed."""
    arrays = {
        "encoder/embeddings.word_embeddings.weight": state[f"{prefix}word.weight"],
        "encoder/embeddings.position_embeddings.weight": state[f"{prefix}position"],
        "encoder/embeddings.token_type_embeddings.weight": state[f"{prefix}token_type"][None, :],
        "encoder/embeddings.LayerNorm.weight": state[f"{prefix}norm.weight"],
        "encoder/embeddings.LayerNorm.bias": state[f"{prefix}norm.bias"],
    }
    for i in range(layers):
        for short, name in LAYER_NAMES.items():
            for kind in ("weight", "bias"):
                arrays[f"encoder/encoder.layer.{i}.{name}.{kind}"] = state[f"{prefix}layers.{i}.{short}.{kind}"]
    return arrays


def optimizer_and_schedule(torch, net, settings, examples: int = 0, *, steps: int | None = None):
    """AdamW with one learning rate for the encoder (``net.bert``) and one for the heads, and a linear
    warm-up then linear decay over ``steps``, by default ``settings.epochs`` passes of ``examples`` in batches."""
    encoder_params = list(net.bert.parameters())
    head_params = [p for name, p in net.named_parameters() if not name.startswith("bert.")]
    optimizer = torch.optim.AdamW(
        [
            {"params": encoder_params, "lr": settings.encoder_learning_rate},
            {"params": head_params, "lr": settings.head_learning_rate},
        ],
        weight_decay=0.01,
    )
    if steps is None:
        steps = settings.epochs * math.ceil(examples / settings.batch_size)
    warm = max(1, int(settings.warmup * steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warm if step < warm else max(0.0, (steps - step) / (steps - warm))
    )
    return optimizer, schedule


def one_pass(torch, net, optimizer, schedule, inputs, examples, *, batch_size: int) -> float:
    """One pass over ``examples`` (encoded as ``inputs``) in a shuffled order, a step a batch; the summed loss."""
    net.train()
    order = list(range(len(examples)))
    random.shuffle(order)
    total = 0.0
    for begin in range(0, len(order), batch_size):
        rows = order[begin : begin + batch_size]
        loss = net.loss([inputs[i] for i in rows], [examples[i] for i in rows])
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        total += float(loss.detach())
    return total
