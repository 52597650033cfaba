"""Incremental rebuilds and split builds: which entries a build computes, and which it copies.

Every entry (a comparison, ledger, leaderboard or single-system report) writes its files below
its own folder (``comparisons/<id>/``, ...).  Its *key* is the SHA-256 of

- the site's settings: evalsite's version, a digest of its code and of the templates and assets
  the build renders with (a theme included), the page header every page shows (title,
  description, build time from ``SOURCE_DATE_EPOCH``, redaction note) and every config setting
  outside the entry lists (redaction rules, transcripts policy, history on or off, ...);
- the entry's own config, its paths relative to the config's folder;
- the digest of each of its inputs (a folder's tree digest, a file's own: read/digests.py);
- the same of every entry whose facts its pages show: a leaderboard and the comparisons that read
  the same evidence (related links, family sentences, verdicts) form one *group*, computed or
  reused together.

The build records the keys in ``.evalsite-build`` (listed by the site manifest), with what the
index and the history need of each entry: its headline, its "Built from" rows, its history
record, its warnings.  The next build reuses an entry whose key is unchanged and whose files all
match the manifest: they are copied, not recomputed.  The index, the shared assets, the glossary,
the trend pages, the history head, this file and the manifest are always rebuilt, so the site is
byte for byte a full build's.  An entry whose recorded facts a redaction rule would change is
never recorded (it is rebuilt each time), so the file holds no secret; it holds no local path.

A *part* (``build --only``) computes the groups of the entries named and writes only those
entries' files; ``merge`` takes parts as a rebuild takes a previous site, and computes nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from generator.model.errors import EvalsiteError
from generator.model.jsonfmt import json_text
from generator.model.redaction import Redactor
from generator.model.typedjson import from_plain, to_plain
from generator.model.version import __version__
from generator.pages.models import Headline, InputDigest, PageBundle, SiteInfo
from generator.pages.names import Phrase, phrase
from generator.pipelines.history import Record
from generator.read.config import ComparisonConfig, LeaderboardConfig, LedgerConfig, ReportConfig, SiteConfig
from generator.read.digests import file_digest, tree_digest_of
from generator.write.site import SiteWriter, VerifiedSite, Vouched, verified_site

__all__ = ["BUILD_FILE", "EntrySummary", "Plan", "entry_folder", "gather_entry", "index_rows", "plan_build"]

BUILD_FILE = ".evalsite-build"
_SCHEMA = "evalsite.build-keys.v1"
_MAX_BUILD_FILE = 256 * 1024 * 1024
_FOLDERS = {"comparison": "comparisons", "ledger": "ledgers", "leaderboard": "leaderboards", "report": "reports"}

Entry = ComparisonConfig | LedgerConfig | LeaderboardConfig | ReportConfig
EntryId = tuple[str, str]  # (kind, id)


def entry_folder(kind: str, entry_id: str) -> str:
    """The folder below which an entry writes every file of its own (pages/urls.py)."""
    return f"{_FOLDERS[kind]}/{entry_id}/"


def _entries(config: SiteConfig) -> list[tuple[str, Entry]]:
    """Every entry in the order the build gathers them."""
    return [
        *(("comparison", e) for e in config.comparisons),
        *(("ledger", e) for e in config.ledgers),
        *(("leaderboard", e) for e in config.leaderboards),
        *(("report", e) for e in config.reports),
    ]


@dataclass(frozen=True)
class EntrySummary:
    """What the index, the history and the build report need of one entry."""

    headline: Headline
    inputs: tuple[InputDigest, ...]  # its rows in the index's "Built from"
    records: tuple[Record, ...]
    warnings: tuple[str, ...]
    left_out: int  # run pages the transcripts policy left out


@dataclass(frozen=True)
class _Cached:
    """An entry found in a previous site or a part, its files verified against that folder's manifest."""

    source: Path
    key: str
    summary: EntrySummary
    plain: Any  # the summary as recorded (written back unchanged)
    files: dict[str, str]  # path -> SHA-256 hex
    vouched: Vouched


# --------------------------------------------------------------------------- keys


