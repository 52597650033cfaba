"""``site-config.yaml``: load and validate before anything is read or written.

Every problem raises :class:`EvalsiteError` with one line that names the entry
and the problem, using the path as written in the config (never the resolved
absolute path).  Paths are relative to the folder of the config file.

Schema (unknown keys are errors)::

    title: str                      # required
    description: str                # optional
    output: DIR                     # optional, default "_site"
    noindex: bool                   # optional, default false: robots meta + robots.txt
    strict: bool                    # optional, default false: an entry with bad data fails the build
    redact: bool | {patterns: [{kind: str, regex: str}]}   # optional, default on (docs/transcripts.md)
    transcripts: bool | all | failures | differing | sample | none   # optional, default true (= all): run pages
    run_pages: auto | run | task   # optional, default auto: a page per run, or a task's runs grouped
    theme_dir: DIR                  # optional: your templates and assets first (docs/site.md, "Themes")
    comparisons:                    # optional list
      - id: slug                    # a-z 0-9 -, 1-64 chars, unique across the whole config
        title: str
        candidate: {experiment: DIR, treatment: str, format: FORMAT}   # format optional, default comet;
                                    # inspect: experiment may be a list of log files (one run's shards)
        baseline:  {experiment: DIR, treatment: str, format: FORMAT}   # FORMAT: comet|inspect|harbor|swebench|auto
                                    # or records, with fields: {field: path}, preset: lm-eval|promptfoo, metric
        tasks: DIR                  # optional
        eval_root: DIR              # optional
        ks: [int >= 1, ...]         # optional, default [1, 2, 3]
        rebase_artifacts: bool      # optional, default false
        pass_threshold: number      # optional, default 1: imported numeric scores/rewards pass at or above it
        scorer: str                 # optional: the Inspect scorer that decides pass (default: the log's first)
        errors_as_failures: bool    # optional, default false: errored/limit-stopped imported runs fail
        metric: pass@k | mean       # optional, default pass@k: mean = task-macro mean score decides (issue 29)
    ledgers:                        # optional list
      - id: slug
        title: str
        campaign: FILE
        ledger: FILE
    leaderboards:                   # optional list (docs/leaderboard.md)
      - id: slug
        title: str
        systems:                    # two or more, labels unique
          - {label: str, experiment: DIR, treatment: str, format: comet}   # format optional
        baseline: str               # optional: the label of one system
        tasks: DIR                  # optional
        ks: [int >= 1, ...]         # optional, default [1]
        alpha: float                # optional, default 0.05, in (0, 0.5]
        correction: holm            # optional: holm (default), bh or none
        pass_threshold, scorer, errors_as_failures, metric   # optional, as for comparisons
    reports:                        # optional list: one system's evidence on a page of its own (docs/site.md)
      - id: slug
        title: str
        experiment: DIR, treatment: str, format: FORMAT   # as a comparison side (fields/preset/metric too)
        tasks: DIR                  # optional
        ks: [int >= 1, ...]         # optional, default 1 .. the most repetitions a task has (at most 10)
        pass_threshold, scorer, errors_as_failures   # optional, as for comparisons
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.model.common import DEFAULT_KS
from generator.model.errors import EvalsiteError
from generator.model.formats import ImportOptions
from generator.model.leaderboard import (
    DEFAULT_ALPHA,
    SYSTEM_FORMATS,
    Correction,
    LeaderboardInputs,
    SystemSpec,
    check_alpha,
    check_correction,
)
from generator.model.records import RecordsMapping
from generator.model.redaction import RedactionRule, Redactor, check_rule, rule_ids
from generator.model.scores import DEFAULT_METRIC, ScoreMetric
from generator.model.transcript import RUN_PAGE_MODES, TRANSCRIPT_POLICIES
from generator.read.config_checks import (
    _bool,
    _choice,
    _entry_id,
    _fail,
    _keys,
    _ks,
    _list,
    _metric,
    _path,
    _text,
    _threshold,
)
from generator.read.inspect.log import MAX_LOGS
from generator.read.records.mapping import parse_mapping
from generator.read.safe_io import Refusal, read_named_file

__all__ = [
    "ComparisonConfig",
    "DEFAULT_KS",
    "LeaderboardConfig",
    "LeaderboardSystemConfig",
    "LedgerConfig",
    "ReportConfig",
    "SideConfig",
    "SiteConfig",
    "load_config",
    "parse_config",
]

MAX_CONFIG_BYTES = 1_000_000

_TOP_KEYS = {"title", "description", "output", "noindex", "strict", "comparisons", "ledgers", "leaderboards"}
_TOP_KEYS |= {"history", "base_url"}  # build history and absolute summary links (docs/history.md)
_TOP_KEYS |= {"theme_dir"}  # the user's templates and assets first on the loader path
_TOP_KEYS |= {"redact", "transcripts", "run_pages"}  # secret redaction and run pages (docs/transcripts.md)
_COMPARISON_KEYS = {"id", "title", "candidate", "baseline", "tasks", "eval_root", "ks", "rebase_artifacts"}
_COMPARISON_KEYS |= {"pass_threshold", "scorer", "errors_as_failures", "metric"}  # docs/importers.md
_SIDE_KEYS = {"experiment", "treatment"}
_SIDE_OPTIONAL = {"format", "fields", "preset", "metric"}  # the last three: format records only
_SIDE_FORMATS = ("comet", "inspect", "harbor", "swebench", "records", "auto")
_LEDGER_KEYS = {"id", "title", "campaign", "ledger"}
_LEADERBOARD_KEYS = {"id", "title", "systems", "baseline", "tasks", "ks", "alpha", "correction"}
_LEADERBOARD_KEYS |= {"pass_threshold", "scorer", "errors_as_failures", "metric"}  # as for comparisons
_SYSTEM_KEYS = {"label", "experiment", "treatment", "format"}
_REPORT_KEYS = {"id", "title", "tasks", "ks", "pass_threshold", "scorer", "errors_as_failures"}
_TOP_KEYS |= {"reports"}  # single-system reports (pipelines/report.py)


@dataclass(frozen=True, slots=True)
class SideConfig:
    experiment: Path
    treatment: str
    experiment_text: str  # as written in the config, for messages
    format: str = "comet"  # comet | inspect | harbor | swebench | records | auto; non-comet inputs may be files
    records: RecordsMapping | None = None  # format records: the side's fields/preset/metric
    logs: tuple[Path, ...] = ()  # format inspect, experiment a list: every log (experiment is the first)

    @property
    def paths(self) -> tuple[Path, ...]:
        """Every input path of the side: its list of logs, else its one experiment."""
        return self.logs or (self.experiment,)


@dataclass(frozen=True, slots=True)
class ComparisonConfig:
    id: str
    title: str
    candidate: SideConfig
    baseline: SideConfig
    tasks: Path | None
    eval_root: Path | None
    ks: tuple[int, ...]
    rebase_artifacts: bool
    pass_threshold: float = 1.0
    scorer: str | None = None
    errors_as_failures: bool = False
    metric: ScoreMetric = DEFAULT_METRIC

    def side(self, side: str) -> SideConfig:
        return self.candidate if side == "candidate" else self.baseline

    def import_options(self) -> ImportOptions:
        """How the importers read both sides (docs/importers.md)."""
        return ImportOptions(
            self.pass_threshold,
            self.scorer,
            self.errors_as_failures,
            candidate_records=self.candidate.records,
            baseline_records=self.baseline.records,
            candidate_logs=self.candidate.logs,
            baseline_logs=self.baseline.logs,
        )


@dataclass(frozen=True, slots=True)
class LedgerConfig:
    id: str
    title: str
    campaign: Path
    ledger: Path


@dataclass(frozen=True, slots=True)
class LeaderboardSystemConfig:
    label: str
    experiment: Path
    treatment: str
    format: str  # input format of the experiment; "comet" for now
    experiment_text: str


@dataclass(frozen=True, slots=True)
class LeaderboardConfig:
    id: str
    title: str
    systems: tuple[LeaderboardSystemConfig, ...]
    baseline: str | None
    tasks: Path | None
    ks: tuple[int, ...]
    alpha: float
    correction: Correction
    pass_threshold: float = 1.0
    scorer: str | None = None
    errors_as_failures: bool = False
    metric: ScoreMetric = DEFAULT_METRIC

    def inputs(self) -> LeaderboardInputs:
        """What the leaderboard pipeline ranks (docs/leaderboard.md)."""
        return LeaderboardInputs(
            systems=tuple(SystemSpec(s.label, s.experiment, s.treatment, s.format) for s in self.systems),
            baseline=self.baseline,
            tasks_dir=self.tasks,
            ks=self.ks,
            alpha=self.alpha,
            correction=self.correction,
            import_options=ImportOptions(self.pass_threshold, self.scorer, self.errors_as_failures),
            metric=self.metric,
        )


@dataclass(frozen=True, slots=True)
class ReportConfig:
    """One system's evidence on a page of its own (``reports:``), read as a comparison side is."""

    id: str
    title: str
    system: SideConfig
    tasks: Path | None
    ks: tuple[int, ...] | None  # None: 1 .. the most repetitions a task has (at most DEFAULT_REPORT_K)
    pass_threshold: float = 1.0
    scorer: str | None = None
    errors_as_failures: bool = False

    def import_options(self) -> ImportOptions:
        """How the importers read the system: a comparison's candidate side with the report's options."""
        system = self.system
        options = (self.pass_threshold, self.scorer, self.errors_as_failures)
        return ImportOptions(*options, candidate_records=system.records, candidate_logs=system.logs)


