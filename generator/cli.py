"""Command line: argument parsing and error reporting only.

Each sub-command hands its parsed arguments to one function of the package;
every expected failure arrives here as :class:`EvalsiteError` and leaves as a
single ``error: ...`` line on stderr with exit status 2.  Set
``EVALSITE_DEBUG=1`` to see the traceback of an unexpected failure.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from generator.model.common import DEFAULT_KS
from generator.model.errors import EvalsiteError
from generator.model.formats import FORMATS
from generator.model.scores import DEFAULT_METRIC, METRICS, check_metric
from generator.model.version import __version__

if TYPE_CHECKING:
    from generator.model.redaction import Redactor

_KS_TEXT = ",".join(str(k) for k in DEFAULT_KS)
_SYSTEM_FORMATS = FORMATS  # a leaderboard system's input formats (model.leaderboard.SYSTEM_FORMATS)


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in the project's one-line form."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise EvalsiteError(message)


def _add_compare(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("compare", help="strictly compare two Comet experiment directories")
    for side in ("candidate", "baseline"):
        p.add_argument(
            f"--{side}",
            action="append",
            required=True,
            metavar="PATH",
            help=f"{side} experiment directory (or input of its format); Inspect: repeat for each log of one run",
        )
    p.add_argument("--candidate-treatment", required=True, metavar="NAME")
    p.add_argument("--baseline-treatment", required=True, metavar="NAME")
    formats = ("comet", "inspect", "harbor", "swebench", "records", "auto")
    for side in ("candidate", "baseline"):
        p.add_argument(
            f"--{side}-format",
            choices=formats,
            default="comet",
            help=f"format of --{side} (default comet; auto detects it when only one format fits)",
        )
        p.add_argument(
            f"--{side}-mapping",
            metavar="FILE",
            help=f"records: a YAML file with the field mapping of --{side} (fields:, preset:, metric:)",
        )
    p.add_argument(
        "--records-preset",
        choices=("lm-eval", "promptfoo"),
        help="records: the preset of each records side without a mapping file",
    )
    _add_import_options(p)
    p.add_argument("--tasks", metavar="DIR", help="tasks tree used for fallback case manifests")
    p.add_argument("--eval-root", metavar="DIR", help="Comet eval/ folder (controller files for fallback hashes)")
    p.add_argument("--k", default=_KS_TEXT, metavar="LIST", help=f"comma-separated k values (default {_KS_TEXT})")
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")
    p.add_argument("--out", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument(
        "--force",
        action="store_true",
        help="let --out replace an existing file that is not an evalsite comparison report",
    )
    p.add_argument(
        "--rebase-artifacts",
        action="store_true",
        help="find moved raw stdout files by exact name under each experiment's raw/ folder",
    )
    p.set_defaults(handler=_run_compare)


def _run_compare(args: argparse.Namespace) -> int:
    """``evalsite compare``: print or write the Markdown or JSON report."""
    from generator.model.comparison import ComparisonInputs, parse_ks
    from generator.model.formats import ImportOptions
    from generator.pipelines.compare import check_report_path, report_chunks, write_report

    try:
        ks = parse_ks(args.k)
    except ValueError as error:
        raise EvalsiteError(f"--k: {error}") from None
    logs = {side: _side_logs(args, side) for side in ("candidate", "baseline")}
    inputs = ComparisonInputs(
        candidate_dir=Path(args.candidate[0]),
        candidate_treatment=args.candidate_treatment,
        baseline_dir=Path(args.baseline[0]),
        baseline_treatment=args.baseline_treatment,
        tasks_dir=Path(args.tasks) if args.tasks else None,
        eval_root=Path(args.eval_root) if args.eval_root else None,
        ks=ks,
        rebase_artifacts=bool(args.rebase_artifacts),
        candidate_format=args.candidate_format,
        baseline_format=args.baseline_format,
        import_options=ImportOptions(
            pass_threshold=_threshold(args.pass_threshold),
            scorer=args.scorer or None,
            errors_as_failures=bool(args.errors_as_failures),
            **_records_mappings(args),
            candidate_logs=logs["candidate"],
            baseline_logs=logs["baseline"],
        ),
        metric=check_metric(args.metric),
    )
    report_format: Literal["json", "markdown"] = "json" if args.format == "json" else "markdown"
    if args.out:
        check_report_path(Path(args.out), inputs, report_format, force=bool(args.force))
    from generator.pipelines.progress import Progress, progress_wanted

    with Progress(progress_wanted()):
        chunks = report_chunks(inputs, report_format)  # computed here; the text is made as it is written
    if args.out:
        write_report(Path(args.out), "".join(chunks))
    else:
        _print(chunks)
    return 0


def _side_logs(args: argparse.Namespace, side: str) -> tuple[Path, ...]:
    """A side given more than once: the logs of one Inspect run (shards and retries), merged."""
    paths = getattr(args, side)
    if len(paths) == 1:
        return ()
    if getattr(args, f"{side}_format") != "inspect":
        raise EvalsiteError(
            f"--{side} is given {len(paths)} times: only an Inspect side (--{side}-format inspect) may be several logs"
        )
    return tuple(Path(path) for path in paths)


def _records_mappings(args: argparse.Namespace) -> dict[str, Any]:
    """Each records side's mapping: its ``--SIDE-mapping`` file, else ``--records-preset``."""
    from generator.pipelines.records import side_mappings

    return side_mappings(
        {side: getattr(args, f"{side}_format") for side in ("candidate", "baseline")},
        {side: getattr(args, f"{side}_mapping") for side in ("candidate", "baseline")},
        args.records_preset,
    )