def _canon(value: object, base: Path) -> Any:
    """A config value as JSON values, paths relative to the config's folder (no local path)."""
    if isinstance(value, Path):
        return "path:" + os.path.relpath(value, base).replace(os.sep, "/")
    if isinstance(value, frozenset | set):
        return sorted(json_text(_canon(item, base)) for item in value)
    if isinstance(value, tuple | list):
        return [_canon(item, base) for item in value]
    if isinstance(value, dict):
        return {str(key): _canon(item, base) for key, item in value.items()}
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _canon(getattr(value, f.name), base) for f in fields(value) if f.init}  # type: ignore[arg-type]
    return to_plain(value)


def _digest(value: object) -> str:
    return hashlib.sha256(json_text(value).encode("utf-8")).hexdigest()


def _tree(folder: Path) -> str:
    """A digest of every file below *folder* but Python's byte-code caches."""
    lines = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(name for name in dirnames if name != "__pycache__")
        for name in sorted(filenames):
            if not name.endswith((".pyc", ".pyo")):
                path = Path(dirpath, name)
                lines.append(f"{path.relative_to(folder).as_posix()}\0{file_digest(path, 'code file')}")
    return _digest(sorted(lines))


@cache
def _code_digest() -> str:
    return _tree(Path(__file__).resolve().parents[1])  # the generator package


def _input_paths(kind: str, entry: Entry) -> list[Path | None]:
    if isinstance(entry, ComparisonConfig):
        return [*entry.candidate.paths, *entry.baseline.paths, entry.tasks, entry.eval_root]
    if isinstance(entry, LedgerConfig):
        return [entry.campaign, entry.ledger]
    if isinstance(entry, LeaderboardConfig):
        return [*(system.experiment for system in entry.systems), entry.tasks]
    return [*entry.system.paths, entry.tasks]


def _input_digest(path: Path | None) -> str | None:
    """A folder's tree digest or a file's own; what cannot be read keys as missing (the entry fails)."""
    if path is None:
        return None
    try:
        return tree_digest_of(path).digest if path.is_dir() else file_digest(path)
    except (EvalsiteError, OSError):
        return "missing"


def site_key(config: SiteConfig, site: SiteInfo, templates: Path) -> str:
    """The part of every entry's key that the whole site shares."""
    # the theme is in the templates' digest; where it lives changes no byte
    left_out = ("comparisons", "ledgers", "leaderboards", "reports", "output", "base_dir", "history", "theme_dir")
    base = config.base_dir
    settings = {f.name: _canon(getattr(config, f.name), base) for f in fields(config) if f.name not in left_out}
    settings["history"] = config.history is not None  # the pages link trend pages; the file is the merge's
    # an error page's message has every input path of the config cut out of it (pipelines/locations.py)
    roots = [path for path in config.input_paths() if path not in (config.history, config.theme_dir)]
    settings["inputs"] = sorted(_canon(path, config.base_dir) for path in roots)
    return _digest(
        {
            "evalsite": __version__,
            "code": _code_digest(),
            "templates": _tree(templates),
            "site": to_plain(site),
            "settings": settings,
        }
    )


def _groups(config: SiteConfig) -> dict[EntryId, frozenset[EntryId]]:
    """Each entry's group: a leaderboard with the comparisons on the same evidence, else itself."""
    group: dict[EntryId, set[EntryId]] = {(kind, entry.id): {(kind, entry.id)} for kind, entry in _entries(config)}
    if not config.leaderboards:
        return {member: frozenset(members) for member, members in group.items()}
    from generator.pipelines.leaderboard import evidence_matches  # scipy: only with a leaderboard

    for match in evidence_matches(config, {c.id for c in config.comparisons}):
        a, b = group[("leaderboard", match.board)], group[("comparison", match.comparison)]
        if a is not b:
            a |= b
            for member in b:
                group[member] = a
    return {member: frozenset(members) for member, members in group.items()}


