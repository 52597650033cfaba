"""Case manifests: the content hashes that decide whether two runs are comparable.

A Comet report may carry a *case manifest* (schema v1 or v2) naming the
hashes of everything that defined its case: task definition, instruction,
validators, environment, data, prompt, and for v2 also the runner, the
controller and a privacy-safe execution identity.  evalsite recomputes every
derived hash and trusts nothing it could not recompute.  Reports without a
manifest get one rebuilt from the current tasks tree (``fallback``), which
proves parity at comparison time only.

The hash constructions are fixed by Comet and reproduced bit for bit:

* canonical JSON is ``json.dumps(obj, sort_keys=True, separators=(",", ":"))``
  with ASCII escaping, hashed as UTF-8 and written ``sha256:<hex>``;
* the *tree hash* feeds, for every entry under a path in path-component
  order, ``F\\0<rel>\\0<bytes>\\0`` for a file or ``L\\0<rel>\\0<target>\\0`` for a
  symbolic link (never followed), skipping ``.env*`` names, anything inside
  ``__pycache__`` and ``*.pyc``/``*.pyo``; a missing path feeds ``missing\\0``.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import orjson

from generator.model.common import sha256_bytes, sha256_label
from generator.model.errors import EvalsiteError
from generator.model.runs import (
    CORE_PARTS,
    FALLBACK_SOURCE,
    MISSING_PATH_HASH,
    V2_PARTS,
    CaseManifest,
    task_folder_problem,
)

__all__ = [
    "CORE_PARTS",
    "FALLBACK_SOURCE",
    "SCHEMA_V1",
    "SCHEMA_V2",
    "V2_PARTS",
    "CaseManifest",
    "canonical_hash",
    "core_hash",
    "fallback_manifest",
    "is_hash",
    "raw_manifest_of",
    "tree_hash",
    "verify_embedded",
]

SCHEMA_V1 = "comet.eval.case-manifest.v1"
SCHEMA_V2 = "comet.eval.case-manifest.v2"
CORE_SCHEMA = "comet.eval.case-core.v1"
IDENTITY_SCHEMA = "comet.eval.execution-identity.v1"

# Digests an execution identity carries instead of raw image ids, model names or prompts.
IDENTITY_HASHES = tuple(
    f"{name}_hash"
    for name in ("image_id", "image_repo_digests", "image_ref", "claude_tool_version", "model_selection", "interaction")
)
IDENTITY_KEYS = frozenset({"schema", *IDENTITY_HASHES, "model_source", "interaction_mode", "interaction_max_turns"})

# Comet controller files (relative to its eval/ folder) that fallback manifests hash.
SHARED_VALIDATION = ("scaffold", "python", "validation")
NATIVE_ADAPTER = ("scaffold", "python", "native_eval.py")
TASK_RENDERER = ("scaffold", "python", "tasks.py")

_HASH_RE = re.compile(r"sha256:[0-9a-f]{64}")
_CANONICAL_TURNS = re.compile(r"[1-9][0-9]{0,3}")
_SAFE_TASK_DIR = re.compile(r"[^/\\\x00]+")


def canonical_hash(value: Any) -> str:
    """``sha256:`` of Comet's canonical JSON (sorted keys, no spaces, ASCII escapes)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return sha256_bytes(text.encode("utf-8"))


def is_hash(value: Any) -> bool:
    return isinstance(value, str) and _HASH_RE.fullmatch(value) is not None


def _case_hash(schema: str, task: str, parts: Mapping[str, str]) -> str:
    return canonical_hash({"schema": schema, "task": task, **parts})


def core_hash(task: str, parts: Mapping[str, str]) -> str:
    """The task-core hash that lets a v1 manifest be compared with a v2 one."""
    return _case_hash(CORE_SCHEMA, task, {key: parts[key] for key in CORE_PARTS})


def _valid_identity(raw: Any) -> dict[str, str] | None:
    """The execution identity if every field is well formed, else None."""
    if not isinstance(raw, dict) or set(raw) != IDENTITY_KEYS:
        return None
    if raw["schema"] != IDENTITY_SCHEMA:
        return None
    if not all(is_hash(raw[key]) for key in IDENTITY_HASHES):
        return None
    if raw["model_source"] not in ("explicit", "runtime-default"):
        return None
    if raw["interaction_mode"] not in ("none", "auto_user", "custom"):
        return None
    turns = raw["interaction_max_turns"]
    if not isinstance(turns, str) or not _CANONICAL_TURNS.fullmatch(turns) or int(turns) > 1000:
        return None
    return dict(raw)


def raw_manifest_of(report: Mapping[str, Any]) -> Any:
    """The manifest a report carries: top level wins, else ``events_summary``."""
    events = report.get("events_summary")
    events = events if isinstance(events, dict) else {}
    return report.get("case_manifest") or events.get("case_manifest")


_VERIFIED: dict[tuple[Any, ...], CaseManifest | None] = {}