@dataclass(frozen=True, slots=True)
class SiteConfig:
    title: str
    description: str
    output: Path
    noindex: bool
    strict: bool
    comparisons: tuple[ComparisonConfig, ...]
    ledgers: tuple[LedgerConfig, ...]
    base_dir: Path  # folder of the config file; every relative path starts here
    leaderboards: tuple[LeaderboardConfig, ...] = ()
    history: Path | None = None  # the build history file (docs/history.md); may not exist yet
    base_url: str | None = None  # where the site is published: absolute links in the build summary
    redactor: Redactor = Redactor()  # secret redaction of every published byte (``redact:``)
    transcripts: bool = True  # run and pair pages from raw stdout transcripts (``transcripts:``)
    transcript_policy: str = "all"  # which runs get one: all | failures | differing | sample | none
    run_pages: str = "auto"  # a page per run (run), a task's runs grouped (task), or auto by count
    theme_dir: Path | None = None  # templates and assets laid over evalsite's (``theme_dir:``)
    reports: tuple[ReportConfig, ...] = ()  # single-system report pages (``reports:``)

    def input_paths(self) -> tuple[Path, ...]:
        paths: list[Path] = []
        for c in self.comparisons:
            paths += [*c.candidate.paths, *c.baseline.paths]
            paths += [p for p in (c.tasks, c.eval_root) if p is not None]
        for ledger in self.ledgers:
            paths += [ledger.campaign, ledger.ledger]
        for board in self.leaderboards:
            paths += [system.experiment for system in board.systems]
            paths += [board.tasks] if board.tasks is not None else []
        for report in self.reports:
            paths += [*report.system.paths, *([report.tasks] if report.tasks is not None else [])]
        paths += [self.history] if self.history is not None else []
        paths += [self.theme_dir] if self.theme_dir is not None else []
        return tuple(paths)


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses duplicate mapping keys instead of keeping the last."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    result: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, str | int | float | bool | None):
            raise EvalsiteError(
                f"site config: a mapping key must be plain text, not a {type(key).__name__} "
                f"(line {key_node.start_mark.line + 1})"
            )
        if key in result:
            raise EvalsiteError(f"site config: duplicate key {key!r} (line {key_node.start_mark.line + 1})")
        result[key] = loader.construct_object(value_node, deep=deep)
    return result


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _transcripts(value: Any) -> dict[str, Any]:
    """``transcripts:`` true (all), false (none) or a policy word (``docs/transcripts.md``)."""
    if isinstance(value, bool):
        return {"transcripts": value, "transcript_policy": "all" if value else "none"}
    if value not in TRANSCRIPT_POLICIES:
        raise _fail("transcripts", f"must be true, false or one of: {', '.join(TRANSCRIPT_POLICIES)}")
    return {"transcripts": value != "none", "transcript_policy": value}


