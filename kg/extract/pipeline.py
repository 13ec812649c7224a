"""The extraction pipeline: a spaCy English pipeline plus the project's components.

Extraction is a pure function from documents to :class:`~kg.extract.records.DocumentRecord`,
so it can run in worker processes while a single writer stores the results.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING

from kg.errors import UsageError
from kg.extract.model import resolve_model
from kg.extract.records import DocumentRecord, Entity, Mention, Relation
from kg.normalize import entity_key, fold

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

    from kg.ingest import Document

# The stock pipeline's own NER labels people, places and dates, none of which we keep.
_EXCLUDED = ("ner",)
BATCH_SIZE = 64
# "default" is the vocabularies and rules over the parse (also named "rules"): on the annotated dev
# abstracts they still type entities better than the learned model (typed F1 0.618 against 0.60), which
# finds far more of the relations (relation F1 0.25 against 0.10); "learned" runs that model.
PROFILES = ("default", "rules", "learned", "scierc")


def build_pipeline(model: str | None = None, *, profile: str = "default", settings: dict | None = None) -> Language:
    """Load the spaCy pipeline ``model`` (see :func:`resolve_model`) and add the project's components.

    ``default`` and ``rules`` run the vocabularies and rules over the parse; ``learned`` the joint model
    learned from the project's annotations (tokens and sentences are all it needs from spaCy:
    kg/extract/learned/), with ``settings`` overriding its decoding settings; ``scierc`` the SciERC model.
    """
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}; choose one of: {', '.join(PROFILES)}")
    import spacy

    if profile == "learned":
        import kg.extract.learned.component
        from kg.extract.learned.data import segmenter

        nlp = segmenter(model)
        nlp.add_pipe("kg_learned", config={"settings": settings or {}})
        return nlp

    import kg.extract.components
    import kg.extract.relations

    nlp = spacy.load(resolve_model(model), exclude=list(_EXCLUDED))
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
        ``default`` or ``rules``: vocabularies and rules over the parse; ``learned``: the learned joint model;
        ``scierc`` keeps every typed span (what the SciERC benchmark scores).
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
        pairs = ((d.text, d) for d in documents)
        with one_thread():
            for doc, document in self.nlp.pipe(pairs, as_tuples=True, batch_size=BATCH_SIZE):
                yield record_from_doc(doc, document), document


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
        pairs = ((document.text, document) for document in documents)
        return [
            record_from_doc(doc, document)
            for doc, document in _PIPELINES[key].pipe(pairs, as_tuples=True, batch_size=BATCH_SIZE)
        ]


_PIPELINES: dict[tuple, Language] = {}  # this process's pipelines, by model, profile and settings


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
                evidence=doc.text[sentence.start_char : sentence.end_char],
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