def _content_key(raw: dict[str, Any], task: str) -> tuple[Any, ...] | None:
    """A hashable key equal for equal manifests (None when a value is not hashable)."""
    items = []
    for key, value in raw.items():
        if isinstance(value, dict):
            value = tuple(sorted((k, type(v), v) for k, v in value.items()))
        items.append((key, type(value), value))
    content = (task, tuple(sorted(items)))
    try:
        hash(content)
    except TypeError:
        return None
    return content


def _fast_content_key(raw: dict[str, Any], task: str) -> tuple[Any, ...] | None:
    """:func:`_content_key`'s role, cheaper: the task and the BLAKE2b digest of orjson's bytes.

    orjson writes every value with its type (``1``, ``1.0`` and ``true`` differ) and fails on what
    it cannot write (an integer beyond 64 bits, a lone surrogate), which falls back to
    :func:`_content_key`; equal bytes are an equal manifest (the same keys, in the same order, with
    the same typed values), and a 256-bit digest stands for the bytes (no two manifests share one)
    in 32 bytes instead of the manifest's four kilobytes -- a key is held for every task.
    """
    try:
        text = orjson.dumps(raw)
    except (TypeError, orjson.JSONEncodeError):
        return _content_key(raw, task)
    if b"null" in text:  # orjson writes NaN and infinities as null too: those keep the exact key
        return _content_key(raw, task)
    return ("orjson", task, hashlib.blake2b(text, digest_size=32).digest())


def verify_embedded(raw: Any, task: str) -> CaseManifest | None:
    """Verify a report's manifest for ``task``; None when anything fails to check.

    Every repetition of a task usually carries the same manifest, so results
    are memoised by content (type-exact, so ``1`` and ``True`` never share).
    """
    if not isinstance(raw, dict):
        return None
    key = _fast_content_key(raw, task)
    if key is None:
        return _verify(raw, task)
    if key not in _VERIFIED:
        if len(_VERIFIED) > 100_000:
            _VERIFIED.clear()
        _VERIFIED[key] = _verify(raw, task)
    return _VERIFIED[key]


def _verify(raw: dict[str, Any], task: str) -> CaseManifest | None:
    schema = raw.get("schema")
    if schema == SCHEMA_V1:
        parts_names, keys = CORE_PARTS, {"schema", "task", "case_hash", *CORE_PARTS}
    elif schema == SCHEMA_V2:
        parts_names = V2_PARTS
        keys = {"schema", "task", "case_hash", "execution_identity", *V2_PARTS}
    else:
        return None
    if raw.get("task") != task or set(raw) != keys:
        return None
    if not all(is_hash(raw[name]) for name in parts_names):
        return None
    parts = {name: raw[name] for name in parts_names}
    claimed = raw["case_hash"]
    if not isinstance(claimed, str) or claimed != _case_hash(schema, task, parts):
        return None
    if schema == SCHEMA_V2:
        identity = _valid_identity(raw["execution_identity"])
        if identity is None or parts["execution_hash"] != canonical_hash(identity):
            return None
    source = "report-bound-v2" if schema == SCHEMA_V2 else "report-bound-v1"
    return CaseManifest(
        task=task, source=source, schema=schema, components=parts, case_hash=claimed, core_hash=core_hash(task, parts)
    )


# --------------------------------------------------------------------------- tree hash


def _entry_bytes(kind: str, rel: str, payload: str | None = None) -> bytes:
    try:
        head = f"{kind}\0{rel}\0" if payload is None else f"{kind}\0{rel}\0{payload}\0"
        return head.encode("utf-8")
    except UnicodeEncodeError:
        raise EvalsiteError("a tasks-tree file name is not valid UTF-8; it cannot be hashed") from None


def _skipped(name: str, parts: tuple[str, ...]) -> bool:
    if name.startswith(".env") or "__pycache__" in parts:
        return True
    return PurePosixPath(name).suffix in (".pyc", ".pyo")


def _walk(root: Path) -> list[tuple[tuple[str, ...], os.DirEntry[str]]]:
    """Every entry below ``root`` without entering linked folders, by path components."""
    found: list[tuple[tuple[str, ...], os.DirEntry[str]]] = []
    stack: list[tuple[Path, tuple[str, ...]]] = [(root, ())]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            rel = (*prefix, entry.name)
            found.append((rel, entry))
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((Path(entry.path), rel))
            except OSError:
                continue
    found.sort(key=lambda item: item[0])
    return found


def _feed_file(digest: Any, path: Path | str) -> None:
    with open(path, "rb", opener=lambda p, f: os.open(p, f | getattr(os, "O_NOFOLLOW", 0))) as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)


def tree_hash(path: Path) -> str:
    """Hash a file or a folder without following symbolic links."""
    return _tree_hash_state(path)[0]


def _tree_hash_state(path: Path) -> tuple[str, bool]:
    """The tree hash and whether the path was missing (recorded while hashing)."""
    try:
        path.lstat()
    except FileNotFoundError:
        return _missing_hash(), True
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:  # no such file can exist
            return _missing_hash(), True
    return _present_tree_hash(path), False


