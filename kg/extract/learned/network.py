"""The learned model's network in torch (training only): MiniLM with the span, proposed and relation heads,
and the conversion of its weights to and from the arrays the run-time model reads."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kg.extract.bert_torch import bert_module, encoder_arrays
from kg.extract.learned.data import (
    PREDICATES,
    REFERENCE,
    TYPES,
    Example,
)
from kg.extract.scierc.model import candidate_spans, distance_bucket, mean_between

MAX_WIDTH, FEATURE, EMBEDDING, PROPOSED_HIDDEN = 10, 300, 32, 150

_HEAD_NAMES = {
    "width_embedding.weight": "width_embedding",
    "distance_embedding.weight": "distance_embedding",
    "kind_embedding.weight": "kind_embedding",
    "span.weight": "span.weight",
    "span.bias": "span.bias",
    **{
        f"{head}{i}.{kind}": f"{head}.{i}.{kind}"
        for head in ("ner", "proposed", "rel")
        for i in (0, 1)
        for kind in ("weight", "bias")
    },
}


def export_arrays(net, layers: int) -> dict[str, np.ndarray]:
    """The network's weights under the names :class:`LearnedModel` reads."""
    state = {name: tensor.detach().cpu().numpy().copy() for name, tensor in net.state_dict().items()}
    arrays = encoder_arrays(state, layers)
    arrays.update({ours: state[theirs] for theirs, ours in _HEAD_NAMES.items()})
    return arrays


