"""`kg eval` and `kg train`: scoring extraction against annotations, and training its models."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kg.cli.common import _profiles, _write_text, add_format_option, command, options


@command("eval", "score extraction: gold (annotated seed abstracts) or scierc (the SciERC benchmark)")
def cmd_eval(args: argparse.Namespace) -> int:
    if args.benchmark == "gold":
        from kg.eval.gold import DEFAULT_GOLD, evaluate_gold

        evaluation = evaluate_gold(args.gold or [DEFAULT_GOLD], model=args.model, profile=args.profile)
    else:
        from kg.eval.scierc import evaluate

        evaluation = evaluate(args.split)
    _write_text(json.dumps(evaluation.to_json(), indent=2) if args.format == "json" else evaluation.to_text())
    return 0


@options("eval")
def _eval_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("benchmark", choices=("gold", "scierc"))
    parser.add_argument(
        "--gold",
        action="append",
        metavar="FILE",
        help="annotated abstracts (gold: default ../shared/gold/dev.json); repeatable",
    )
    parser.add_argument("--split", default="dev", help="scierc: dev or test (default dev)")
    add_format_option(parser)
    parser.add_argument("--model", default=None, help="spaCy pipeline (see kg build --model)")
    parser.add_argument(
        "--profile", choices=_profiles(), default="default", help="gold: the extraction to score (see kg build)"
    )


@command(
    "train",
    "train the learned extraction model (extraction), the SciERC joint model (scierc) "
    "or the relation classifier (relations)",
)
def cmd_train(args: argparse.Namespace) -> int:
    if args.target == "extraction":
        from kg.extract.learned.training import train as train_extraction

        output = train_extraction(Path(args.output) if args.output else None, minutes=args.minutes)
    elif args.target == "relations":
        from kg.extract.relation_model import MODEL_FILE
        from kg.extract.relation_training import train_relations

        output = Path(args.output) if args.output else MODEL_FILE
        train_relations(output)
    else:
        from kg.extract.scierc.training import Settings, train

        settings = Settings(
            **{name: value for name, value in (("epochs", args.epochs), ("context", args.context)) if value is not None}
        )
        output = train(Path(args.output) if args.output else None, settings=settings, minutes=args.minutes)
    print(f"kg train: wrote {output}", file=sys.stderr)
    return 0


@options("train")
def _train_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        choices=("extraction", "scierc", "relations"),
        help="extraction: the learned profile's joint model, on data/annotations/ (two annotations of each seed "
        "abstract, and the written abstracts); scierc: the SciERC joint model; relations: the rules profile's "
        "relation classifier (both on SciERC train)",
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        default=None,
        help="where to write the weights (default: the package's own, in kg/models/)",
    )
    parser.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="extraction, scierc: stop after the epoch that passes this many minutes, keeping the best so far",
    )
    parser.add_argument("--epochs", type=int, default=None, help="scierc: epochs (default 10)")
    parser.add_argument(
        "--context",
        type=int,
        default=None,
        help="scierc: word pieces of the neighbouring sentences read on each side (default 0)",
    )
