"""The extraction pipeline: a spaCy English pipeline plus the project's components.

Extraction is a pure function from documents to :class:`~kg.extract.records.DocumentRecord`,
so it can run in worker processes while a single writer stores the results.

Its cost grows linearly with a document's length: a document longer than :data:`PASSAGE_CHARS`
(no real abstract is) is read in passages of at most that many characters, cut after a sentence
where one ends, whose records are merged (:func:`~kg.extract.records.merge_records`). spaCy's own
cost per character rises with a document's length (its arrays outgrow the processor's caches), and
it refuses a text of 1,000,000 characters; passages keep both at the cost of a short text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.extract.model import load_pipeline, resolve_model
from kg.extract.records import DocumentRecord, Entity, Mention, Relation, merge_records
from kg.normalize import entity_key, fold

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

    from kg.ingest import Document

# The stock pipeline's own NER labels people, places and dates, none of which we keep.
_EXCLUDED = ("ner",)
BATCH_SIZE = 64
# spaCy's cost per character also rises with the length of a batch (tok2vec's arrays outgrow the caches):
# 64 passages of 10,000 characters cost 1.4 times as much per character as 64 abstracts. A
# batch is cut at this many characters too; 64 seed abstracts hold about 80,000.
BATCH_CHARS = 100_000
# "default" is the joint model learned from the project's annotations (also named "learned"): on the
# annotated dev abstracts it beats the vocabularies and rules ("rules") on typed entities, the papers'
# contributions and relations alike (README, "Extraction").
PROFILES = ("default", "learned", "rules", "scierc")
PASSAGE_CHARS = 10_000  # the longest seed abstract has 1,920 characters
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+")
_SPACE = re.compile(r"\s+")


def passages(text: str, *, limit: int = PASSAGE_CHARS) -> list[tuple[int, int]]:
    """``(start, end)`` character ranges that cover ``text`` end to end, each at most ``limit`` long: cut
    after the last sentence end (a full stop, question or exclamation mark and the whitespace after it)
    in the second half of the range, else after its last whitespace, else at ``limit``.

    Examples
    --------
    >>> passages("Alpha beta gamma. Delta epsilon.", limit=20)
    [(0, 18), (18, 32)]
    >>> passages("aaaa bbbb cccc", limit=8), passages("abcdefghij", limit=4)
    ([(0, 5), (5, 10), (10, 14)], [(0, 4), (4, 8), (8, 10)])
    """
    ranges = []
    start = 0
    while len(text) - start > limit:
        stop = start + limit
        cut = None
        for pattern, floor in ((_SENTENCE_END, start + limit // 2), (_SPACE, start + 1)):
            ends = [m.end() for m in pattern.finditer(text, floor, stop)]
            if ends:
                cut = ends[-1]
                break
        cut = cut or stop
        ranges.append((start, cut))
        start = cut
    ranges.append((start, len(text)))
    return ranges


def build_pipeline(model: str | None = None, *, profile: str = "default", settings: dict | None = None) -> Language:
    """Load the spaCy pipeline ``model`` (see :func:`resolve_model`) and add the project's components.

    ``default`` and ``learned`` run the joint model learned from the project's annotations (tokens and
    sentences are all it needs from spaCy: kg/extract/learned/), with ``settings`` overriding its decoding
    settings; ``rules`` the vocabularies and rules over the parse; ``scierc`` the SciERC model.
    """
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}; choose one of: {', '.join(PROFILES)}")

    if profile in ("default", "learned"):
        import kg.extract.learned.component
        from kg.extract.learned.data import segmenter

        nlp = segmenter(model)
        nlp.add_pipe("kg_learned", config={"settings": settings or {}})
        return nlp

    import kg.extract.components
    import kg.extract.relations

    nlp = load_pipeline(model, exclude=tuple(_EXCLUDED))
    nlp.add_pipe("kg_acronyms")
    if profile == "scierc":
        # The SciERC benchmark scores the joint model itself: its spans are the entities and its
        # relations the relations (kg/extract/scierc/model.py).
        import kg.extract.scierc.component  # noqa: F401

        nlp.add_pipe("kg_scierc")
        return nlp
    # The product's entities come from the vocabularies and rules: SciERC marks many phrases that do
    # not deserve a node, so adding the joint model's new Method, Task, Dataset and Metric entities
    # lowers typed F1 on the annotated seed abstracts from 0.618 to 0.442 (see README).
    nlp.add_pipe("kg_vocabulary")
    nlp.add_pipe("kg_candidates")
    nlp.add_pipe("kg_entities")
    nlp.add_pipe("kg_relations")
    return nlp


class Extractor:
    """Runs the pipeline over documents and yields one record per document, in input order.

    Parameters
    ----------
    model : str, optional
        spaCy pipeline name or path; default from ``$KG_SPACY_MODEL`` or the installed one.
    profile : {"default", "rules", "learned", "scierc"}
        ``default`` or ``learned``: the joint model learned from the project's annotations; ``rules``: the
        vocabularies and rules over the parse; ``scierc`` keeps every typed span (what the SciERC benchmark scores).
    workers : int
        Extraction processes (:mod:`kg.extract.parallel`), each with one thread for its numerical work;
        1 runs in this process, on one thread too.
    batch_size : int, optional
        Documents per task sent to a worker process (default :data:`kg.extract.parallel.BATCH`).
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        profile: str = "default",
        workers: int = 1,
        settings: dict | None = None,
        batch_size: int | None = None,
    ) -> None:
        self.model, self.profile, self.settings = model, profile, settings
        self.workers = max(1, workers)
        self.batch_size = batch_size
        self._nlp: Language | None = None
        if self.workers == 1:
            self.nlp  # noqa: B018  (load now, so that a missing model is reported before any output)
        else:
            resolve_model(model)  # the workers load the pipeline; a missing one is reported here first
            if profile not in PROFILES:
                raise UsageError(f"unknown profile {profile!r}; choose one of: {', '.join(PROFILES)}")

    @property
    def nlp(self) -> Language:
        """The pipeline of this process (loaded on first use)."""
        if self._nlp is None:
            from kg.extract.parallel import one_thread

            with one_thread():
                self._nlp = build_pipeline(self.model, profile=self.profile, settings=self.settings)
        return self._nlp

    def extract(self, documents: Iterable[Document]) -> Iterator[DocumentRecord]:
        for record, _ in self.extract_with_documents(documents):
            yield record

    def extract_with_documents(self, documents: Iterable[Document]) -> Iterator[tuple[DocumentRecord, Document]]:
        """Like :meth:`extract`, each record paired with the document it came from."""
        from kg.extract.parallel import BATCH, in_processes, one_thread

        if self.workers > 1:
            task = partial(extract_batch, model=self.model, profile=self.profile, settings=self.settings)
            yield from in_processes(documents, task, workers=self.workers, batch_size=self.batch_size or BATCH)
            return
        with one_thread():
            yield from _records(self.nlp, documents)