def entry_keys(config: SiteConfig, shared: str) -> dict[EntryId, str]:
    """Every entry's key (see the module's docstring)."""
    own = {
        (kind, entry.id): _digest(
            {
                "kind": kind,
                "config": _canon(entry, config.base_dir),
                "inputs": [_input_digest(path) for path in _input_paths(kind, entry)],
            }
        )
        for kind, entry in _entries(config)
    }
    groups = _groups(config)
    return {
        member: _digest({"site": shared, "entry": own[member], "group": sorted(own[other] for other in groups[member])})
        for member in own
    }


# --------------------------------------------------------------------------- previous sites and parts


def _load_build_file(folder: Path, verified: VerifiedSite) -> tuple[str, list[Any]] | None:
    """The site key and the entries a verified folder's ``.evalsite-build`` records (None: unusable)."""
    digest = verified.files.get(BUILD_FILE)
    if digest is None:
        return None
    path = folder / BUILD_FILE
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) > _MAX_BUILD_FILE or hashlib.sha256(data).hexdigest() != digest:
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("schema") != _SCHEMA or not isinstance(value.get("entries"), list):
        return None
    return str(value.get("site")), value["entries"]


def _cached_entries(folder: Path, verified: VerifiedSite, recorded: list[Any]) -> dict[EntryId, _Cached]:
    """The recorded entries whose summary reads back and whose files all verify."""
    found: dict[EntryId, _Cached] = {}
    for item in recorded:
        if not isinstance(item, dict) or sorted(item) != ["files", "id", "key", "kind", "summary"]:
            continue
        try:
            kind, entry_id, key = str(item["kind"]), str(item["id"]), str(item["key"])
            listed = from_plain(item["files"], dict[str, str])
            summary = from_plain(item["summary"], EntrySummary, _phrase)
        except (ValueError, KeyError, TypeError):
            continue
        if kind not in _FOLDERS:
            continue
        prefix = entry_folder(kind, entry_id)
        files = {path: digest for path, digest in verified.files.items() if path.startswith(prefix)}
        if files != listed or any(path.startswith(prefix) for path in verified.foreign):
            continue  # a page edited (its manifest line too), missing or added: the entry is rebuilt
        vouched = {path: verified.vouched[path] for path in files}
        found[kind, entry_id] = _Cached(folder, key, summary, item["summary"], files, vouched)
    return found


# --------------------------------------------------------------------------- the plan


@dataclass
class Plan:
    """Which entries this build computes, copies, writes; what it records for the next build."""

    site: str  # the site key
    keys: dict[EntryId, str]
    reuse: dict[EntryId, _Cached] = field(default_factory=dict)
    only: frozenset[EntryId] | None = None  # a part: the entries it writes
    compute: frozenset[EntryId] = frozenset()
    vouched: Vouched | None = None  # the previous site's files already hashed (staged_site)
    summaries: dict[EntryId, EntrySummary] = field(default_factory=dict)

    def skips(self, kind: str, entry_id: str) -> bool:
        return (kind, entry_id) not in self.compute and (kind, entry_id) not in self.reuse

    def reused(self, kind: str, entry_id: str) -> EntrySummary | None:
        cached = self.reuse.get((kind, entry_id))
        return None if cached is None else cached.summary

    def computed(self, kind: str, entry_id: str, summary: EntrySummary) -> None:
        self.summaries[kind, entry_id] = summary

    def copy_into(self, writer: SiteWriter) -> tuple[int, tuple[str, int]]:
        """Copy the reused entries' files; the pages copied and the largest of them."""
        pages, largest = 0, ("", 0)
        for cached in self.reuse.values():
            for path in sorted(cached.files):
                identity, digest = cached.vouched[path]
                writer.copy_verified(path, cached.source.joinpath(*path.split("/")), identity, str(digest))
                if path.endswith(".html"):
                    pages += 1
                    if writer.written[path] > largest[1]:
                        largest = (path, writer.written[path])
        return pages, largest

    def finish(self, writer: SiteWriter, redactor: Redactor) -> None:
        """A part keeps its entries' files alone; then the keys are recorded for the next build."""
        if self.only is not None:
            prefixes = tuple(entry_folder(kind, entry_id) for kind, entry_id in self.only)
            writer.drop(lambda path: path.startswith(prefixes))
        recorded = []
        for (kind, entry_id), key in sorted(self.keys.items()):
            if self.only is not None and (kind, entry_id) not in self.only:
                continue
            cached = self.reuse.get((kind, entry_id))
            summary = cached.plain if cached else _recordable(self.summaries.get((kind, entry_id)), redactor)
            if summary is None and self.only is None:
                continue  # rebuilt next time; a part records it, for the merge to say why it cannot take it
            prefix = entry_folder(kind, entry_id)
            files = {path: writer.digests[path] for path in sorted(writer.written) if path.startswith(prefix)}
            recorded.append({"kind": kind, "id": entry_id, "key": key, "files": files, "summary": summary})
        document = {"schema": _SCHEMA, "site": self.site, "entries": recorded}
        writer.write_bytes(BUILD_FILE, json_text(document).encode("utf-8"))


