#!/usr/bin/env python3
"""The texts of SciERC's train and dev abstracts, rebuilt from their tokens, for annotation under our guidelines.

usage: scierc_texts.py SCIERC_DIR > scierc_texts.jsonl
One line {"sha1": "scierc-" + doc_key, "text"} per abstract, train then dev (SciERC's test abstracts are
left out). Only the text is taken: SciERC's own labels follow other guidelines and are not read.
"""
import json
import sys

BRACKETS = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}", "``": '"', "''": '"'}
NO_SPACE_BEFORE = {".", ",", ":", ";", "?", "!", ")", "]", "}", "%", "'s", "n't", "'"}


def sentence_text(tokens):
    """Tokens joined as written: no space before closing punctuation or after an opening bracket."""
    out, quote_open = "", False
    for token in (BRACKETS.get(t, t) for t in tokens):
        if not out:
            out = token
        elif token in NO_SPACE_BEFORE:
            out += token
        elif token == '"':
            out += token if quote_open else " " + token
            quote_open = not quote_open
        elif out.endswith(("(", "[", "{")) or (quote_open and out.endswith('"')):
            out += token
        else:
            out += " " + token
    return out


def main(scierc_dir):
    for split in ("train", "dev"):
        for line in open(f"{scierc_dir}/{split}.json", encoding="utf-8"):
            doc = json.loads(line)
            text = " ".join(sentence_text(s) for s in doc["sentences"])
            print(json.dumps({"sha1": "scierc-" + doc["doc_key"], "text": text}, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1])
