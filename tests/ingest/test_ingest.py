"""Tests for kg.ingest: formats, ids, bad input, error handling and streaming."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import pickle
import tracemalloc
from pathlib import Path

import pytest
from conftest import SEEDS

from kg.errors import InputError
from kg.ingest import Document, document_id, iter_source_files, read_documents

A1 = "We propose LoRA, a low-rank adaptation method for large language models."
A2 = "Robust overfitting hurts adversarial training on CIFAR-10."
A3 = "We study grokking in small transformers."


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))
    return path


def read(*paths: Path | str, **kwargs) -> list[Document]:
    return list(read_documents(list(paths), **kwargs))


def error_of(*paths: Path | str) -> InputError:
    with pytest.raises(InputError) as info:
        read(*paths)
    return info.value


def jsonl(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


# --- document_id and Document ----------------------------------------------------------------


def test_document_id_is_sha1_of_plain_text():
    assert document_id(A1) == hashlib.sha1(A1.encode()).hexdigest()


def test_document_id_normalises_whitespace_and_unicode():
    assert document_id(f"  {A1}\n") == document_id(A1)
    assert document_id("a \t\n b\u00a0c") == document_id("a b c")
    assert document_id("caf\u0065\u0301") == document_id("caf\u00e9")
    assert document_id("a b") != document_id("ab")


def test_document_is_frozen_and_meta_read_only():
    meta = {"year": 2021, "authors": ("E. Hu",)}
    doc = Document("x", A1, "a.jsonl:1", meta=meta)
    meta["year"] = 1999  # the caller's dict is copied
    assert doc.meta["year"] == 2021
    with pytest.raises(TypeError):
        doc.meta["year"] = 2022  # type: ignore[index]
    with pytest.raises(AttributeError):
        doc.text = "other"  # type: ignore[misc]
    assert Document("y", A2, "b.txt:3").meta == {}
    assert hash(doc) == hash(Document("x", A1, "a.jsonl:1", meta={"year": 2021}))


def test_document_pickles_for_worker_processes():
    doc = Document("x", A1, "a.jsonl:1", title="LoRA", meta={"year": 2021, "categories": ("cs.CL",)})
    back = pickle.loads(pickle.dumps(doc))
    assert back == doc
    assert back.meta["categories"] == ("cs.CL",)
    with pytest.raises(TypeError):
        back.meta["year"] = 1  # type: ignore[index]


# --- finding files ---------------------------------------------------------------------------


def test_iter_source_files_sorted_recursive_and_filtered(tmp_path):
    for name in [
        "b.jsonl",
        "a/z.csv",
        "a/y.TSV",
        "a.txt",
        "c/d/e.txt",
        "notes.md",
        "x.json",
        ".hidden.txt",
        ".git/objects.txt",
        "README",
    ]:
        write(tmp_path / name, "x")
    found = [p.relative_to(tmp_path).as_posix() for p in iter_source_files([tmp_path])]
    assert found == ["a/y.TSV", "a/z.csv", "a.txt", "b.jsonl", "c/d/e.txt"]


def test_iter_source_files_keeps_given_order_and_path(tmp_path):
    b = write(tmp_path / "b.txt", A1)
    a = write(tmp_path / "a.jsonl", A1)
    hidden = write(tmp_path / ".explicit.txt", A1)
    assert list(iter_source_files([str(b), a, hidden])) == [b, a, hidden]
    assert list(iter_source_files(str(b))) == [b]  # one path, not its characters


def test_missing_path(tmp_path):
    missing = tmp_path / "nope.txt"
    with pytest.raises(InputError) as info:
        list(iter_source_files([missing]))
    assert str(info.value) == f"{missing}: no such file or directory"
    assert info.value.line is None


def test_unsupported_extension_given_explicitly(tmp_path):
    path = write(tmp_path / "papers.json", "{}")
    err = error_of(path)
    assert str(err) == f"{path}: unsupported source type '.json' (expected .txt, .jsonl, .csv or .tsv)"
    bare = write(tmp_path / "papers", A1)
    assert "unsupported source type (no extension)" in str(error_of(bare))


def test_folder_without_source_files(tmp_path):
    write(tmp_path / "notes.md", "x")
    write(tmp_path / ".hidden.txt", A1)
    err = error_of(tmp_path)
    assert err.path == str(tmp_path)
    assert "no source files" in err.message


# --- .txt ------------------------------------------------------------------------------------


def test_txt_paragraphs_daily_papers_and_lines(tmp_path):
    path = write(tmp_path / "a.txt", f"Daily Papers\n\n{A1}\n\n\n\n{A2}\nsecond line\n  \n\t\n{A3}")
    docs = read(path)
    assert [d.text for d in docs] == [A1, f"{A2}\nsecond line", A3]
    assert [d.source for d in docs] == [f"{path}:3", f"{path}:7", f"{path}:11"]
    assert [d.id for d in docs] == [document_id(d.text) for d in docs]
    assert all(d.title is None and d.meta == {} for d in docs)


def test_txt_text_is_kept_as_in_file_except_ends(tmp_path):
    path = write(tmp_path / "a.txt", f"   {A1}  \n  indented line \n")
    (doc,) = read(path)
    assert doc.text == f"{A1}  \n  indented line"
    assert doc.source == f"{path}:1"


def test_txt_daily_papers_only_when_first(tmp_path):
    path = write(tmp_path / "a.txt", f"\n\n  Daily Papers  \n{A1}\n\nDaily Papers\n")
    docs = read(path)
    assert [(d.text, d.source) for d in docs] == [(A1, f"{path}:4"), ("Daily Papers", f"{path}:6")]


def test_txt_crlf_and_bom(tmp_path):
    path = write(
        tmp_path / "a.txt", b"\xef\xbb\xbfDaily Papers\r\n\r\n" + A1.encode() + b"\r\nmore\r\n\r\n" + A2.encode()
    )
    docs = read(path)
    assert [d.text for d in docs] == [f"{A1}\nmore", A2]
    assert [d.source for d in docs] == [f"{path}:3", f"{path}:6"]


def test_bom_before_first_abstract_is_not_text(tmp_path):
    path = write(tmp_path / "a.txt", b"\xef\xbb\xbf" + A1.encode())
    (doc,) = read(path)
    assert doc.text == A1
    assert doc.id == hashlib.sha1(A1.encode()).hexdigest()


# --- .jsonl ----------------------------------------------------------------------------------


def test_jsonl_fields(tmp_path):
    arxiv = {
        "id": "2106.09685",
        "submitter": "Edward Hu",
        "authors": "Edward J. Hu, Yelong Shen, Phillip Wallis and Weizhu Chen",
        "title": "LoRA: Low-Rank Adaptation of\n  Large Language Models",
        "categories": "cs.CL cs.AI cs.LG",
        "abstract": f"  {A1}\n",
        "versions": [
            {"version": "v1", "created": "Thu, 17 Jun 2021 17:37:18 GMT"},
            {"version": "v2", "created": "Sat, 16 Oct 2021 18:40:34 GMT"},
        ],
        "update_date": "2021-10-18",
        "authors_parsed": [
            ["Hu", "Edward J.", ""],
            ["Shen", "Yelong", ""],
            ["Wallis", "Phillip", ""],
            ["Chen", "Weizhu", ""],
        ],
    }
    path = write(
        tmp_path / "a.jsonl",
        jsonl(
            arxiv,
            {
                "id": 42,
                "text": A2,
                "authors": ["A. Madry", " "],
                "year": 2019,
                "url": "https://x.org/1",
                "categories": ["cs.LG"],
            },
            {"text": A3, "date": "2022-01-06", "year": None, "title": " "},
            {"id": "  ", "text": A3, "year": "2022"},
        ),
    )
    d1, d2, d3, d4 = read(path)
    assert (d1.id, d1.text, d1.source) == ("2106.09685", A1, f"{path}:1")
    assert d1.title == "LoRA: Low-Rank Adaptation of Large Language Models"
    assert dict(d1.meta) == {  # the arXiv snapshot's fields: the first version's date, the parsed authors
        "authors": ("Edward J. Hu", "Yelong Shen", "Phillip Wallis", "Weizhu Chen"),
        "date": "2021-06-17",
        "year": 2021,
        "categories": ("cs.CL", "cs.AI", "cs.LG"),
    }
    assert (d2.id, d2.text, d2.source) == ("42", A2, f"{path}:2")
    assert dict(d2.meta) == {"authors": ("A. Madry",), "year": 2019, "url": "https://x.org/1", "categories": ("cs.LG",)}
    assert d3.id == document_id(A3) and d3.title is None
    assert dict(d3.meta) == {"date": "2022-01-06", "year": 2022}
    assert d4.id == document_id(A3)  # a blank id means no id
    assert d4.meta["year"] == 2022


def test_jsonl_text_preferred_over_abstract_and_blank_lines_skipped(tmp_path):
    path = write(tmp_path / "a.jsonl", "\n  \n" + jsonl({"text": A1, "abstract": A2}) + "\n" + jsonl({"abstract": A3}))
    docs = read(path)
    assert [(d.text, d.source) for d in docs] == [(A1, f"{path}:3"), (A3, f"{path}:5")]


def test_author_strings_are_split(tmp_path):
    path = write(
        tmp_path / "a.jsonl",
        jsonl(
            {"text": A1, "authors": "Ann Anderson"},
            {"text": A1, "authors": "A. B, C. D, and E. F"},
            {"text": A1, "authors": "P. Q (MIT, Cambridge) and R. S"},
            {"text": A1, "authors": "Hu, Edward J.; Shen, Yelong; and King, Jr., Martin"},
            {"text": A1, "authors": "E. Hu; Y. Shen (MIT, Cambridge);"},
            {"text": A1, "authors": ["Edward Hu", "  Yelong  Shen "]},
        ),
    )
    assert [d.meta["authors"] for d in read(path)] == [
        ("Ann Anderson",),
        ("A. B", "C. D", "E. F"),
        ("P. Q (MIT, Cambridge)", "R. S"),
        ("Edward J. Hu", "Yelong Shen", "King, Jr., Martin"),  # "Last, First" turned around where unambiguous
        ("E. Hu", "Y. Shen (MIT, Cambridge)"),
        ("Edward Hu", "Yelong Shen"),
    ]


def test_arxiv_snapshot_dates(tmp_path):
    created = {"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}
    path = write(
        tmp_path / "a.jsonl",
        jsonl(
            {"id": "0704.0001", "abstract": A1, "versions": [created], "update_date": "2008-11-13"},
            {"abstract": A2, "update_date": "2008-11-13"},  # no versions: the last update is all there is
            {"abstract": A3, "versions": [created], "date": "2007-05-01"},  # a date given is the date
            {"abstract": A3, "date": "Tue, 3 Apr 2007 23:59:59 -0800"},  # the day where it was written
            {"abstract": A3, "versions": []},
        ),
    )
    assert [(d.meta.get("date"), d.meta.get("year")) for d in read(path)] == [
        ("2007-04-02", 2007),
        ("2008-11-13", 2008),
        ("2007-05-01", 2007),
        ("2007-04-03", 2007),
        (None, None),
    ]


def test_arxiv_snapshot_fields_in_a_csv(tmp_path):
    """A snapshot flattened to CSV: pandas writes lists as Python literals, other tools as JSON."""
    rows = [
        ["id", "abstract", "authors", "authors_parsed", "versions", "update_date"],
        [
            "0704.0001",
            A1,
            "C. Bal\\'azs, E. L. Berger",
            repr([["Bal\\'azs", "C.", ""], ["Berger", "E. L.", ""]]),
            json.dumps([{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}]),
            "2008-11-13",
        ],
        ["0704.0002", A2, "Hu, Edward; Shen, Yelong", "", "", "2008-12-13"],
    ]
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    d1, d2 = read(write(tmp_path / "a.csv", buffer.getvalue()))
    assert dict(d1.meta) == {"authors": ("C. Bal\\'azs", "E. L. Berger"), "date": "2007-04-02", "year": 2007}
    assert dict(d2.meta) == {"authors": ("Edward Hu", "Yelong Shen"), "date": "2008-12-13", "year": 2008}


# --- .csv / .tsv -----------------------------------------------------------------------------


def test_csv_columns_ids_and_multiline_records(tmp_path):
    path = write(
        tmp_path / "a.csv",
        (
            "ID,Title,Abstract,Authors,Year,URL,Categories,extra\n"
            f'p1,LoRA,"{A1}",Edward Hu and Yelong Shen,2021,https://x.org,cs.CL cs.LG,ignored\n'
            "\n"
            f',,"{A2}\nwith a second line\n",,2019.0,,,\n'
            f'  ,,"{A3}",,,,,\n'
        ),
    )
    d1, d2, d3 = read(path)
    assert (d1.id, d1.title, d1.text, d1.source) == ("p1", "LoRA", A1, f"{path}:2")
    assert dict(d1.meta) == {
        "authors": ("Edward Hu", "Yelong Shen"),
        "year": 2021,
        "url": "https://x.org",
        "categories": ("cs.CL", "cs.LG"),
    }
    assert (d2.id, d2.text, d2.source) == (document_id(d2.text), f"{A2}\nwith a second line", f"{path}:4")
    assert dict(d2.meta) == {"year": 2019}
    assert (d3.id, d3.source) == (document_id(A3), f"{path}:7")


def test_tsv_with_text_column_and_crlf(tmp_path):
    path = write(tmp_path / "a.tsv", f'id\tTEXT\r\n1\t{A1}, with a comma\r\n2\t"{A2}\r\nline two"\r\n3\t{A3}\r\n')
    docs = read(path)
    assert [(d.id, d.text, d.source) for d in docs] == [
        ("1", f"{A1}, with a comma", f"{path}:2"),
        ("2", f"{A2}\nline two", f"{path}:3"),
        ("3", A3, f"{path}:5"),
    ]


def test_csv_without_text_column(tmp_path):
    path = write(tmp_path / "a.csv", f"id,summary\n1,{A1}\n")
    err = error_of(path)
    assert str(err) == f"{path}:1: no 'text' or 'abstract' column (columns: 'id', 'summary')"


def test_csv_bom_header(tmp_path):
    path = write(tmp_path / "a.csv", b'\xef\xbb\xbftext\n"' + A1.encode() + b'"\n')
    assert [d.text for d in read(path)] == [A1]


def test_csv_row_with_empty_text(tmp_path):
    path = write(tmp_path / "a.csv", f'id,text\n1,"{A1}\nmore"\n2,"  "\n')
    err = error_of(path)
    assert (err.path, err.line) == (str(path), 4)
    assert str(err) == f"{path}:4: empty 'text'"


def test_csv_row_too_short_and_too_long(tmp_path):
    path = write(tmp_path / "a.csv", f"id,title,text\n1\n2,t,{A2},surplus\n3,t,{A3}\n")
    errors: list[InputError] = []
    docs = read(path, on_error=errors.append)
    assert [d.id for d in docs] == ["3"]
    assert [(e.line, e.message) for e in errors] == [(2, "empty 'text'"), (3, "expected 3 fields, found 4")]


def test_csv_header_only(tmp_path):
    path = write(tmp_path / "a.csv", "id,text\n")
    assert str(error_of(path)) == f"{path}: no abstracts, only a header row"


# --- duplicates ------------------------------------------------------------------------------


def test_duplicates_are_all_yielded_with_their_sources(tmp_path):
    txt = write(tmp_path / "a.txt", f"{A1}\n\n{A2}\n\n{A1}\n")
    csv_ = write(tmp_path / "b.csv", f'text\n"{A1}"\n')
    lines = write(tmp_path / "c.jsonl", jsonl({"text": A1}, {"id": "own", "text": A1}))
    docs = read(tmp_path)
    assert [d.source for d in docs] == [f"{txt}:1", f"{txt}:3", f"{txt}:5", f"{csv_}:2", f"{lines}:1", f"{lines}:2"]
    assert [d.id for d in docs] == [
        document_id(A1),
        document_id(A2),
        document_id(A1),
        document_id(A1),
        document_id(A1),
        "own",
    ]


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a.txt", "a.jsonl", "a.csv"])
def test_binary_file(tmp_path, name):
    path = write(tmp_path / name, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    err = error_of(path)
    assert str(err) == f"{path}: binary file, not text"


def test_nul_byte_after_the_first_block(tmp_path):
    path = write(tmp_path / "a.txt", (A1 + "\n\n") * 200 + "bad\x00line\n")
    err = error_of(path)
    assert (err.line, err.message) == (401, "binary file, not text")


def test_utf16_file(tmp_path):
    path = write(tmp_path / "a.txt", A1.encode("utf-16"))
    assert "not UTF-8 text (UTF-16" in str(error_of(path))


@pytest.mark.parametrize("name", ["a.txt", "a.jsonl", "a.csv"])
def test_not_utf8_reports_line_and_byte(tmp_path, name):
    head = {"a.txt": f"{A1}\n\n", "a.jsonl": jsonl({"text": A1}) + "\n", "a.csv": f'text\n"{A1}"\n'}[name]
    path = write(tmp_path / name, head.encode() + b"caf\xe9 au lait\n")
    err = error_of(path)
    assert str(err) == f"{path}:3: not UTF-8 text (invalid byte 0xe9)"


@pytest.mark.parametrize("content", [b"", b"  \n\n\t\r\n", b"\xef\xbb\xbf\n"])
@pytest.mark.parametrize("name", ["a.txt", "a.jsonl", "a.csv", "a.tsv"])
def test_empty_file(tmp_path, name, content):
    path = write(tmp_path / name, content)
    assert str(error_of(path)) == f"{path}: empty file, no abstracts"


def test_txt_with_only_daily_papers(tmp_path):
    path = write(tmp_path / "a.txt", "\nDaily Papers\n\n\n")
    assert str(error_of(path)) == f"{path}: empty file, no abstracts"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"text": "unterminated}', "malformed JSON: Unterminated string starting at"),
        ("{'text': 'single quotes'}", "malformed JSON: Expecting property name enclosed in double quotes"),
        ('["a list"]', "expected a JSON object, got array"),
        ('"just a string"', "expected a JSON object, got string"),
        ('{"title": "no text"}', "no 'text' or 'abstract' field"),
        ('{"text": "   "}', "empty 'text'"),
        ('{"abstract": ""}', "empty 'abstract'"),
        ('{"text": 12}', "'text' must be a string, got number"),
        ('{"text": "ok", "id": [1]}', "'id' must be a string or a number, got array"),
        ('{"text": "ok", "id": true}', "'id' must be a string or a number, got boolean"),
        ('{"text": "ok", "year": "last year"}', "'year' must be a year number"),
        ('{"text": "ok", "authors": {"a": 1}}', "'authors' must be a string or a list of strings"),
        ('{"text": "ok", "categories": ["cs.LG", 3]}', "'categories' must be a string or a list of strings"),
        ('{"text": "ok", "title": ["x"]}', "'title' must be a string, got array"),
        ('{"text": "ok", "authors_parsed": "Hu, E."}', "'authors_parsed' must be a list, got a string"),
        ('{"text": "ok", "authors_parsed": ["Hu"]}', "'authors_parsed' must be a list of [last, first, suffix]"),
        ('{"text": "ok", "versions": {"v1": 1}}', "'versions' must be a list of objects, got object"),
        ('{"text": "ok", "versions": [{"created": "soon"}]}', "'versions[0].created' is not a date: 'soon'"),
        ('{"text": "ok", "update_date": "13/11/2008"}', "'update_date' must be a date as YYYY-MM-DD"),
    ],
)
def test_jsonl_bad_records(tmp_path, line, message):
    path = write(tmp_path / "a.jsonl", jsonl({"text": A1}) + "\n" + line + "\n")
    err = error_of(path)
    assert (err.path, err.line) == (str(path), 3)
    assert err.message.startswith(message)
    assert str(err).startswith(f"{path}:3: {message}")


def test_malformed_json_message(tmp_path):
    path = write(tmp_path / "a.jsonl", "{oops\n")
    assert (
        str(error_of(path)) == f"{path}:1: malformed JSON: Expecting property name enclosed in double quotes (column 2)"
    )


# --- on_error --------------------------------------------------------------------------------


def test_on_error_continues_with_next_record_and_next_file(tmp_path):
    write(tmp_path / "a.jsonl", jsonl({"text": A1}) + "not json\n" + jsonl({"text": ""}, {"id": "ok", "text": A2}))
    write(tmp_path / "b.txt", b"\x00\x01binary")
    write(tmp_path / "c.csv", f"id,summary\n1,{A1}\n")
    write(tmp_path / "d.txt", A1.encode() + b"\n\n\xff\n\n" + A2.encode())
    write(tmp_path / "e.csv", f'id,text\n,"{A1}"\n2,""\n,{A3}\n')
    missing = tmp_path / "missing.txt"
    errors: list[InputError] = []
    docs = read(tmp_path, missing, SEEDS / "001_a0a3e2fcfccd19da.txt", on_error=errors.append)
    assert [d.source.replace(str(tmp_path), "T") for d in docs[:5]] == [
        "T/a.jsonl:1",
        "T/a.jsonl:4",
        "T/d.txt:1",
        "T/e.csv:2",
        "T/e.csv:4",
    ]
    assert len(docs) == 5 + 120  # reading went on past the missing path
    assert [str(e).replace(str(tmp_path), "T") for e in errors] == [
        "T/a.jsonl:2: malformed JSON: Expecting value (column 1)",
        "T/a.jsonl:3: empty 'text'",
        "T/b.txt: binary file, not text",
        "T/c.csv:1: no 'text' or 'abstract' column (columns: 'id', 'summary')",
        "T/d.txt:3: not UTF-8 text (invalid byte 0xff)",
        "T/e.csv:3: empty 'text'",
        "T/missing.txt: no such file or directory",
    ]


def test_without_on_error_the_first_error_raises(tmp_path):
    path = write(tmp_path / "a.jsonl", jsonl({"text": A1}) + "nope\n" + "[]\n")
    docs = []
    with pytest.raises(InputError) as info:
        for doc in read_documents([path]):
            docs.append(doc)
    assert [d.text for d in docs] == [A1]
    assert info.value.line == 2


def test_on_error_may_abort(tmp_path):
    path = write(tmp_path / "a.jsonl", "nope\n" + jsonl({"text": A1}))

    class Stop(Exception):
        pass

    def handler(err: InputError) -> None:
        raise Stop(str(err))

    with pytest.raises(Stop, match="a.jsonl:1"):
        read(path, on_error=handler)


def test_on_error_raising_input_error_is_not_reported_twice(tmp_path):
    path = write(tmp_path / "a.jsonl", "nope\n")
    calls: list[InputError] = []

    def handler(err: InputError) -> None:
        calls.append(err)
        raise err

    with pytest.raises(InputError):
        read(path, on_error=handler)
    assert len(calls) == 1


# --- streaming -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a.txt", "a.jsonl", "a.csv"])
def test_reading_is_lazy(tmp_path, name):
    good = {"a.txt": f"{A1}\n\n", "a.jsonl": jsonl({"text": A1}), "a.csv": f'text\n"{A1}"\n'}[name]
    path = write(tmp_path / name, good.encode() + b"\n" * 10_000 + b"\xff\xfe garbage \xc3\n")
    docs = read_documents([path])
    assert next(docs).text == A1
    with pytest.raises(InputError, match="not UTF-8"):
        next(docs)


def test_reading_uses_constant_memory(tmp_path):
    path = tmp_path / "big.jsonl"
    record = (json.dumps({"id": "x", "abstract": A1 * 8}) + "\n").encode()
    count = 8 * 1024 * 1024 // len(record)  # about 8 MB
    with path.open("wb") as out:
        for _ in range(count):
            out.write(record)
    tracemalloc.start()
    try:
        seen = sum(1 for _ in read_documents([path]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == count
    assert peak < 1024 * 1024, peak


# --- the seed corpus -------------------------------------------------------------------------


def test_seeds():
    docs = list(read_documents([SEEDS]))
    assert len(docs) == 842
    assert len({d.id for d in docs}) == 727
    assert all(d.source.startswith(str(SEEDS)) for d in docs)
    assert not any(d.text == "Daily Papers" for d in docs)
    assert docs[0].source == f"{SEEDS / '000_a8dc9434823c92ba.txt'}:3"
    assert docs[0].text.startswith("Developing an agent capable of adapting to unseen environments")


def test_seeds_relative_path_as_given(monkeypatch):
    monkeypatch.chdir(SEEDS.parent)
    first = next(read_documents(["seeds/"]))
    assert first.source == "seeds/000_a8dc9434823c92ba.txt:3"