def _recordable(summary: EntrySummary | None, redactor: Redactor) -> Any:
    """The summary as JSON values, or None when it cannot be recorded faithfully or holds a secret."""
    if summary is None:
        return None
    try:
        plain = to_plain(summary)
        if to_plain(from_plain(plain, EntrySummary, _phrase)) != plain:
            return None  # not a faithful round trip: rebuilt each time
    except (TypeError, ValueError):
        return None
    return plain if redactor.value(plain) == plain else None


def _phrase(parts: tuple[str, ...]) -> str:
    """A :class:`Phrase` from its parts, as ``pages.names.phrase`` made it."""
    text = Phrase("".join(parts))
    text.parts = parts
    return text


def _union(groups: dict[EntryId, frozenset[EntryId]], members: Iterable[EntryId]) -> frozenset[EntryId]:
    return frozenset(other for member in members for other in groups[member])


def plan_build(
    config: SiteConfig,
    out: Path,
    site: SiteInfo,
    templates: Path,
    *,
    full: bool = False,
    only: Sequence[str] = (),
    parts: Sequence[Path] = (),
) -> Plan:
    """What a build computes and copies: see the module's docstring.

    *only*: entry ids (a part); *parts*: merge these parts (every entry must be in exactly one,
    built with this config, evalsite and inputs; nothing is computed).
    """
    shared = site_key(config, site, templates)
    keys = entry_keys(config, shared)
    groups = _groups(config)
    plan = Plan(shared, keys)
    if only:
        plan.only = _named(config, only)
    if parts:
        target = out.resolve()
        for part in (part.resolve() for part in parts):
            if part == target or part in target.parents or target in part.parents:
                raise EvalsiteError("merge: --out must be a folder of its own, neither in nor around a part")
        plan.reuse = _merge_sources(parts, shared, keys)
        plan.compute = frozenset()
        return plan
    wanted = _union(groups, plan.only) if plan.only is not None else frozenset(keys)
    if not full:
        plan.reuse, plan.vouched = _reusable(out, shared, keys, groups, wanted)
    plan.compute = wanted - frozenset(plan.reuse)
    return plan


def _named(config: SiteConfig, only: Sequence[str]) -> frozenset[EntryId]:
    by_id: dict[str, list[EntryId]] = {}
    for kind, entry in _entries(config):
        by_id.setdefault(entry.id, []).append((kind, entry.id))
    chosen: set[EntryId] = set()
    for name in only:
        if name not in by_id:
            raise EvalsiteError(f"--only {name[:80]!r}: the site config has no entry with this id")
        chosen.update(by_id[name])
    return frozenset(chosen)


def _reusable(
    out: Path,
    shared: str,
    keys: dict[EntryId, str],
    groups: dict[EntryId, frozenset[EntryId]],
    wanted: frozenset[EntryId],
) -> tuple[dict[EntryId, _Cached], Vouched | None]:
    """The entries of the previous site at *out* this build may copy: whole groups, keys unchanged."""
    verified = verified_site(out)
    if verified is None:
        return {}, None
    loaded = _load_build_file(out, verified)
    if loaded is None or loaded[0] != shared:
        return {}, verified.vouched
    cached = _cached_entries(out, verified, loaded[1])
    usable = {member for member in wanted if member in cached and cached[member].key == keys[member]}
    reuse = {member: cached[member] for member in usable if groups[member] & wanted <= usable}
    return reuse, verified.vouched


