"""Simple forms derived from the schema's request models: which fields a dialog shows, how a
typed text becomes a value, and how an existing item fills the form. Nested objects other than
ID references are left to the platform's own tools (listed as such by the dialog)."""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

FieldKind = Literal["text", "int", "float", "bool", "choice", "list", "refs", "ref"]


@dataclass(frozen=True)
class FormField:
    name: str  # the wire name (alias when there is one)
    attr: str  # the model attribute
    kind: FieldKind
    required: bool
    choices: tuple[str, ...] = ()
    secret: bool = False


def _strip_optional(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _kind(annotation: Any) -> tuple[FieldKind, tuple[str, ...]] | None:
    annotation = _strip_optional(annotation)
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return "choice", tuple(str(a) for a in typing.get_args(annotation))
    if origin is list:
        (inner,) = typing.get_args(annotation) or (str,)
        if inner is str:
            return "list", ()
        if _is_ref(inner):
            return "refs", ()
        return None
    if annotation is bool:
        return "bool", ()
    if annotation is int:
        return "int", ()
    if annotation is float:
        return "float", ()
    if annotation is str:
        return "text", ()
    if _is_ref(annotation):
        return "ref", ()
    return None


def _is_ref(annotation: Any) -> bool:
    """An ID reference (`{"ID": ...}`), typed as one text."""
    return (
        isinstance(annotation, type)
        and issubclass(annotation, BaseModel)
        and set(annotation.model_fields) == {"ID"}
    )


SECRET_WORDS = ("key", "secret", "password", "token")


def form_fields(model: type[BaseModel]) -> tuple[list[FormField], list[str]]:
    """(the fields a form can edit, the names it cannot)."""
    fields: list[FormField] = []
    skipped: list[str] = []
    for attr, info in model.model_fields.items():
        if info.deprecated:
            continue
        name = info.alias or attr
        found = _kind(info.annotation)
        if found is None:
            skipped.append(name)
            continue
        kind, choices = found
        secret = kind == "text" and any(w in attr.lower() for w in SECRET_WORDS)
        fields.append(FormField(name, attr, kind, info.is_required(), choices, secret))
    return fields, skipped


def value_of(spec: FormField, text: str) -> Any:
    """The value to validate for what was typed; None when empty (not sent). Bad numbers go
    through as text so the schema says what is wrong."""
    text = text.strip()
    if not text:
        return None
    if spec.kind == "int":
        try:
            return int(text)
        except ValueError:
            return text
    if spec.kind == "float":
        try:
            return float(text)
        except ValueError:
            return text
    if spec.kind == "bool":
        return text.lower() in ("true", "yes", "1")
    if spec.kind == "list":
        return [p.strip() for p in text.split(",") if p.strip()]
    if spec.kind == "refs":
        return [{"ID": p.strip()} for p in text.split(",") if p.strip()]
    if spec.kind == "ref":
        return {"ID": text}
    return text


def form_data(fields: list[FormField], texts: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for spec in fields:
        value = value_of(spec, texts.get(spec.name, ""))
        if value is not None:
            data[spec.name] = value
    return data


def text_of(spec: FormField, item: Any) -> str:
    """What the form shows for an existing item's field (secrets never)."""
    if item is None or spec.secret:
        return ""
    value = getattr(item, spec.attr, None)
    if value is None and spec.name != spec.attr:
        value = getattr(item, spec.name, None)
    if value is None:
        return ""
    if spec.kind == "bool":
        return "true" if value else "false"
    if spec.kind in ("list", "refs"):
        return ", ".join(str(getattr(v, "ID", v)) for v in value)
    if spec.kind == "ref":
        return str(getattr(value, "ID", value))
    return str(value)