def _side(value: Any, base: Path, where: str) -> SideConfig:
    data = _keys(value, _SIDE_KEYS | _SIDE_OPTIONAL, _SIDE_KEYS, where)
    fmt = data.get("format", "comet")
    if fmt not in _SIDE_FORMATS:
        raise _fail(f"{where}.format", f"{fmt!r} is not one of {', '.join(_SIDE_FORMATS)}")
    experiment, logs = _experiment(data["experiment"], base, f"{where}.experiment", fmt)
    mapping = {key: data[key] for key in ("fields", "preset", "metric") if key in data}
    if mapping and fmt != "records":
        raise _fail(where, f"{', '.join(mapping)}: only for format records")
    try:
        records = parse_mapping(mapping, where) if fmt == "records" else None
    except ValueError as error:
        raise EvalsiteError(f"site config: {error}") from None
    treatment = _text(data["treatment"], f"{where}.treatment")
    text = data["experiment"] if not logs else ", ".join(str(item) for item in data["experiment"])
    return SideConfig(experiment, treatment, str(text), fmt, records, logs)


def _experiment(value: Any, base: Path, where: str, fmt: str) -> tuple[Path, tuple[Path, ...]]:
    """A side's one input, or (format inspect) a list of log files: the first, and all of them."""
    if not isinstance(value, list):
        return _path(value, base, where, kind="experiment" if fmt == "comet" else "any"), ()
    if fmt != "inspect":
        raise _fail(where, "a list of files is only for format inspect (the shards and retries of one run)")
    if not value or len(value) > MAX_LOGS:
        raise _fail(where, f"must list 1 to {MAX_LOGS:,} Inspect log files")
    logs = tuple(_path(item, base, f"{where}[{i}]", kind="file") for i, item in enumerate(value))
    return logs[0], logs