def _network(torch, weights: dict[str, np.ndarray], config: dict, layers: int, *, relation_weight: float = 1.0):
    """The encoder with the span, proposed and pair heads, in torch; ``relation_weight`` scales the pair
    classifier's loss against the span classifier's."""
    nn, functional = torch.nn, torch.nn.functional
    hidden = config["hidden_size"]

    class Joint(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert_module(torch, weights, config, layers=layers)
            self.width_embedding = nn.Embedding(MAX_WIDTH, EMBEDDING)
            self.distance_embedding = nn.Embedding(10, EMBEDDING)
            self.kind_embedding = nn.Embedding(REFERENCE + 1, EMBEDDING)
            self.span = nn.Linear(2 * hidden + EMBEDDING, FEATURE)
            self.ner0, self.ner1 = nn.Linear(FEATURE, FEATURE), nn.Linear(FEATURE, len(TYPES) + 1)
            self.proposed0, self.proposed1 = nn.Linear(FEATURE, PROPOSED_HIDDEN), nn.Linear(PROPOSED_HIDDEN, 1)
            self.rel0 = nn.Linear(3 * FEATURE + hidden + 3 * EMBEDDING, FEATURE)
            self.rel1 = nn.Linear(FEATURE, len(PREDICATES) + 1)
            self.dropout, self.head_dropout = nn.Dropout(0.1), nn.Dropout(0.2)

        def loss(self, chunked, examples: Sequence[Example]):
            flat = [c for chunks in chunked for c in chunks]
            length = max(len(ids) for ids, _, _, _ in flat)
            ids = torch.zeros(len(flat), length, dtype=torch.long)
            mask = torch.zeros(len(flat), length)
            for row, (seq, _, _, _) in enumerate(flat):
                ids[row, : len(seq)] = torch.tensor(seq)
                mask[row, : len(seq)] = 1
            states = self.dropout(self.bert(ids, mask))
            total, row = 0, 0
            for chunks, example in zip(chunked, examples):
                pieces, firsts, lasts, offset = [], [0] * len(example.words), [0] * len(example.words), 0
                for seq, chunk_firsts, chunk_lasts, first_word in chunks:
                    pieces.append(states[row, : len(seq)])
                    for k, (f, last) in enumerate(zip(chunk_firsts, chunk_lasts)):
                        firsts[first_word + k], lasts[first_word + k] = f + offset, last + offset
                    offset += len(seq)
                    row += 1
                total = total + self._document_loss(torch.cat(pieces), firsts, lasts, example)
            return total / len(examples)

        def _features(self, h, firsts, lasts, spans):
            starts = torch.tensor([firsts[a] for a, _ in spans])
            ends = torch.tensor([lasts[b - 1] for _, b in spans])
            widths = torch.tensor([min(b - a, MAX_WIDTH) - 1 for a, b in spans])
            return self.head_dropout(
                torch.relu(self.span(torch.cat([h[starts], h[ends], self.width_embedding(widths)], -1)))
            )

        def _document_loss(self, h, firsts, lasts, example: Example):
            candidates = [
                (begin + a, begin + b)
                for begin, end in example.sentences
                for a, b in candidate_spans(end - begin, MAX_WIDTH)
            ]
            gold = {(m[0], m[1]): m[2] for m in example.mentions if m[2] != REFERENCE}
            features = self._features(h, firsts, lasts, candidates)
            logits = self.ner1(self.head_dropout(torch.relu(self.ner0(features))))
            targets = torch.tensor([gold.get(span, 0) for span in candidates])
            loss = functional.cross_entropy(logits, targets, reduction="sum")
            mentions = example.mentions
            if not mentions:
                return loss
            argument_features = self._features(h, firsts, lasts, [(m[0], m[1]) for m in mentions])
            named = [k for k, m in enumerate(mentions) if m[2] != REFERENCE]
            if named:
                proposed_logits = self.proposed1(
                    self.head_dropout(torch.relu(self.proposed0(argument_features[named])))
                )[:, 0]
                loss = loss + functional.binary_cross_entropy_with_logits(
                    proposed_logits, torch.tensor([float(mentions[k][3]) for k in named]), reduction="sum"
                )
            sentence_of = {}
            for s, (begin, end) in enumerate(example.sentences):
                for k in range(begin, end):
                    sentence_of[k] = s
            pairs = [
                (x, y)
                for x in range(len(mentions))
                for y in range(len(mentions))
                if x != y
                and sentence_of[mentions[x][0]] == sentence_of[mentions[y][0]]
                and not (mentions[x][2] == REFERENCE and mentions[y][2] == REFERENCE)
                and not (mentions[x][4] >= 0 and mentions[x][4] == mentions[y][4])
            ]
            if not pairs:
                return loss
            relation_logits = self.pair_logits(
                h, firsts, lasts, argument_features, [(m[0], m[1], m[2]) for m in mentions], pairs
            )
            labelled = {(i, j): label for i, j, label in example.relations}
            relation_targets = torch.tensor([labelled.get(pair, 0) for pair in pairs])
            return loss + relation_weight * functional.cross_entropy(relation_logits, relation_targets, reduction="sum")

        def pair_logits(self, h, firsts, lasts, features, arguments, pairs):
            """Relation logits of ordered ``pairs`` of ``arguments`` ``(start, end, kind)`` with span ``features``."""
            x = [p[0] for p in pairs]
            y = [p[1] for p in pairs]
            between = [mean_between(h, firsts, lasts, arguments[i][:2], arguments[j][:2]) for i, j in pairs]
            distance = torch.tensor([distance_bucket(arguments[j][0] - arguments[i][0]) for i, j in pairs])
            kinds = torch.tensor([a[2] for a in arguments])
            first, second = features[x], features[y]
            representation = torch.cat(
                [
                    first,
                    second,
                    first * second,
                    torch.stack(between),
                    self.distance_embedding(distance),
                    self.kind_embedding(kinds[x]),
                    self.kind_embedding(kinds[y]),
                ],
                -1,
            )
            return self.rel1(self.head_dropout(torch.relu(self.rel0(representation))))

        def scores(self, ids, firsts, lasts, spans, arguments, pairs):
            """For one encoder input: the type probabilities and proposed scores of ``spans``, and the
            relation probabilities of ``pairs`` of ``arguments`` (what the numpy model computes)."""
            h = self.bert(torch.tensor([ids]), torch.ones(1, len(ids)))[0]
            features = self._features(h, firsts, lasts, spans)
            types = torch.softmax(self.ner1(torch.relu(self.ner0(features))), -1)
            proposed = torch.sigmoid(self.proposed1(torch.relu(self.proposed0(features)))[:, 0])
            argument_features = self._features(h, firsts, lasts, [a[:2] for a in arguments])
            relations = torch.softmax(self.pair_logits(h, firsts, lasts, argument_features, arguments, pairs), -1)
            return h, types, proposed, relations

    return Joint()


def network_from_arrays(torch, arrays: dict[str, np.ndarray], config: dict):
    """The torch network holding exported arrays (the reference the numpy forward pass is checked against)."""
    weights = {k[len("encoder/") :]: v for k, v in arrays.items() if k.startswith("encoder/")}
    bert_config = {
        "hidden_size": weights["embeddings.word_embeddings.weight"].shape[1],
        "layer_norm_eps": config["layer_norm_eps"],
        "num_hidden_layers": config["layers"],
        "num_attention_heads": config["heads"],
        "intermediate_size": weights["encoder.layer.0.intermediate.dense.weight"].shape[0],
    }
    net = _network(torch, weights, bert_config, config["layers"])
    state = net.state_dict()
    for theirs, ours in _HEAD_NAMES.items():
        state[theirs] = torch.from_numpy(np.asarray(arrays[ours], dtype=np.float32))
    net.load_state_dict(state)
    return net.eval()
