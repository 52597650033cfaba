"""Frozen dataclasses to plain JSON values and back, checked against their type hints.

An incremental build keeps what the index and the history need of each entry (its headline, its
"Built from" rows, its history record) in the previous site, and reads it back from there: a file
anyone with write access to the site could have edited.  ``to_plain`` turns a value into JSON
values (a dataclass into an object of its ``init`` fields, tuples into arrays, non-finite floats
into ``"nan"``/``"inf"``/``"-inf"``); ``from_plain`` rebuilds it from its type and refuses
(``ValueError``) anything the type does not allow: an unknown or missing field, a wrong type, a
union none of whose members fits.  Nothing is looked up by name from the data, so a file cannot
make it build any class other than the ones the type names.

Written by hand: msgspec and the like refuse unions of two dataclasses (a table's rows are
``Row | NumberRow``), and pickle would run whatever the file says.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

__all__ = ["from_plain", "to_plain"]

_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def to_plain(value: object, loose: bool = False) -> Any:
    """*value* as JSON values; ``TypeError`` for anything that has no faithful JSON form here.

    Inside a mapping (a JSON document, typed ``Mapping[str, Any]``) *loose*: text is plain text there,
    whatever its class, as it is when the mapping is serialised."""
    kind = type(value)
    if value is None or kind is str or kind is bool or kind is int:
        return value
    if isinstance(value, str):
        if loose:
            return str(value)
        if isinstance(getattr(value, "parts", None), tuple):
            return {"parts": list(value.parts)}  # type: ignore[attr-defined]  # text kept in parts (pages/names.py)
    if kind is float:
        number = typing.cast(float, value)
        if loose and not math.isfinite(number):
            raise TypeError("a non-finite number in a JSON document")  # no JSON form to give it back as
        return number if math.isfinite(number) else ("nan" if math.isnan(number) else repr(number))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name), loose) for f in dataclasses.fields(value) if f.init}
    if isinstance(value, tuple | list):
        return [to_plain(item, loose) for item in value]
    if isinstance(value, Mapping) and all(isinstance(key, str) for key in value):
        return {str(key): to_plain(item, True) for key, item in value.items()}
    raise TypeError(f"no JSON form for a {kind.__name__}")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


TextParts = Callable[[tuple[str, ...]], str]


def from_plain(value: Any, hint: Any, parts: TextParts | None = None) -> Any:  # noqa: C901 -- one branch a kind
    """The value of type *hint* that :func:`to_plain` turned into *value*; ``ValueError`` if none.

    *parts* makes text that keeps its parts apart (``{"parts": [...]}``) where a ``str`` goes."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any or hint is object:
        return value
    if hint is None or hint is type(None):
        return _exact(value, type(None))
    if hint is str and parts is not None and type(value) is dict:
        if list(value) != ["parts"] or type(value["parts"]) is not list or len(value["parts"]) % 2 != 1:
            raise ValueError("expected text or its parts")
        return parts(tuple(_exact(item, str) for item in value["parts"]))
    if hint in (str, bool):
        return _exact(value, hint)
    if hint is int:
        return _exact(value, int)
    if hint is float:
        if type(value) is str and value in _NON_FINITE:
            return _NON_FINITE[value]
        if type(value) not in (int, float):
            raise ValueError(f"expected a number, found {type(value).__name__}")
        return value
    if origin is typing.Literal:
        if value not in args or type(value) not in {type(arg) for arg in args}:
            raise ValueError(f"{value!r} is not one of {args!r}")
        return value
    if origin in (typing.Union, types.UnionType):
        for member in args:
            try:
                return from_plain(value, member, parts)
            except ValueError:
                continue
        raise ValueError(f"no member of {hint!r} fits")
    if origin in (tuple, list, Sequence):
        items = _exact(value, list)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if len(items) != len(args):
                raise ValueError(f"expected {len(args)} items, found {len(items)}")
            return tuple(from_plain(item, arg, parts) for item, arg in zip(items, args, strict=True))
        item_hint = args[0] if args else Any
        decoded = [from_plain(item, item_hint, parts) for item in items]
        return decoded if origin is list else tuple(decoded)
    if origin in (dict, Mapping):
        mapping = _exact(value, dict)
        if args and args[0] is not str:
            raise ValueError("only text keys are supported")
        item_hint = args[1] if args else Any
        return {key: from_plain(item, item_hint, parts) for key, item in mapping.items()}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass(value, hint, parts)
    raise ValueError(f"unsupported type {hint!r}")


def _exact(value: Any, kind: type) -> Any:
    if type(value) is not kind:
        raise ValueError(f"expected {kind.__name__}, found {type(value).__name__}")
    return value


def _dataclass(value: Any, cls: type, parts: TextParts | None) -> Any:
    fields = _exact(value, dict)
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    if sorted(fields) != sorted(names):
        raise ValueError(f"{cls.__name__}: fields {sorted(fields)!r}, expected {sorted(names)!r}")
    try:
        hints = _hints(cls)
    except (NameError, TypeError) as error:  # a hint only known while type checking
        raise ValueError(f"{cls.__name__}: its type hints cannot be resolved ({error})") from None
    try:
        return cls(**{name: from_plain(fields[name], hints[name], parts) for name in names})
    except (TypeError, ArithmeticError) as error:  # a check in __post_init__
        raise ValueError(f"{cls.__name__}: {error}") from None