def _comparison(value: Any, index: int, base: Path, seen: dict[str, str]) -> ComparisonConfig:
    where = f"comparisons[{index}]"
    data = _keys(value, _COMPARISON_KEYS, {"id", "title", "candidate", "baseline"}, where)
    entry_id = _entry_id(data["id"], where, seen)
    where = f"comparison {entry_id!r}"
    return ComparisonConfig(
        id=entry_id,
        title=_text(data["title"], f"{where} title"),
        candidate=_side(data["candidate"], base, f"{where} candidate"),
        baseline=_side(data["baseline"], base, f"{where} baseline"),
        tasks=_path(data["tasks"], base, f"{where} tasks", kind="dir") if data.get("tasks") is not None else None,
        eval_root=(
            _path(data["eval_root"], base, f"{where} eval_root", kind="dir")
            if data.get("eval_root") is not None
            else None
        ),
        ks=_ks(data["ks"], f"{where} ks") if "ks" in data else DEFAULT_KS,
        rebase_artifacts=_bool(data.get("rebase_artifacts", False), f"{where} rebase_artifacts"),
        metric=_metric(data.get("metric", DEFAULT_METRIC), f"{where} metric"),
        **_import_options(data, where),
    )


def _ledger(value: Any, index: int, base: Path, seen: dict[str, str]) -> LedgerConfig:
    where = f"ledgers[{index}]"
    data = _keys(value, _LEDGER_KEYS, _LEDGER_KEYS, where)
    entry_id = _entry_id(data["id"], where, seen)
    where = f"ledger {entry_id!r}"
    return LedgerConfig(
        id=entry_id,
        title=_text(data["title"], f"{where} title"),
        campaign=_path(data["campaign"], base, f"{where} campaign", kind="file"),
        ledger=_path(data["ledger"], base, f"{where} ledger", kind="file"),
    )


def _leaderboard_system(value: Any, base: Path, where: str) -> LeaderboardSystemConfig:
    data = _keys(value, _SYSTEM_KEYS, {"label", "experiment", "treatment"}, where)
    label = _text(data["label"], f"{where}.label", max_len=200)
    fmt = data.get("format", "comet")
    if fmt not in SYSTEM_FORMATS:
        raise _fail(f"{where}.format", f"unknown format {fmt!r} (allowed: {', '.join(SYSTEM_FORMATS)})")
    return LeaderboardSystemConfig(
        label,
        _path(data["experiment"], base, f"{where}.experiment", kind="experiment" if fmt == "comet" else "any"),
        _text(data["treatment"], f"{where}.treatment"),
        str(fmt),
        str(data["experiment"]),
    )