def _merge_sources(parts: Sequence[Path], shared: str, keys: dict[EntryId, str]) -> dict[EntryId, _Cached]:
    """Every entry from exactly one part; any other state of the parts is one ``error:`` line."""
    found: dict[EntryId, _Cached] = {}
    for part in parts:
        name = part.name
        verified = verified_site(part)
        if verified is None:
            raise EvalsiteError(f"part {name!r} is not a site part (no manifest evalsite can read)")
        if verified.foreign:
            raise EvalsiteError(f"part {name!r} does not match its manifest ({verified.foreign[0]!r})")
        loaded = _load_build_file(part, verified)
        if loaded is None:
            raise EvalsiteError(f"part {name!r} has no {BUILD_FILE} its manifest vouches for")
        if loaded[0] != shared:
            raise EvalsiteError(
                f"part {name!r} was built with another site config, evalsite version, templates or build time"
            )
        cached = _cached_entries(part, verified, loaded[1])
        if len(cached) != len(loaded[1]):
            raise EvalsiteError(
                f"part {name!r} records an entry whose files do not verify, or whose index facts hold a value "
                "a redaction rule changes (build that site on one machine)"
            )
        for member, entry in sorted(cached.items()):
            if member not in keys:
                raise EvalsiteError(f"part {name!r} holds {member[0]} {member[1]!r}, which the site config lacks")
            what = f"{member[0]} {member[1]!r}"
            if member in found:
                raise EvalsiteError(f"{what} is in two parts ({found[member].source.name!r}, {name!r})")
            if entry.key != keys[member]:
                raise EvalsiteError(f"part {name!r}: {what} was built from other inputs or settings than this merge's")
            found[member] = entry
    missing = sorted(set(keys) - set(found))
    if missing:
        shown = ", ".join(f"{kind} {entry_id!r}" for kind, entry_id in missing[:3])
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise EvalsiteError(f"no part holds {shown}{more}; build it with --only and merge again")
    return found


# --------------------------------------------------------------------------- gathering


_TOP_PAGES = ("comparison.html", "ledger.html", "leaderboard.html", "report.html", "entry_error.html")


def index_rows(pages: Sequence[PageBundle]) -> tuple[InputDigest, ...]:
    """An entry's rows in the index's "Built from": its top page's inputs, named after the page."""
    return tuple(
        InputDigest(phrase("{}: {}", bundle.page.meta.title, item.role), item.name, item.sha256, item.detail)
        for bundle in pages
        if bundle.page.template in _TOP_PAGES
        for item in bundle.page.meta.inputs
    )


class _Report(Protocol):
    records: list[Any]
    warnings: list[str]
    transcripts_left_out: int


def gather_entry(
    plan: Plan | None,
    kind: str,
    entry_id: str,
    step: Callable[[], tuple[Headline, list[PageBundle]]],
    report: _Report,
) -> tuple[Headline | None, list[PageBundle], tuple[InputDigest, ...]]:
    """One entry's headline, pages and index rows: computed by *step*, or the previous build's
    (its records, warnings and counts added to *report* as *step* would add them), or nothing
    (an entry a part neither writes nor needs)."""
    if plan is not None:
        if plan.skips(kind, entry_id):
            return None, [], ()
        summary = plan.reused(kind, entry_id)
        if summary is not None:
            report.records.extend(summary.records)
            report.warnings.extend(summary.warnings)
            report.transcripts_left_out += summary.left_out
            return summary.headline, [], summary.inputs
    records, warnings, left_out = len(report.records), len(report.warnings), report.transcripts_left_out
    headline, pages = step()
    rows = index_rows(pages)
    if plan is not None:
        added = tuple(report.records[records:]), tuple(report.warnings[warnings:])
        plan.computed(kind, entry_id, EntrySummary(headline, rows, *added, report.transcripts_left_out - left_out))
    return headline, pages, rows
