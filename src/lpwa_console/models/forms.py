"""Forms derived from the schema's request models: which fields a dialog shows, how what was
typed becomes a value, and how an existing item fills the form.

A field is flat (one text: text, int, float, bool, choice, comma-separated list, a wrapper
such as an ID reference `{"ID": ...}` or a domain group `{"name": ...}`), a nested object
("object": a sub-form of flat fields) or a list of nested objects ("table": one row per item,
a column per sub-field; a list of several kinds, such as HTTP or Kafka destinations, has one
sub-form per kind). What the form holds for a field (its "raw" value) is a text, a
{sub-field: text} mapping or `Rows`. No Qt here: the widgets are in ui/.

Some fields are never typed (`AUTOMATIC`): the optimistic concurrency version `occContext`
goes back to the server as it was read with the item (`automatic_data`), so that the server
refuses an edit made on a stale copy. Fields a request model marks `exclude=True` are never
sent: the model takes them only to check the others (an update's `type`, which cannot change,
checks its destinations). A form does not show them; `check_only_data` fills them from the
item for that check.

Errors read as the device form words them (`error_text`): the schema's patterns in words,
never the regular expression pydantic quotes.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any, Literal

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from ..schema.common import TAG_NAME_PATTERN
from ..schema.domains import DOMAIN_NAME_PATTERN, GROUP_NAME_PATTERN
from ..schema.error_words import TYPE_WORDS
from ..schema.labels import FIELD_WORDS, FieldWords, field_words

FieldKind = Literal[
    "text",
    "int",
    "float",
    "bool",
    "choice",
    "duration",
    "list",
    "refs",
    "ref",
    "object",
    "table",
]
NESTED_KINDS = ("object", "table")
LIST_KINDS = ("list", "refs", "table")
SECRET_WORDS = ("key", "secret", "password", "token")
AUTOMATIC = frozenset({"occContext"})  # filled by the console from the item, never shown
_SCALARS: dict[Any, FieldKind] = {bool: "bool", int: "int", float: "float", str: "text"}
REQUIRED_MARK = "*"
REQUIRED_LEGEND = "* required"


def tooltip_of(name: str, words: FieldWords) -> str:
    """A field's tooltip: its help, its unit, and the API name for people who script."""
    lines = [words.help] if words.help else []
    if words.unit:
        lines.append(f"Unit: {words.unit}")
    if words.duration:
        lines.append("Sent as an ISO 8601 duration")
    lines.append(f"API name: {name}")
    return "\n".join(lines)


@dataclass(frozen=True)
class FormField:
    name: str  # the wire name (alias when there is one)
    attr: str  # the model attribute
    kind: FieldKind
    required: bool
    choices: tuple[str, ...] = ()
    secret: bool = False
    key: str = "ID"  # the one field of a "ref" / "refs" wrapper
    yes_no: bool = False  # a "ref" wrapping a yes/no (`{"enabled": true}`): picked as one
    forms: tuple[SubForm, ...] = ()  # "object": one; "table": one per kind of item
    words: FieldWords | None = None  # schema/labels.py; None: made from the name

    @property
    def about(self) -> FieldWords:
        return self.words or field_words(self.name)

    @property
    def label(self) -> str:
        """What people read: "Network address (DevAddr)"."""
        return self.about.label

    @property
    def marked_label(self) -> str:
        """The label, with the required mark (REQUIRED_MARK) when the field must be filled."""
        return self.label + (f" {REQUIRED_MARK}" if self.required else "")

    @property
    def tooltip(self) -> str:
        """The help line, the unit and the API name (for people who script)."""
        return tooltip_of(self.name, self.about)

    @property
    def reference(self) -> str:
        """The kind of resource the field names (schema.labels.REFERENCE_NOUNS), or ''."""
        return self.about.reference

    def choice_words(self, value: str) -> str:
        return self.about.choice_words(value) if value else ""

    @property
    def noun(self) -> str:
        """One item of a table, for messages: destinations -> "Destination"."""
        return self.label.removesuffix("s")