def _leaderboard(value: Any, index: int, base: Path, seen: dict[str, str]) -> LeaderboardConfig:
    where = f"leaderboards[{index}]"
    data = _keys(value, _LEADERBOARD_KEYS, {"id", "title", "systems"}, where)
    entry_id = _entry_id(data["id"], where, seen)
    where = f"leaderboard {entry_id!r}"
    items = data["systems"]
    if not isinstance(items, list) or len(items) < 2:
        raise _fail(f"{where} systems", "must be a list of two or more systems")
    systems: list[LeaderboardSystemConfig] = []
    for i, item in enumerate(items):
        system = _leaderboard_system(item, base, f"{where} systems[{i}]")
        if any(other.label == system.label for other in systems):
            raise _fail(f"{where} systems[{i}]", f"duplicate label {system.label!r}")
        systems.append(system)
    baseline = data.get("baseline")
    if baseline is not None:
        baseline = _text(baseline, f"{where} baseline", max_len=200)
        if baseline not in {s.label for s in systems}:
            raise _fail(f"{where} baseline", f"{baseline!r} is not the label of one of its systems")
    try:
        alpha = check_alpha(data.get("alpha", DEFAULT_ALPHA))
        correction = check_correction(data.get("correction", "holm"))
    except ValueError as error:
        raise _fail(where, str(error)) from None
    return LeaderboardConfig(
        id=entry_id,
        title=_text(data["title"], f"{where} title"),
        systems=tuple(systems),
        baseline=baseline,
        tasks=_path(data["tasks"], base, f"{where} tasks", kind="dir") if data.get("tasks") is not None else None,
        ks=_ks(data["ks"], f"{where} ks") if "ks" in data else (1,),
        alpha=alpha,
        correction=correction,
        metric=_metric(data.get("metric", DEFAULT_METRIC), f"{where} metric"),  # mean: ranks by the mean score
        **_import_options(data, where),
    )


def _report(value: Any, index: int, base: Path, seen: dict[str, str]) -> ReportConfig:
    where = f"reports[{index}]"
    data = _keys(value, _REPORT_KEYS | _SIDE_KEYS | _SIDE_OPTIONAL, {"id", "title"} | _SIDE_KEYS, where)
    entry_id = _entry_id(data["id"], where, seen)
    where = f"report {entry_id!r}"
    side = {key: data[key] for key in _SIDE_KEYS | _SIDE_OPTIONAL if key in data}
    return ReportConfig(
        id=entry_id,
        title=_text(data["title"], f"{where} title"),
        system=_side(side, base, where),
        tasks=_path(data["tasks"], base, f"{where} tasks", kind="dir") if data.get("tasks") is not None else None,
        ks=_ks(data["ks"], f"{where} ks") if "ks" in data else None,
        **_import_options(data, where),
    )


def _import_options(data: dict[str, Any], where: str) -> dict[str, Any]:
    """``pass_threshold``, ``scorer`` and ``errors_as_failures`` of a comparison, leaderboard or report entry."""
    return {
        "pass_threshold": _threshold(data.get("pass_threshold", 1.0), f"{where} pass_threshold"),
        "scorer": _text(data["scorer"], f"{where} scorer") if data.get("scorer") is not None else None,
        "errors_as_failures": _bool(data.get("errors_as_failures", False), f"{where} errors_as_failures"),
    }


def _history_path(value: Any, base: Path) -> Path | None:
    if value is None:
        return None
    text = _text(value, "history", max_len=4096)
    named = base / text if not Path(text).is_absolute() else Path(text)
    path = named.parent.resolve() / named.name  # a link as the file itself is refused when the build opens it
    if not path.parent.is_dir():
        raise _fail("history", f"the folder of {text!r} does not exist")
    if path.is_dir():
        raise _fail("history", f"{text!r} is a folder, not a file")
    return path


def _base_url(value: Any) -> str | None:
    if value is None:
        return None
    text = _text(value, "base_url", max_len=2000)
    if not text.startswith(("https://", "http://")) or any(c in text for c in " <>\"'`"):
        raise _fail("base_url", f"{text!r} is not an http(s) URL")
    return text.rstrip("/") + "/"