def extract_batch(
    documents: Sequence[Document], *, model: str | None, profile: str, settings: dict | None = None
) -> list[DocumentRecord]:
    """The record of each of ``documents``, in order, from this process's pipeline (loaded on first use,
    then kept): the task each extraction process, local (:mod:`kg.extract.parallel`) or on a Dask
    worker (:mod:`kg.build.cluster`), runs on a batch."""
    from kg.extract.parallel import one_thread

    key = (model, profile, tuple(sorted((settings or {}).items())))
    with one_thread():
        if key not in _PIPELINES:
            _PIPELINES[key] = build_pipeline(model, profile=profile, settings=settings)
        return [record for record, _ in _records(_PIPELINES[key], documents)]


_PIPELINES: dict[tuple, Language] = {}  # this process's pipelines, by model, profile and settings


def _records(nlp: Language, documents: Iterable[Document]) -> Iterator[tuple[DocumentRecord, Document]]:
    """Each document's record from ``nlp``, read in :func:`passages` and batches of :func:`_batches`."""

    def pieces() -> Iterator[tuple[str, tuple[Document, int, bool]]]:
        for document in documents:
            ranges = passages(document.text)
            for k, (start, end) in enumerate(ranges):
                yield document.text[start:end], (document, start, k == len(ranges) - 1)

    parts: list[tuple[int, DocumentRecord]] = []
    for batch in _batches(pieces()):
        for doc, (document, start, last) in nlp.pipe(batch, as_tuples=True, batch_size=len(batch)):
            parts.append((start, record_from_doc(doc, document)))
            if last:
                yield (parts[0][1] if len(parts) == 1 else merge_records(parts)), document
                parts = []


