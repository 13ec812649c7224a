"""Reading SciERC (Luan et al., 2018): what the trainers learn from and the benchmark scores against.

A SciERC document is json lines of pre-tokenised sentences with entity and relation
annotations over token indices (document-wide, end inclusive). Here a document becomes
plain text, its tokens joined by single spaces and its sentences joined by single spaces
(Penn Treebank escapes such as ``-LRB-`` read as the brackets and quotes they stand for),
and every annotation becomes character offsets into that text (end exclusive), the same
offsets ``kg extract`` reports.

Examples
--------
>>> doc = SciercDoc.from_json({"doc_key": "d", "sentences": [["We", "use", "CRFs", "."], ["Good", "."]],
...                            "ner": [[[2, 2, "Method"]], [[4, 4, "Generic"]]],
...                            "relations": [[], []]})
>>> doc.text
'We use CRFs . Good .'
>>> doc.gold_entities()
{(7, 11, 'Method')}
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import UsageError
from kg.extract.scierc.schema import SCORED_AS
from kg.resources import SHARED_DIR

__all__ = ["SPLITS", "EntitySpan", "RelationTuple", "SciercDoc", "data_dir", "read_split"]

SPLITS = ("train", "dev", "test")

# SciERC writes brackets and quotes as the Penn Treebank does; the text reads them as written.
PTB_ESCAPES: Mapping[str, str] = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
    "``": '"',
    "''": '"',
}

EntitySpan = tuple[int, int, str]  # (start, end, type), end exclusive
RelationTuple = tuple[int, int, int, int, str]  # (s_start, s_end, o_start, o_end, label)


def data_dir() -> Path:
    """Where SciERC's ``{train,dev,test}.json`` are: ``$KG_SCIERC_DIR``, else ``../shared/scierc`` beside the repo."""
    env = os.environ.get("KG_SCIERC_DIR")
    if env:
        return Path(env)
    return SHARED_DIR / "scierc"


@dataclass(frozen=True)
class SciercDoc:
    """One SciERC abstract as text with character-offset annotations.

    ``token_starts[i]``/``token_ends[i]`` are the character offsets of SciERC token ``i``;
    ``entities`` keeps every annotated span with its SciERC label (all six types);
    ``relations`` keeps ``(s_start, s_end, o_start, o_end, label)`` in SciERC's direction.
    """

    doc_key: str
    text: str
    tokens: tuple[str, ...]
    token_starts: tuple[int, ...]
    token_ends: tuple[int, ...]
    sentence_starts: tuple[int, ...] = ()  # first token index of each sentence
    entities: tuple[tuple[int, int, str], ...] = ()
    relations: tuple[RelationTuple, ...] = field(default=())

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> SciercDoc:
        tokens: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        sentence_starts: list[int] = []
        offset = 0
        for sentence in obj["sentences"]:
            sentence_starts.append(len(tokens))
            for token in sentence:
                token = PTB_ESCAPES.get(token, token)
                if tokens:
                    offset += 1  # the single space before every token but the first
                starts.append(offset)
                offset += len(token)
                ends.append(offset)
                tokens.append(token)
        text = " ".join(tokens)
        assert len(text) == offset

        def chars(first: int, last: int) -> tuple[int, int]:
            return starts[first], ends[last]

        entities = tuple((*chars(s, e), label) for sentence in obj.get("ner", []) for s, e, label in sentence)
        relations = tuple(
            (*chars(s1, e1), *chars(s2, e2), label)
            for sentence in obj.get("relations", [])
            for s1, e1, s2, e2, label in sentence
        )
        return cls(
            doc_key=str(obj.get("doc_key", "")),
            text=text,
            tokens=tuple(tokens),
            token_starts=tuple(starts),
            token_ends=tuple(ends),
            sentence_starts=tuple(sentence_starts),
            entities=entities,
            relations=relations,
        )

    def gold_entities(self) -> set[EntitySpan]:
        """The scored gold mentions: ``(start, end, our type)`` for Method, Task, Metric, Material."""
        return {(s, e, SCORED_AS[label]) for s, e, label in self.entities if label in SCORED_AS}

    def gold_relations(self) -> set[RelationTuple]:
        return set(self.relations)


def read_split(split: str | os.PathLike[str], directory: Path | None = None) -> list[SciercDoc]:
    """The documents of ``split`` (``train``, ``dev``, ``test``, or a path to a SciERC json-lines file)."""
    path = Path(split) if str(split) not in SPLITS else (directory or data_dir()) / f"{split}.json"
    if not path.is_file():
        raise UsageError(f"{path}: no such SciERC file (set $KG_SCIERC_DIR to the folder of train/dev/test.json)")
    with path.open(encoding="utf-8") as handle:
        return [SciercDoc.from_json(json.loads(line)) for line in handle if line.strip()]