def _redactor(value: Any) -> Redactor:
    """``redact:`` true (the default), false (written out to turn it off), or a mapping of ``patterns``
    (extra rules), ``disable`` (rule ids switched off) and ``allow`` (regexes a whole secret may match)."""
    if value is None or value is True:
        return Redactor()
    if value is False:
        return Redactor(enabled=False)
    data = _keys(value, {"patterns", "disable", "allow"}, set(), "redact")
    rules: list[RedactionRule] = []
    for index, item in enumerate(_list(data.get("patterns"), "redact patterns")):
        where = f"redact patterns[{index}]"
        pattern = _keys(item, {"kind", "regex"}, {"kind", "regex"}, where)
        try:
            rules.append(check_rule(pattern["kind"], pattern["regex"]))
        except ValueError as error:
            raise _fail(where, str(error)) from None
    known = rule_ids()
    disable = tuple(
        _text(item, f"redact disable[{i}]", max_len=100)
        for i, item in enumerate(_list(data.get("disable"), "redact disable"))
    )
    for index, rule_id in enumerate(disable):
        if rule_id not in known:
            raise _fail(f"redact disable[{index}]", f"unknown rule id {rule_id!r}")
    allow = tuple(
        _text(item, f"redact allow[{i}]", max_len=2000)
        for i, item in enumerate(_list(data.get("allow"), "redact allow"))
    )
    if len(disable) > 500 or len(allow) > 500:
        raise _fail("redact", "disable and allow hold at most 500 entries each")
    for index, regex in enumerate(allow):
        try:
            re.compile(regex)
        except re.error as error:
            raise _fail(f"redact allow[{index}]", f"invalid regex ({error})") from None
    return Redactor(extra=tuple(rules), disable=disable, allow=allow)


def parse_config(data: Any, base_dir: Path) -> SiteConfig:
    """Validate an already-parsed config mapping; *base_dir* anchors relative paths."""
    base = base_dir.resolve()
    top = _keys(data, _TOP_KEYS, {"title"}, "top level")
    seen: dict[str, str] = {}
    comparisons = tuple(
        _comparison(item, i, base, seen) for i, item in enumerate(_list(top.get("comparisons"), "comparisons"))
    )
    ledgers = tuple(_ledger(item, i, base, seen) for i, item in enumerate(_list(top.get("ledgers"), "ledgers")))
    leaderboards = tuple(
        _leaderboard(item, i, base, seen) for i, item in enumerate(_list(top.get("leaderboards"), "leaderboards"))
    )
    reports = tuple(_report(item, i, base, seen) for i, item in enumerate(_list(top.get("reports"), "reports")))
    output_text = _text(top.get("output", "_site"), "output", max_len=4096)
    output = (base / output_text).resolve() if not Path(output_text).is_absolute() else Path(output_text).resolve()
    description = top.get("description", "")
    return SiteConfig(
        title=_text(top["title"], "title"),
        description=_text(description, "description", max_len=2000) if description else "",
        output=output,
        noindex=_bool(top.get("noindex", False), "noindex"),
        strict=_bool(top.get("strict", False), "strict"),
        comparisons=comparisons,
        ledgers=ledgers,
        base_dir=base,
        leaderboards=leaderboards,
        history=_history_path(top.get("history"), base),
        base_url=_base_url(top.get("base_url")),
        redactor=_redactor(top.get("redact")),
        **_transcripts(top.get("transcripts", True)),
        run_pages=_choice(top.get("run_pages", "auto"), "run_pages", RUN_PAGE_MODES),
        theme_dir=None if top.get("theme_dir") is None else _path(top["theme_dir"], base, "theme_dir", kind="dir"),
        reports=reports,
    )


def load_config(path: str | Path) -> SiteConfig:
    """Read and validate ``site-config.yaml``; raises :class:`EvalsiteError`."""
    path = Path(path)
    raw = read_named_file(path, max_bytes=MAX_CONFIG_BYTES)
    if isinstance(raw, Refusal):
        if raw.reason == "missing":
            raise EvalsiteError(f"site config {path.name!r} not found")
        if raw.reason == "exceeds the size limit":
            raise EvalsiteError(f"site config {path.name!r} is larger than {MAX_CONFIG_BYTES:,} bytes")
        raise EvalsiteError(f"site config {path.name!r} could not be read (it {raw.reason})")
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except UnicodeDecodeError:
        raise EvalsiteError(f"site config {path.name!r} is not UTF-8 text") from None
    except RecursionError:
        raise EvalsiteError(f"site config {path.name!r}: nested too deeply") from None
    except ValueError as error:  # e.g. an integer of thousands of digits
        problem = "a number is too long" if "digits" in str(error) else "a value cannot be read"
        raise EvalsiteError(f"site config {path.name!r}: {problem}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or "invalid YAML"
        raise EvalsiteError(f"site config {path.name!r}: {problem}{where}") from None
    return parse_config(data, path.resolve().parent)
