"""The records format's mappings given on the command line (``--candidate-mapping FILE``, ``--records-preset``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.model.errors import EvalsiteError
from generator.model.records import RecordsMapping
from generator.read.records.mapping import parse_mapping
from generator.read.safe_io import Refusal, read_named_file

__all__ = ["MAX_MAPPING_BYTES", "load_mapping_file", "side_mappings"]

MAX_MAPPING_BYTES = 100_000


def load_mapping_file(path: str) -> RecordsMapping:
    """A mapping (``fields:``, ``preset:``, ``metric:``) from a YAML file named on the command line."""
    import yaml  # (imported here: every compare asks for its sides' mappings, few name a file)

    from generator.read.config import _UniqueKeyLoader  # the site config's YAML rules: duplicate keys refused

    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    raw = read_named_file(path, max_bytes=MAX_MAPPING_BYTES)
    if isinstance(raw, Refusal):
        raise EvalsiteError(f"records mapping {name!r} could not be read (it {raw.reason})")
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except (UnicodeDecodeError, ValueError, RecursionError, yaml.YAMLError):
        raise EvalsiteError(f"records mapping {name!r} is not readable YAML") from None
    except EvalsiteError as error:  # a duplicate key, as in the site config
        raise EvalsiteError(f"records mapping {name!r}: {str(error).removeprefix('site config: ')}") from None
    try:
        return parse_mapping(data, f"records mapping {name!r}")
    except ValueError as error:
        raise EvalsiteError(str(error)) from None


def side_mappings(formats: Mapping[str, str], files: Mapping[str, str | None], preset: str | None) -> dict[str, Any]:
    """``{candidate_records: ..., baseline_records: ...}`` for the records sides (ImportOptions' keywords)."""
    out: dict[str, Any] = {}
    for side, fmt in formats.items():
        named = files.get(side)
        if fmt != "records":
            if named:
                raise EvalsiteError(f"--{side}-mapping: only for --{side}-format records")
            continue
        out[f"{side}_records"] = (
            load_mapping_file(named) if named else RecordsMapping(preset=preset) if preset else None
        )
    return out
