"""Command line: argument parsing and error reporting only.

Each sub-command hands its parsed arguments to one function of the package;
every expected failure arrives here as :class:`EvalsiteError` and leaves as a
single ``error: ...`` line on stderr with exit status 2.  Set
``EVALSITE_DEBUG=1`` to see the traceback of an unexpected failure.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from generator import __version__
from generator.model.errors import EvalsiteError


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in the project's one-line form."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise EvalsiteError(message)


def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="strictly compare two Comet experiment directories")
    p.add_argument("--candidate", required=True, metavar="DIR", help="candidate experiment directory")
    p.add_argument("--candidate-treatment", required=True, metavar="NAME")
    p.add_argument("--baseline", required=True, metavar="DIR", help="baseline experiment directory")
    p.add_argument("--baseline-treatment", required=True, metavar="NAME")
    p.add_argument("--tasks", metavar="DIR", help="tasks tree used for fallback case manifests")
    p.add_argument("--eval-root", metavar="DIR", help="Comet eval/ folder (controller files for fallback hashes)")
    p.add_argument("--k", default="1,2,3", metavar="LIST", help="comma-separated k values (default 1,2,3)")
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")
    p.add_argument("--out", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument(
        "--rebase-artifacts",
        action="store_true",
        help="find moved raw stdout files by exact name under each experiment's raw/ folder",
    )
    p.set_defaults(handler=_run_compare)


def _run_compare(args: argparse.Namespace) -> int:
    from generator.pipelines.compare import run_compare_command

    return run_compare_command(args)


def _add_ledger(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ledger",
        help="append to, summarize, verify or repair a benchmark ledger",
        add_help=False,
    )
    p.add_argument("ledger_args", nargs=argparse.REMAINDER)
    p.set_defaults(handler=_run_ledger)


def _run_ledger(args: argparse.Namespace) -> int:
    from generator.pipelines.ledger_cli import main as ledger_main

    return ledger_main(args.ledger_args)


def _add_build(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="build the static site described by site-config.yaml")
    p.add_argument("--config", default="site-config.yaml", metavar="FILE")
    p.add_argument("--out", metavar="DIR", help="output folder (default: the config's output)")
    p.set_defaults(handler=_run_build)


def _run_build(args: argparse.Namespace) -> int:
    from generator.pipelines.build import run_build_command

    return run_build_command(args)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="evalsite",
        description="Turn agent-evaluation evidence into verified reports and a static site.",
    )
    parser.add_argument("--version", action="version", version=f"evalsite {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _add_compare(sub)
    _add_ledger(sub)
    _add_build(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["ledger"]:  # the ledger tool parses its own sub-commands and options
            return _run_ledger(argparse.Namespace(ledger_args=argv[1:]))
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.handler(args) or 0)
    except EvalsiteError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # never a traceback for the user
        if os.environ.get("EVALSITE_DEBUG"):
            raise
        message = " ".join(str(error).split()) or type(error).__name__
        print(f"error: unexpected {type(error).__name__}: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