def _present_tree_hash(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        info = path.lstat()
    except FileNotFoundError:
        digest.update(b"missing\0")
        return sha256_label(digest.hexdigest())
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:  # no such file can exist
            digest.update(b"missing\0")
            return sha256_label(digest.hexdigest())
        raise EvalsiteError(f"cannot inspect a tasks-tree path ({error.strerror})") from None
    base_parts = path.parts
    if stat.S_ISLNK(info.st_mode) or stat.S_ISREG(info.st_mode):
        if not _skipped(path.name, base_parts):
            if stat.S_ISLNK(info.st_mode):
                digest.update(_entry_bytes("L", path.name, os.readlink(path)))
            else:
                digest.update(_entry_bytes("F", path.name))
                _feed_file(digest, path)
                digest.update(b"\0")
        return sha256_label(digest.hexdigest())
    if not stat.S_ISDIR(info.st_mode):
        return sha256_label(digest.hexdigest())
    for rel, entry in _walk(path):
        if _skipped(entry.name, base_parts + rel):
            continue
        rel_text = "/".join(rel)
        if entry.is_symlink():
            digest.update(_entry_bytes("L", rel_text, os.readlink(entry.path)))
        elif entry.is_file(follow_symlinks=False):
            digest.update(_entry_bytes("F", rel_text))
            _feed_file(digest, entry.path)
            digest.update(b"\0")
    return sha256_label(digest.hexdigest())


def _prompt_instruction_hash(task_dir: Path | None, tasks_root: Path | None) -> tuple[str, bool]:
    """Hash of the prompt prefix plus the instruction's bytes, read only inside the tasks tree.

    Comet reads ``instruction.md`` through symbolic links here; evalsite does
    so only when the link's target stays inside the tasks tree.  The flag says the
    instruction was missing.
    """
    digest = hashlib.sha256(b"canonical-task-prompt-v1\0")
    target = None
    if task_dir is not None and tasks_root is not None:
        try:
            resolved = (task_dir / "instruction.md").resolve(strict=True)
            if resolved.is_relative_to(tasks_root.resolve(strict=True)) and resolved.is_file():
                target = resolved
        except (OSError, RuntimeError):
            target = None
    if target is None:
        digest.update(b"missing")
    else:
        with open(target, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    return sha256_label(digest.hexdigest()), target is None


def fallback_manifest(task: str, tasks_dir: Path | None, eval_root: Path | None) -> CaseManifest:
    """Rebuild a v1 manifest for ``task`` from the current tasks tree.

    Without ``tasks_dir`` (or for a task name that cannot be one folder name,
    see :func:`~generator.model.runs.task_folder_problem`) every task path
    hashes as missing; without ``eval_root`` the three Comet
    controller paths do.
    """
    if tasks_dir is not None and task_folder_problem(task) is None:
        task_dir = tasks_dir / task
    else:
        task_dir = None

    missing_inputs: set[str] = set()

    def hashed(key: str, state: tuple[str, bool]) -> str:
        if state[1]:
            missing_inputs.add(key)
        return state[0]

    def task_path(name: str) -> str:
        return hashed(
            f"task:{name}", (_missing_hash(), True) if task_dir is None else _tree_hash_state(task_dir / name)
        )

    def eval_path(parts: tuple[str, ...]) -> str:
        state = (_missing_hash(), True) if eval_root is None else _tree_hash_state(eval_root.joinpath(*parts))
        return hashed("eval:" + "/".join(parts), state)

    native = eval_path(NATIVE_ADAPTER)
    validator = canonical_hash(
        {
            "task_validation": task_path("validation"),
            "shared_validation": eval_path(SHARED_VALIDATION),
            "native_adapter": native,
        }
    )
    prompt = canonical_hash(
        {
            "instruction": hashed("instruction", _prompt_instruction_hash(task_dir, tasks_dir)),
            "task_renderer": eval_path(TASK_RENDERER),
            "native_adapter": native,
        }
    )
    parts = {
        "task_hash": task_path("task.toml"),
        "instruction_hash": task_path("instruction.md"),
        "validator_hash": validator,
        "environment_hash": task_path("environment"),
        "data_hash": task_path("data"),
        "prompt_hash": prompt,
    }
    # a part is missing when every input it hashes was missing
    shared, adapter = "eval:" + "/".join(SHARED_VALIDATION), "eval:" + "/".join(NATIVE_ADAPTER)
    inputs_of = {
        "task_hash": ("task:task.toml",),
        "instruction_hash": ("task:instruction.md",),
        "validator_hash": ("task:validation", shared, adapter),
        "environment_hash": ("task:environment",),
        "data_hash": ("task:data",),
        "prompt_hash": ("instruction", "eval:" + "/".join(TASK_RENDERER), adapter),
    }
    missing = frozenset(part for part, keys in inputs_of.items() if all(key in missing_inputs for key in keys))
    return CaseManifest(
        task=task,
        source=FALLBACK_SOURCE,
        schema=SCHEMA_V1,
        components=parts,
        case_hash=_case_hash(SCHEMA_V1, task, parts),
        core_hash=core_hash(task, parts),
        missing=missing,
        task_files=tasks_dir is not None,
    )


def _missing_hash() -> str:
    return MISSING_PATH_HASH
