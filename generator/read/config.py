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
    comparisons:                    # optional list
      - id: slug                    # a-z 0-9 -, 1-64 chars, unique across the whole config
        title: str
        candidate: {experiment: DIR, treatment: str}
        baseline:  {experiment: DIR, treatment: str}
        tasks: DIR                  # optional
        eval_root: DIR              # optional
        ks: [int >= 1, ...]         # optional, default [1, 2, 3]
        rebase_artifacts: bool      # optional, default false
    ledgers:                        # optional list
      - id: slug
        title: str
        campaign: FILE
        ledger: FILE
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.model.common import DEFAULT_KS, is_slug
from generator.model.errors import EvalsiteError

__all__ = [
    "ComparisonConfig",
    "DEFAULT_KS",
    "LedgerConfig",
    "SideConfig",
    "SiteConfig",
    "load_config",
    "parse_config",
]

MAX_K = 10_000
MAX_CONFIG_BYTES = 1_000_000

_TOP_KEYS = {"title", "description", "output", "noindex", "strict", "comparisons", "ledgers"}
_COMPARISON_KEYS = {"id", "title", "candidate", "baseline", "tasks", "eval_root", "ks", "rebase_artifacts"}
_SIDE_KEYS = {"experiment", "treatment"}
_LEDGER_KEYS = {"id", "title", "campaign", "ledger"}


@dataclass(frozen=True, slots=True)
class SideConfig:
    experiment: Path
    treatment: str
    experiment_text: str  # as written in the config, for messages


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


@dataclass(frozen=True, slots=True)
class LedgerConfig:
    id: str
    title: str
    campaign: Path
    ledger: Path


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

    def input_paths(self) -> tuple[Path, ...]:
        paths: list[Path] = []
        for c in self.comparisons:
            paths += [c.candidate.experiment, c.baseline.experiment]
            paths += [p for p in (c.tasks, c.eval_root) if p is not None]
        for ledger in self.ledgers:
            paths += [ledger.campaign, ledger.ledger]
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


def _fail(where: str, problem: str) -> EvalsiteError:
    return EvalsiteError(f"site config: {where}: {problem}")


def _keys(value: Any, allowed: set[str], required: set[str], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, "must be a mapping")
    unknown = sorted(str(k) for k in value if k not in allowed)
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(allowed))})")
    missing = sorted(k for k in required if k not in value)
    if missing:
        raise _fail(where, f"missing key(s) {', '.join(missing)}")
    return value


def _text(value: Any, where: str, *, max_len: int = 500) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, "must be a non-empty string")
    if "\x00" in value:
        raise _fail(where, "must not contain a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _fail(where, "must be valid Unicode text (it holds a lone surrogate)") from None
    if len(value) > max_len or "\n" in value.strip():
        raise _fail(where, f"must be one line of at most {max_len} characters")
    return value.strip()


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, "must be true or false")
    return value


def _path(value: Any, base: Path, where: str, *, kind: str) -> Path:
    text = _text(value, where, max_len=4096)
    path = (base / text).resolve() if not Path(text).is_absolute() else Path(text).resolve()
    if kind == "dir" and not path.is_dir():
        raise _fail(where, f"{text!r} is not an existing folder")
    if kind == "file" and not path.is_file():
        raise _fail(where, f"{text!r} is not an existing file")
    return path


def _ks(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise _fail(where, "must be a non-empty list of integers >= 1")
    for k in value:
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise _fail(where, f"bad k {k!r}: every k must be an integer from 1 to {MAX_K}")
    return tuple(sorted(set(value)))


def _side(value: Any, base: Path, where: str) -> SideConfig:
    data = _keys(value, _SIDE_KEYS, _SIDE_KEYS, where)
    experiment = _path(data["experiment"], base, f"{where}.experiment", kind="dir")
    return SideConfig(experiment, _text(data["treatment"], f"{where}.treatment"), str(data["experiment"]))


def _entry_id(value: Any, where: str, seen: dict[str, str]) -> str:
    if not is_slug(value) or not isinstance(value, str):
        raise _fail(where, f"id {value!r} is not a slug (lower-case a-z, 0-9 and '-', 1-64 characters)")
    if value in seen:
        raise _fail(where, f"duplicate id {value!r} (already used by {seen[value]})")
    seen[value] = where
    return value


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


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _fail(where, "must be a list")
    return value


def parse_config(data: Any, base_dir: Path) -> SiteConfig:
    """Validate an already-parsed config mapping; *base_dir* anchors relative paths."""
    base = base_dir.resolve()
    top = _keys(data, _TOP_KEYS, {"title"}, "top level")
    seen: dict[str, str] = {}
    comparisons = tuple(
        _comparison(item, i, base, seen) for i, item in enumerate(_list(top.get("comparisons"), "comparisons"))
    )
    ledgers = tuple(_ledger(item, i, base, seen) for i, item in enumerate(_list(top.get("ledgers"), "ledgers")))
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
    )


def load_config(path: str | Path) -> SiteConfig:
    """Read and validate ``site-config.yaml``; raises :class:`EvalsiteError`."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise EvalsiteError(f"site config {path.name!r} not found") from None
    except OSError as error:
        raise EvalsiteError(f"site config {path.name!r} could not be read ({error.strerror})") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise EvalsiteError(f"site config {path.name!r} is larger than {MAX_CONFIG_BYTES:,} bytes")
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