def _threshold(value: float) -> float:
    if value != value or value in (float("inf"), float("-inf")):
        raise EvalsiteError("--pass-threshold: must be a finite number")
    return value


def _add_import_options(p: _Parser) -> None:
    """``--pass-threshold``, ``--scorer`` and ``--errors-as-failures``: how imported formats decide pass."""
    p.add_argument(
        "--pass-threshold",
        type=float,
        default=1.0,
        metavar="X",
        help="imported formats: a numeric score or reward passes at or above X (default 1)",
    )
    p.add_argument("--scorer", metavar="NAME", help="Inspect: the scorer that decides pass (default: the log's first)")
    p.add_argument(
        "--metric",
        choices=METRICS,
        default=DEFAULT_METRIC,
        help="what decides: pass@k (pass / fail at the threshold; default) or mean (the task-macro mean score)",
    )
    p.add_argument(
        "--errors-as-failures",
        action="store_true",
        help="imported formats: count errored or limit-stopped runs as failures instead of excluding them",
    )


def _add_leaderboard(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("leaderboard", help="rank many systems on the same tasks (paired, corrected, with tiers)")
    p.add_argument(
        "--system",
        action="append",
        required=True,
        metavar="LABEL=PATH[:TREATMENT]",
        help="one system (repeat: two or more): its label, its input (a Comet experiment folder, a log, a job "
        "folder, ...) and treatment (for an imported format the label when left out)",
    )
    p.add_argument(
        "--input-format",
        choices=_SYSTEM_FORMATS,
        default="comet",
        help="format of every system's input (default comet)",
    )
    p.add_argument(
        "--system-format",
        action="append",
        default=[],
        metavar="LABEL=FORMAT",
        help="format of one system's input (repeat; overrides --input-format)",
    )
    _add_import_options(p)
    p.add_argument("--baseline", metavar="LABEL", help="the label of the system the others are tested against")
    p.add_argument("--tasks", metavar="DIR", help="tasks tree used for fallback case manifests")
    p.add_argument("--k", default="1", metavar="LIST", help="comma-separated k values (default 1)")
    p.add_argument("--alpha", default="0.05", metavar="A", help="significance level in (0, 0.5] (default 0.05)")
    p.add_argument("--correction", choices=("holm", "bh", "none"), default="holm")
    p.add_argument("--format", choices=("markdown", "json"), default="markdown", help="the report's format")
    p.add_argument("--out", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--force", action="store_true", help="let --out replace a file that is not a leaderboard report")
    p.set_defaults(handler=_run_leaderboard)


def _system_spec(text: str, formats: dict[str, str], default: str) -> tuple[str, Path, str, str]:
    """``LABEL=PATH[:TREATMENT]``: a path that exists as written takes no treatment (the label is used,
    for an imported format); otherwise the treatment is what follows the last colon."""
    label, sep, rest = text.partition("=")
    label = label.strip()
    if not sep or not label or not rest:
        raise EvalsiteError(f"--system {text!r}: expected LABEL=PATH[:TREATMENT]")
    fmt = formats.pop(label, default)
    path, colon, treatment = rest.rpartition(":")
    if Path(rest).exists() or not colon:
        path, treatment = rest, ""
    if not path or (colon and not Path(rest).exists() and not treatment.strip()):
        raise EvalsiteError(f"--system {text!r}: expected LABEL=PATH[:TREATMENT]")
    if not treatment.strip():
        if fmt == "comet":
            raise EvalsiteError(f"--system {text!r}: a Comet experiment needs its treatment (LABEL=DIR:TREATMENT)")
        treatment = label
    return label, Path(path), treatment.strip(), fmt


def _system_formats(items: Sequence[str]) -> dict[str, str]:
    formats: dict[str, str] = {}
    for item in items:
        label, sep, fmt = item.rpartition("=")
        if not sep or not label.strip() or fmt not in _SYSTEM_FORMATS:
            raise EvalsiteError(f"--system-format {item!r}: expected LABEL=FORMAT ({', '.join(_SYSTEM_FORMATS)})")
        formats[label.strip()] = fmt
    return formats


def _run_leaderboard(args: argparse.Namespace) -> int:
    """``evalsite leaderboard``: print or write the Markdown or JSON leaderboard."""
    from generator.model.comparison import parse_ks
    from generator.model.formats import ImportOptions
    from generator.model.leaderboard import LeaderboardInputs, SystemSpec, check_alpha, check_correction
    from generator.pipelines.leaderboard import check_report_path, run_leaderboard, write_report

    try:
        ks = parse_ks(args.k)
    except ValueError as error:
        raise EvalsiteError(f"--k: {error}") from None
    try:
        alpha = check_alpha(float(args.alpha))
    except ValueError as error:
        raise EvalsiteError(f"--alpha: {error}") from None
    formats = _system_formats(args.system_format)
    systems = tuple(SystemSpec(*_system_spec(text, formats, args.input_format)) for text in args.system)
    if formats:
        raise EvalsiteError(f"--system-format: no system is labelled {next(iter(formats))!r}")
    inputs = LeaderboardInputs(
        systems=systems,
        baseline=args.baseline,
        tasks_dir=Path(args.tasks) if args.tasks else None,
        ks=ks,
        alpha=alpha,
        correction=check_correction(args.correction),
        import_options=ImportOptions(_threshold(args.pass_threshold), args.scorer or None, args.errors_as_failures),
        metric=check_metric(args.metric),
    )
    report_format: Literal["json", "markdown"] = "json" if args.format == "json" else "markdown"
    if args.out:
        check_report_path(Path(args.out), inputs, report_format, force=bool(args.force))
    text = run_leaderboard(inputs).text(report_format)
    if args.out:
        write_report(Path(args.out), text)
    else:
        _print(text)
    return 0


def _print(text: str | Iterable[str], *, results_already_written: bool = False) -> None:
    from generator.pipelines.console import emit

    emit(text, results_already_written=results_already_written)


def _add_ledger(sub: argparse._SubParsersAction[_Parser]) -> None:
    ledger = sub.add_parser(
        "ledger",
        help="append to, summarize, verify or repair a benchmark ledger",
        description="Append to, summarize, verify or repair a benchmark ledger.",
    )
    commands = ledger.add_subparsers(dest="ledger_command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    p = commands.add_parser("append", help="append one immutable receipt (idempotent)")
    p.add_argument("--campaign", required=True, metavar="FILE")
    p.add_argument("--ledger", required=True, metavar="FILE")
    p.add_argument("--receipt", default="-", metavar="FILE", help="receipt JSON file, or - for stdin (default)")
    p.set_defaults(handler=_run_ledger_append)

    p = commands.add_parser("summarize", help="derive the admission report from the whole ledger")
    p.add_argument("--campaign", required=True, metavar="FILE")
    p.add_argument("--ledger", required=True, metavar="FILE")
    p.add_argument("--out", metavar="FILE", help="also write the summary here (indented JSON, mode 0600)")
    p.add_argument("--json", action="store_true", help="print the canonical summary even with --out")
    p.add_argument("--extended", metavar="FILE", help="write evalsite's extra analyses (a separate JSON object) here")
    p.add_argument(
        "--force", action="store_true", help="replace an existing --out/--extended file that is not a ledger summary"
    )
    p.set_defaults(handler=_run_ledger_summarize)

    p = commands.add_parser("verify", help="check every receipt, digest, duplicate, rerun link and the tail")
    p.add_argument("--campaign", required=True, metavar="FILE")
    p.add_argument("--ledger", required=True, metavar="FILE")
    p.set_defaults(handler=_run_ledger_verify)

    p = commands.add_parser("repair", help="set aside a torn last line (keeps a backup of the ledger)")
    p.add_argument("--ledger", required=True, metavar="FILE")
    p.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    p.set_defaults(handler=_run_ledger_repair)


def _quiet_pipe(run: Callable[[], int]) -> int:
    """A reader that stops reading (``| head``) is no ledger failure."""
    try:
        return run()
    except BrokenPipeError:
        return 0


def _run_ledger_append(args: argparse.Namespace) -> int:
    from generator.pipelines.ledger import run_append

    return _quiet_pipe(lambda: run_append(args.campaign, args.ledger, args.receipt))


def _run_ledger_summarize(args: argparse.Namespace) -> int:
    from generator.pipelines.ledger import run_summarize

    return _quiet_pipe(
        lambda: run_summarize(
            args.campaign, args.ledger, out=args.out, as_json=args.json, extended=args.extended, force=args.force
        )
    )


def _run_ledger_verify(args: argparse.Namespace) -> int:
    from generator.pipelines.ledger import run_verify

    return _quiet_pipe(lambda: run_verify(args.campaign, args.ledger))


def _run_ledger_repair(args: argparse.Namespace) -> int:
    from generator.pipelines.ledger import run_repair

    return _quiet_pipe(lambda: run_repair(args.ledger, dry_run=args.dry_run))


def _add_build(sub: argparse._SubParsersAction[_Parser]) -> None:
    p = sub.add_parser("build", help="build the static site described by site-config.yaml")
    _site_options(p)
    p.add_argument("--full", action="store_true", help="rebuild every entry (default: reuse the previous site's)")
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="ID",
        help="build only this entry (repeat for more) into a part for `evalsite merge`",
    )
    p.set_defaults(handler=_run_build)
    p = sub.add_parser("merge", help="merge parts built with `build --only` into the site")
    p.add_argument("parts", nargs="+", metavar="PART", help="folders written by `evalsite build --only ... --out`")
    _site_options(p)
    p.set_defaults(handler=_run_build)


def _site_options(p: _Parser) -> None:
    p.add_argument("--config", default="site-config.yaml", metavar="FILE")
    p.add_argument("--out", metavar="DIR", help="output folder (default: the config's output)")
    p.add_argument("--history", metavar="PATH", help="build history file to append to (default: the config's history)")
    p.add_argument("--history-key-env", metavar="NAME", help="environment variable holding the history's HMAC key")
    p.add_argument("--history-anchor", metavar="FILE", help="a history-head.json the history must extend")
    p.add_argument(
        "--history-reset", action="store_true", help="accept a history that does not extend the replaced site's head"
    )
    p.add_argument("--summary", metavar="FILE", help="write a Markdown summary (for $GITHUB_STEP_SUMMARY or a PR)")
    p.add_argument(
        "--fail-on",
        action="extend",
        nargs="+",
        default=[],
        choices=("regression", "issues", "verdict-worse"),
        metavar="CONDITION",
        help="exit 1 (after writing the site and the summary) on these conditions: regression, issues, "
        "verdict-worse (one or more, or the option repeated)",
    )


def _add_history(sub: argparse._SubParsersAction[_Parser]) -> None:
    history = sub.add_parser("history", help="check a build history file", description="Check a build history file.")
    commands = history.add_subparsers(dest="history_command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    p = commands.add_parser("verify", help="check the hash chain; name the first edited or missing entry")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--key-env", metavar="NAME", help="environment variable holding the HMAC key: check every MAC")
    p.add_argument("--site", metavar="DIR", help="a built site: the history must extend the head it recorded")
    p.add_argument("--anchor", metavar="FILE", help="a history-head.json the history must extend")
    p.set_defaults(handler=_run_history_verify)


def _run_history_verify(args: argparse.Namespace) -> int:
    from generator.pipelines.history import run_verify

    return _quiet_pipe(lambda: run_verify(args.path, key_env=args.key_env, site=args.site, anchor=args.anchor))


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return path.name


def _run_build(args: argparse.Namespace) -> int:
    """``evalsite build [--config FILE] [--out DIR]`` (and ``merge PART ...``): build, then one line of
    warnings each and a summary."""
    from generator.pipelines.build import build_site, load_config, progress_wanted
    from generator.pipelines.history import HistoryOptions

    config = load_config(args.config)
    if getattr(args, "history", None):
        config = dataclasses.replace(config, history=Path(os.path.abspath(args.history)))  # a link: refused later
    out = Path(args.out).resolve() if getattr(args, "out", None) else config.output
    summary = Path(args.summary) if getattr(args, "summary", None) else None
    fail_on = tuple(getattr(args, "fail_on", None) or ())
    anchor = getattr(args, "history_anchor", None)
    key_env, reset = getattr(args, "history_key_env", None), bool(getattr(args, "history_reset", False))
    options = HistoryOptions(key_env, Path(anchor) if anchor else None, reset)
    only, parts = tuple(getattr(args, "only", None) or ()), tuple(Path(p) for p in getattr(args, "parts", None) or ())
    if only and (summary is not None or fail_on):
        raise EvalsiteError("a part (--only) records no history: give --summary and --fail-on to `evalsite merge`")
    report = build_site(
        config,
        out,
        progress=progress_wanted(),
        summary=summary,
        fail_on=fail_on,
        history_options=options,
        incremental=True,
        full=bool(getattr(args, "full", False)),
        only=only,
        parts=parts,
    )
    for warning in (*report.warnings, *report.limits):
        _say("warning", warning, config.redactor)
    if summary is not None and not config.base_url:
        print(
            "warning: the summary's links are relative to the site (no base_url in the site config): "
            "they break in a pull-request comment; set base_url to the published site's address",
            file=sys.stderr,
        )
    if report.redacted:
        kinds = ", ".join(f"{count} {kind}" for kind, count in report.redacted.items())
        print(f"redacted {sum(report.redacted.values())} value(s): {kinds}", file=sys.stderr)
    elif not report.redaction:
        print("redaction is off (redact: false in the site config)", file=sys.stderr)
    problems = len(report.warnings)
    _print(
        f"built {report.pages:,} pages ({report.files:,} files, {report.total_bytes / 1e6:.1f} MB) "
        f"into {_display(report.out_dir)} in {report.seconds:.1f}s"
        + (f"; {problems} entr{'y' if problems == 1 else 'ies'} with data problems" if problems else "")
        + (f"; {len(report.reused)} unchanged entry(ies) reused" if report.reused else "")
        + (
            f"; {report.transcripts_left_out:,} run page(s) left out by transcripts: {config.transcript_policy}"
            if report.transcripts_left_out
            else ""
        )
        + "\n",
        results_already_written=True,
    )
    for reason in report.gate:
        _say("fail", reason, config.redactor)
    return 1 if report.gate else 0


def _say(prefix: str, text: object, redactor: Redactor | None = None) -> None:
    """A stderr line that may carry untrusted text: redacted, cut and made visible (issue 26)."""
    from generator.pipelines.stderr_lines import say

    say(prefix, text, redactor)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="evalsite",
        description="Turn agent-evaluation evidence into verified reports and a static site.",
    )
    parser.add_argument("--version", action="version", version=f"evalsite {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _add_compare(sub)
    _add_leaderboard(sub)
    _add_ledger(sub)
    _add_build(sub)
    _add_history(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as stop:  # --help and --version printed their text
            return stop.code if isinstance(stop.code, int) else 0
        if not getattr(args, "handler", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.handler(args) or 0)
    except EvalsiteError as error:
        _say("error", error)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # never a traceback for the user
        if os.environ.get("EVALSITE_DEBUG"):
            raise
        message = " ".join(str(error).split()) or type(error).__name__
        _say("error", f"unexpected {type(error).__name__}: {message}")
        return 2


def run() -> NoReturn:
    """The ``evalsite`` command: :func:`main`, then exit without tearing the interpreter down.

    A comparison or build holds hundreds of thousands of small objects at the end; freeing them one
    by one at exit took 0.3 to 0.5 s of a 10 s compare (issue 16).  Every pool and output file is
    closed when :func:`main` returns, so only the standard streams are left to flush.
    """
    code = main()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):  # main's own writes said what failed
                stream.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
