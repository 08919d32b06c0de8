"""Reading an answer tolerantly, as the Stainless SDKs do: a field that is missing or shaped
otherwise than the schema says does not reject the whole answer.

The happy path is the schema's own validation (no cost). Only when it fails, the answer is
read again field by field: a nested object or list is repaired in place, an item of a list
that cannot be read is left out, any other field that does not fit (or a required one that
is missing) becomes None, "unknown" to the console. Each mismatch is reported once per path
(`Subscription.state: expected str, got an object`), never with the value, which may be a
secret. The result is an instance of the schema's own class (`model_construct`): code that
reads it sees None where the platform said nothing usable.

Strict reading (the sandbox's tests: whatever the seed makes required must be there) is the
client's `strict_responses`."""

from __future__ import annotations

import logging
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar, Union

from pydantic import BaseModel, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
Report = Callable[[str, str], None]

_MISSING = object()
_ROUNDS = 4


class MismatchLog:
    """Says each mismatch once per field path (for one client)."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def __call__(self, path: str, what: str) -> None:
        if path in self.seen:
            return
        self.seen.add(path)
        log.warning("Answer not as expected at %s: %s; shown as unknown", path, what)


def json_kind(value: object) -> str:
    """What a JSON value is, in words, without its content."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def type_name(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _key_fields(cls: type[BaseModel]) -> dict[str, tuple[str, FieldInfo]]:
    """Wire key (alias or name) -> (field name, field)."""
    keys: dict[str, tuple[str, FieldInfo]] = {}
    for name, info in cls.model_fields.items():
        keys[name] = (name, info)
        alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
        if alias:
            keys[alias] = (name, info)
    return keys


@cache
def _lenient(cls: type[BaseModel]) -> type[BaseModel]:
    """`cls` with each required field optional (None): what validates an answer in which
    such fields were missing or unusable and left out."""
    required = {name: info for name, info in cls.model_fields.items() if info.is_required()}
    if not required:
        return cls
    fields: dict[str, Any] = {}
    for name, info in required.items():
        lenient = FieldInfo.merge_field_infos(info, default=None)
        fields[name] = (info.annotation | None, lenient)  # type: ignore[operator]
    return create_model(cls.__name__, __base__=cls, __module__=cls.__module__, **fields)


@cache
def _adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation)


def _options(annotation: Any) -> tuple[Any, ...]:
    """The members of a union (without None), or the annotation alone."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _options(typing.get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return tuple(a for a in typing.get_args(annotation) if a is not type(None))
    return (annotation,)


def _repair(annotation: Any, value: Any, path: str, report: Report) -> tuple[bool, Any]:
    """(True, a value the field takes) or (False, None): nothing usable."""
    options = _options(annotation)
    if len(options) != 1:
        # A union: the first member that reads it as it is.
        for option in options:
            try:
                return True, _adapter(option).validate_python(value)
            except (ValidationError, TypeError):
                continue
        return False, None
    (kind,) = options
    origin = typing.get_origin(kind)
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        if not isinstance(value, dict):
            return False, None
        return True, read_tolerantly(kind, value, report, path)
    if origin is list and isinstance(value, list):
        (item_type,) = typing.get_args(kind) or (Any,)
        items = []
        for item in value:
            ok, repaired = _repair(item_type, item, path + "[]", report)
            if ok:
                items.append(repaired)
            else:
                report(path + "[]", f"an item is {json_kind(item)}, not {type_name(item_type)}")
        return True, items
    if origin is dict and isinstance(value, dict):
        _, item_type = typing.get_args(kind) or (str, Any)
        entries = {}
        for key, item in value.items():
            ok, repaired = _repair(item_type, item, f"{path}.*", report)
            if ok:
                entries[key] = repaired
        return True, entries
    try:
        return True, _adapter(kind).validate_python(value)
    except (ValidationError, TypeError):
        return False, None


def read_tolerantly(cls: type[M], data: Any, report: Report, path: str | None = None) -> M:
    """`data` (parsed JSON) as a `cls`, every field that does not fit reported and unknown.
    Raises ValidationError only when `data` is not an object at all."""
    path = path or cls.__name__
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        if not isinstance(data, dict):
            raise
        errors = exc.errors()
    keys = _key_fields(cls)
    data = dict(data)
    lenient = _lenient(cls)
    for _ in range(_ROUNDS):
        bad = {e["loc"][0] for e in errors if e["loc"] and e["loc"][0] in keys}
        if not bad and errors:
            # Nothing to lay at a field's door (a rule across fields): the fields read alone.
            bad = {k for k in data if k in keys}
        for key in bad:
            _, info = keys[str(key)]
            where = f"{path}.{key}"
            value = data.pop(key, _MISSING)
            if value is _MISSING:
                if info.is_required():
                    report(where, "missing")
                continue
            ok, repaired = _repair(info.annotation, value, where, report)
            if ok:
                data[key] = repaired
            else:
                report(where, f"expected {type_name(info.annotation)}, got {json_kind(value)}")
        try:
            read = lenient.model_validate(data)
        except ValidationError as exc:
            errors = exc.errors()
            continue
        if lenient is cls:
            return typing.cast(M, read)
        values = {name: read.__dict__[name] for name in cls.model_fields}
        return cls.model_construct(
            read.model_fields_set, **values, **(read.__pydantic_extra__ or {})
        )
    # Still not readable: every modelled field unknown, the rest kept as sent.
    report(path, "unreadable")
    extra = {k: v for k, v in data.items() if k not in keys}
    return cls.model_construct(set(), **dict.fromkeys(cls.model_fields), **extra)