@dataclass(frozen=True)
class SubForm:
    """The fields of a nested object, validated by the object's own request model."""

    model: type[BaseModel]
    fields: tuple[FormField, ...]

    @property
    def label(self) -> str:  # HttpDestination -> "HTTP destination"
        name = self.model.__name__.removesuffix("Request")
        return _words(name).capitalize().replace("Http", "HTTP").replace(" http", " HTTP")


@dataclass
class Rows:
    """What a table holds: rows of texts by sub-field name, and which sub-form they follow
    (texts of the other kinds' columns are kept, so switching kind back loses nothing)."""

    rows: list[dict[str, str]] = field(default_factory=list)
    form: int = 0


Raw = str | dict[str, str] | Rows


def _words(name: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()


# --- errors in words ------------------------------------------------------------------------


def _pattern_of(model: type[BaseModel], attr: str) -> str:
    """The `pattern=` of a model's field (some are private to their schema module)."""
    info = model.model_fields[attr]
    return next(str(m.pattern) for m in info.metadata if getattr(m, "pattern", None))


# The schema's patterns, in words: what a user may type, not the regular expression. Made on
# the first error that needs it: the app servers' and network schemas are not imported at
# start (issue 8).
@cache
def schema_pattern_words() -> dict[str, str]:
    from ..schema.app_servers import CustomHttpHeaderRequest
    from ..schema.network import ID_PATTERN

    return {
        DOMAIN_NAME_PATTERN: "a domain is 1 to 5 parts of 1 to 20 characters separated by /, "
        "without : < > or spaces at either end",
        GROUP_NAME_PATTERN: "a group name has 1 to 20 characters, "
        "without : < > or spaces at either end",
        TAG_NAME_PATTERN: "a tag has 1 to 40 characters, without < > or control characters, "
        "and no spaces at either end",
        ID_PATTERN: "an ID has 1 to 64 letters, digits, dots, dashes or underscores, "
        "and starts with a letter or a digit",
        _pattern_of(CustomHttpHeaderRequest, "name"): "a header name has letters, digits and "
        "! # $ % & ' * + - . ^ _ ` | ~ only, no spaces",
        _pattern_of(CustomHttpHeaderRequest, "value"): "a header value has visible ASCII "
        "characters, with spaces or tabs only between them",
        r"^\S+$": "no spaces allowed",  # a catalog entry's ID (schema/catalogs.EntryID)
    }


_CLASS_PATTERN = re.compile(r"\^\[([^\]^][^\]]*)\](\+|\*|\{(\d+)(?:(,)(\d*))?\})\$")
_CLASS_PART = re.compile(r"(\\.|[^\\])(?:-(\\.|[^\\]))?")
_CLASS_WORDS = {
    frozenset({"0-9"}): "digits",
    frozenset({"0-9", "A-F"}): "hexadecimal digits (0-9, A-F, in capitals)",
    frozenset({"0-9", "a-f"}): "hexadecimal digits (0-9, a-f, in small letters)",
    frozenset({"0-9", "A-F", "a-f"}): "hexadecimal digits (0-9, A-F)",
    frozenset({"A-Z"}): "capital letters",
    frozenset({"a-z"}): "small letters",
    frozenset({"A-Z", "a-z"}): "letters",
    frozenset({"0-9", "A-Z", "a-z"}): "letters and digits",
}


def pattern_words(pattern: str) -> str:
    """A pattern in words: the schema's own (schema_pattern_words), else a one-class pattern such as
    `^[0-9A-F]+$` or `^[0-9]{6,15}$` read out, else a plain "not in the expected form"."""
    words = schema_pattern_words()
    if pattern in words:
        return words[pattern]
    match = _CLASS_PATTERN.fullmatch(pattern)
    if match is None:
        return "is not in the expected form"
    body, _quantifier, low, comma, high = match.groups()
    parts = []
    for first, last in _CLASS_PART.findall(body):
        first, last = first.removeprefix("\\"), last.removeprefix("\\")
        parts.append(f"{first}-{last}" if last else first)
    what = _CLASS_WORDS.get(frozenset(parts)) or "characters among " + " ".join(parts)
    if low is None or (comma and not high and low in ("0", "1")):
        count = ""  # + or *: any number of them
    elif not comma:
        count = f"exactly {low} "
    elif not high:
        count = f"at least {low} "
    else:
        count = f"{low} to {high} "
    return f"expected {count}{what}"


_TYPE_WORDS = TYPE_WORDS  # shared with the device import (schema/error_words.py)


def error_text(error: ErrorDetails, words: FieldWords | None = None) -> str:
    """One pydantic error in plain words, without the field's name: a pattern in words, a
    rule of ours without pydantic's "Value error, " in front, pydantic's own types
    translated (`_TYPE_WORDS`). With the field's `words`, a wrong hexadecimal value says
    what is expected ("8 hexadecimal digits expected")."""
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    if kind == "string_pattern_mismatch":
        pattern = ctx.get("pattern")
        if isinstance(pattern, str):
            return pattern_words(pattern)
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    if kind == "value_error":
        wrong_digit = "not a hexadecimal digit" in message  # says more than the count
        if words is not None and words.expected and "hexadecimal" in message and not wrong_digit:
            return f"{words.expected} expected"
        return message
    template = _TYPE_WORDS.get(kind)
    if template is None:
        return message[:1].lower() + message[1:]
    tidy = {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in ctx.items()}
    try:
        return template.format(**tidy)
    except (KeyError, IndexError):
        return message


def labelled_error(name: str, error: ErrorDetails, model: type | None = None) -> str:
    """An error that names its field in words: "Network address (DevAddr): 8 hexadecimal
    digits expected"."""
    words = field_words(name, model)
    text = error_text(error, words).removeprefix(f"{name}: ")  # our rules name it already
    return f"{words.label}: {text}"


def in_words(message: str, names: typing.Iterable[str], model: type | None = None) -> str:
    """A message of a rule over several fields with the API names in it replaced by their
    labels ("adminLat and adminLon go together" -> "Latitude and Longitude go together").
    Only camelCase names are replaced (those given and those schema/labels.py knows):
    plain words such as "name" read well already."""
    for name in sorted({*names, *FIELD_WORDS}, key=len, reverse=True):
        if name.lower() != name:
            label = field_words(name, model).label
            message = re.sub(rf"(?<![\w(]){re.escape(name)}(?![\w)])", label, message)
    return message


# --- deriving the fields --------------------------------------------------------------------


def _members(annotation: Any) -> list[Any]:
    """The types of a union but None (the annotation itself when not a union)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(annotation) if a is not type(None)]
    return [annotation]


def _model(annotation: Any) -> type[BaseModel] | None:
    is_model = isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return annotation if is_model else None


def _key(annotation: Any) -> str | None:
    """The field of a one-field wrapper (`{"ID": ...}`, `{"name": ...}`), edited as one text."""
    model = _model(annotation)
    if model is None or len(model.model_fields) != 1:
        return None
    ((attr, info),) = model.model_fields.items()
    return (info.alias or attr) if _members(info.annotation)[0] in _SCALARS else None


def _wrapped(annotation: Any) -> Any:
    """The type of a one-field wrapper's field (see `_key`)."""
    model = _model(annotation)
    assert model is not None
    ((_attr, info),) = model.model_fields.items()
    return _members(info.annotation)[0]


def _item_models(members: list[Any]) -> list[type[BaseModel]]:
    """The item models of `list[A]` or `list[A] | list[B]`; [] when not only that."""
    items = [_model((typing.get_args(m) or (None,))[0]) for m in members]
    if all(typing.get_origin(m) is list for m in members) and all(items):
        return [m for m in items if m is not None]
    return []


def _sub_form(model: type[BaseModel]) -> SubForm | None:
    """None when a required sub-field cannot be edited (so neither can the object)."""
    fields, skipped = form_fields(model, nested=False)
    required = {i.alias or a for a, i in model.model_fields.items() if i.is_required()}
    return None if required & set(skipped) else SubForm(model, tuple(fields))


def _field(
    name: str, attr: str, annotation: Any, required: bool, nested: bool, words: FieldWords
) -> FormField | None:
    make = partial(FormField, name, attr, required=required, words=words)
    members = _members(annotation)
    one = members[0] if len(members) == 1 else None
    inner = (typing.get_args(one) or (str,))[0] if typing.get_origin(one) is list else None
    if typing.get_origin(one) is Literal:
        return make("choice", choices=tuple(str(a) for a in typing.get_args(one)))
    if one is str and words.duration:
        return make("duration")
    if one in _SCALARS:
        secret = one is str and any(w in attr.lower() for w in SECRET_WORDS)
        return make(_SCALARS[one], secret=secret)
    if key := _key(one):
        return make("ref", key=key, yes_no=_wrapped(one) is bool)
    if inner is str:
        return make("list")
    if key := _key(inner):
        return make("refs", key=key)
    if not nested:
        return None
    if items := _item_models(members):
        forms = [_sub_form(m) for m in items]
        return make("table", forms=tuple(f for f in forms if f)) if all(forms) else None
    if (model := _model(one)) and (form := _sub_form(model)):
        return make("object", forms=(form,))
    return None


def check_only(info: FieldInfo) -> bool:
    """A field the request never sends (`exclude=True`): the model takes it only to check
    the other fields (AppServerUpdate.type checks the destinations)."""
    return info.exclude is True


def form_fields(
    model: type[BaseModel], *, nested: bool = True
) -> tuple[list[FormField], list[str]]:
    """(the fields a form can edit, the names it cannot). Deprecated and check-only fields
    are left out: nothing typed there would be sent."""
    fields: list[FormField] = []
    skipped: list[str] = []
    # Optional in the type, required by a rule of the model (a multicast group's AppSKey,
    # which a deprecated field may give instead): the form marks it all the same.
    by_rule: frozenset[str] = getattr(model, "required_by_rule", frozenset())
    for attr, info in model.model_fields.items():
        if info.deprecated or check_only(info):
            continue
        name = info.alias or attr
        words = field_words(name, model)
        required = info.is_required() or name in by_rule
        found = _field(name, attr, info.annotation, required, nested, words)
        if found is None:
            skipped.append(name)
        else:
            fields.append(found)
    return fields, skipped


def typed_fields(fields: typing.Iterable[FormField]) -> list[FormField]:
    """The fields a user types: all but the AUTOMATIC ones."""
    return [f for f in fields if f.name not in AUTOMATIC]


def automatic_data(model: type[BaseModel], *sources: Any) -> dict[str, Any]:
    """What the console sends itself with a request of `model`: `occContext` with the
    version of the first source that has one (the item as it was read), when the request
    takes it. {} otherwise (nothing to compare: the server decides alone)."""
    names = {info.alias or attr for attr, info in model.model_fields.items()}
    if "occContext" not in names:
        return {}
    for source in sources:
        version = getattr(getattr(source, "occContext", None), "version", None)
        if isinstance(version, int):
            return {"occContext": {"version": version}}
    return {}


def check_only_data(model: type[BaseModel], *sources: Any) -> dict[str, Any]:
    """The check-only fields of `model` (see `check_only`) as the first source that has a
    value holds them, e.g. `{"type": "KAFKA"}` for an update of a Kafka server: merged into
    the form's data before validating, they let the request check what the form holds
    against what cannot change; they are never sent."""
    data: dict[str, Any] = {}
    for attr, info in model.model_fields.items():
        if not check_only(info):
            continue
        name = info.alias or attr
        for source in sources:
            value = getattr(source, attr, None)
            if value is not None:
                data[name] = value
                break
    return data


# --- from the form to the request -----------------------------------------------------------


def value_of(spec: FormField, raw: Raw) -> Any:
    """The value to validate for what the form holds; None when empty (not sent). Bad
    numbers go through as text so the schema says what is wrong. Blank rows are left out."""
    if isinstance(raw, Rows):
        form = spec.forms[raw.form]
        return [v for row in raw.rows if (v := form_data(form.fields, row))] or None
    if isinstance(raw, dict):
        return form_data(spec.forms[0].fields, raw) or None
    text = raw.strip()
    if not text:
        return None
    if spec.kind in ("int", "float"):
        try:
            return int(text) if spec.kind == "int" else float(text)
        except ValueError:
            return text
    if spec.kind == "bool":
        return text.lower() in ("true", "yes", "1")
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if spec.kind == "list":
        return parts
    if spec.kind == "refs":
        return [{spec.key: p} for p in parts]
    if spec.kind == "ref":
        return {spec.key: text.lower() in ("true", "yes", "1") if spec.yes_no else text}
    return text


def form_data(
    fields: typing.Sequence[FormField],
    raws: Mapping[str, Raw],
    initial: Mapping[str, Raw] | None = None,
) -> dict[str, Any]:
    """The request data. With `initial` (editing an item), a nested field left as it was is
    not sent (it may hold what the form cannot show, such as a secret) and a list the user
    emptied is sent empty, to clear it."""
    data: dict[str, Any] = {}
    for spec in fields:
        value = value_of(spec, raws.get(spec.name, ""))
        if initial is not None:
            before = value_of(spec, initial.get(spec.name, ""))
            if spec.kind in NESTED_KINDS and value == before:
                continue
            if value is None and before is not None and spec.kind in LIST_KINDS:
                value = []
        if value is not None:
            data[spec.name] = value
    return data


def nested_errors(spec: FormField, raw: Raw) -> list[dict[str, str]]:
    """The errors of each row of a table (of an object: its one row) by sub-field ('' for
    the row as a whole), checked by the item's own request model: the rules of the whole
    request, located. Blank rows have none."""
    if isinstance(raw, Rows):
        form, rows = spec.forms[raw.form], raw.rows
    elif isinstance(raw, dict):
        form, rows = spec.forms[0], [raw]
    else:
        return []
    names = {f.name for f in form.fields}
    out: list[dict[str, str]] = []
    for row in rows:
        errors: dict[str, str] = {}
        if data := form_data(form.fields, row):
            try:
                form.model.model_validate(data)
            except ValidationError as exc:
                for error in exc.errors():
                    loc = error.get("loc") or ("",)
                    name = str(loc[0]) if str(loc[0]) in names else ""
                    text = (
                        labelled_error(name, error, form.model)
                        if name
                        else in_words(error_text(error), names, form.model)
                    )
                    errors.setdefault(name, text)
        out.append(errors)
    return out


def describe(spec: FormField, errors: list[dict[str, str]]) -> str:
    """The first error of a table in words: "Destination 1: Ports: ..." (row errors name
    their sub-field already, see nested_errors)."""
    for i, row in enumerate(errors):
        for message in row.values():
            return f"{spec.noun} {i + 1}: {message}"
    return ""


def form_for(spec: FormField, choice: str) -> int | None:
    """The kind of a table's items that a choice names (type KAFKA -> KafkaDestination,
    HTTP_CELLULAR -> HttpDestination), when exactly one does."""
    word = choice.split("_")[0].lower()
    found = [
        i for i, f in enumerate(spec.forms) if word and f.model.__name__.lower().startswith(word)
    ]
    return found[0] if len(spec.forms) > 1 and len(found) == 1 else None


# --- from an existing item to the form ------------------------------------------------------


def raw_of(spec: FormField, item: Any) -> Raw:
    """What the form holds for an existing item's field (secrets never)."""
    value = _value(spec, item)
    if spec.kind == "table":
        subs = [f for form in spec.forms for f in form.fields]
        rows = [{f.name: _text(f, _value(f, element)) for f in subs} for element in value or []]
        filled = [
            sum(bool(r.get(f.name)) for r in rows for f in form.fields) for form in spec.forms
        ]
        return Rows(rows, filled.index(max(filled)))
    if spec.kind == "object":
        return {f.name: _text(f, _value(f, value)) for f in spec.forms[0].fields}
    return _text(spec, value)


def _value(spec: FormField, item: Any) -> Any:
    value = getattr(item, spec.attr, None)
    return getattr(item, spec.name, None) if value is None else value


def _text(spec: FormField, value: Any) -> str:
    if value is None or spec.secret:
        return ""
    if spec.kind == "bool":
        return "true" if value else "false"
    if spec.kind == "ref" and spec.yes_no:
        return "true" if getattr(value, spec.key, value) else "false"
    if spec.kind in ("list", "refs"):
        return ", ".join(str(getattr(v, spec.key, v)) for v in value)
    if spec.kind == "ref":
        return str(getattr(value, spec.key, value))
    return str(value)