def _batches(pieces: Iterable[tuple[str, object]]) -> Iterator[list[tuple[str, object]]]:
    """``(text, context)`` pairs in batches of at most :data:`BATCH_SIZE` texts and :data:`BATCH_CHARS`
    characters (a longer text alone).

    >>> [len(b) for b in _batches([("x" * 60_000, 0), ("x" * 50_000, 1), ("x", 2), ("x" * 200_000, 3)])]
    [1, 2, 1]
    """
    batch: list[tuple[str, object]] = []
    size = 0
    for piece in pieces:
        if batch and (size + len(piece[0]) > BATCH_CHARS or len(batch) == BATCH_SIZE):
            yield batch
            batch, size = [], 0
        batch.append(piece)
        size += len(piece[0])
    if batch:
        yield batch


def record_from_doc(doc: Doc, document: Document) -> DocumentRecord:
    """Group a processed Doc's entity spans into one :class:`Entity` per concept, and attach its relations."""
    from kg.extract.relations import relations_of

    if "kg_learned" in doc.user_data:
        from kg.extract.learned.component import record_of

        return record_of(doc, document)
    long_of_short = {fold(s.text): long for s, long in zip(doc.spans["kg_short"], doc.spans["kg_long"])}
    proposed = {(s.start, s.end) for s in doc.spans["kg_proposed"]}
    scierc_of = {(s.start, s.end): s.label_ for s in doc.spans.get("kg_scierc", [])}
    groups: dict[str, dict] = {}
    key_of_span: dict[tuple[int, int], str] = {}
    for span in doc.spans["kg_entities"]:
        long = long_of_short.get(fold(span.text))
        name = long.text if long is not None else (span.kb_id_ or span.text)
        key = entity_key(name)
        key_of_span[(span.start, span.end)] = key
        group = groups.setdefault(
            key,
            {
                "label": long.text if long is not None else span.text,
                "type": span.label_,
                "scierc": scierc_of.get((span.start, span.end)),
                "forms": {},
                "proposed": False,
                "mentions": [],
            },
        )
        group["forms"].setdefault(fold(span.text), span.text)
        group["mentions"].append(Mention(span.start_char, span.end_char, span.text))
        group["proposed"] |= (span.start, span.end) in proposed
    entities = []
    for key, group in groups.items():
        label_fold = fold(group["label"])
        aliases = tuple(text for folded, text in group["forms"].items() if folded != label_fold)
        entities.append(
            Entity(
                id=key,
                label=group["label"],
                type=group["type"],
                aliases=aliases,
                proposed=group["proposed"],
                mentions=tuple(group["mentions"]),
                scierc=group["scierc"],
            )
        )
    relations = []
    text = doc.text  # spaCy joins the tokens anew at each access: once, not once a relation
    for subject, predicate, obj, scierc, confidence in relations_of(doc):
        subject_key, object_key = key_of_span.get((subject.start, subject.end)), key_of_span.get((obj.start, obj.end))
        if subject_key is None or object_key is None or subject_key == object_key:
            continue
        sentence = subject.sent
        relations.append(
            Relation(
                subject=subject_key,
                predicate=predicate,
                object=object_key,
                subject_span=(subject.start_char, subject.end_char),
                object_span=(obj.start_char, obj.end_char),
                evidence=text[sentence.start_char : sentence.end_char],
                confidence=confidence,
                scierc=scierc,
            )
        )
    return DocumentRecord(
        id=document.id,
        source=document.source,
        title=document.title,
        entities=tuple(entities),
        relations=tuple(relations),
    )
