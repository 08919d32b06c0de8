"""Shapes shared by every area: identifiers, severities, errors, list envelopes."""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import IntEnum
from typing import Annotated, Any, ClassVar, Generic, Literal, Self, TypeVar
from urllib.parse import quote

import pydantic
import pydantic_core
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    model_validator,
)

# --- base classes ------------------------------------------------------------------------


class ApiModel(BaseModel):
    """A response shape: unknown fields from a newer platform are kept, not rejected.

    Built on first use (`defer_build`): the console and the sandbox import some 200 of
    these and use a few at start, and building them all was a fifth of either's start."""

    model_config = ConfigDict(
        extra="allow", populate_by_name=True, regex_engine="python-re", defer_build=True
    )


# --- fields the platform's reference shapes otherwise --------------------------------------


def member_of_object(key: str) -> BeforeValidator:
    """Reads a field that the platform's reference (7.3) gives as an object and the seed
    (Documents 1 and 2) as one value: the object's `key` member. The value itself reads as
    it is, and the sandbox writes it so (docs/architecture.md lists these fields)."""

    def read(value: object) -> object:
        return value.get(key) if isinstance(value, dict) else value

    return BeforeValidator(read)


# `version` of a base station: {"version", "status", "statusInfo"} in the reference.
VersionValue = Annotated[str | None, member_of_object("version")]


# --- deprecated request fields ---------------------------------------------------------------

# True while request models are read on a server's behalf (the sandbox validating what a client
# sent): a deprecated field is then accepted without a warning meant for the code that set it.
_SERVER_SIDE: ContextVar[bool] = ContextVar("lpwa_deprecated_fields_quiet", default=False)
_LIBRARY_DIRS = tuple(os.path.dirname(m.__file__ or "") + os.sep for m in (pydantic, pydantic_core))


def quiet_deprecated_fields() -> None:
    """From now on in this context (a server's request task), request models do not warn
    about deprecated fields: they were set by a remote client, not by the code here."""
    _SERVER_SIDE.set(True)


@contextmanager
def accepting_deprecated_fields() -> Iterator[None]:
    """Within: building request models with deprecated fields does not warn."""
    token = _SERVER_SIDE.set(True)
    try:
        yield
    finally:
        _SERVER_SIDE.reset(token)


def _caller_stacklevel() -> int:
    """warnings.warn's stacklevel, seen from the function calling this one, that names the
    first frame outside pydantic and this module: the code that built the model."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and (
        frame.f_code.co_filename == __file__ or frame.f_code.co_filename.startswith(_LIBRARY_DIRS)
    ):
        frame = frame.f_back
        level += 1
    return level


def _reason(deprecated: object) -> str:
    message = getattr(deprecated, "message", deprecated)
    return message if isinstance(message, str) and message else "no longer used"


def deprecated_value(model: BaseModel, name: str) -> Any:
    """A deprecated field's value, read without the warning attribute access gives. (Not
    warnings.catch_warnings: it changes process-wide filters, unsafe off the main thread.)"""
    return vars(model).get(name)


class RequestModel(BaseModel):
    """A request shape: unknown fields are a typing mistake, so they are refused.

    The platform uses one shape to read and to write a resource, so the commonest script reads
    an object, changes a field and sends it all back. Two class-level sets of wire names make
    that work without opening the door to typing mistakes:
      - `read_only_fields`: what a response carries and a request cannot set (the reference's
        readOnly properties, and those of our responses). Accepted and dropped on reading.
      - `not_modelled_fields`: what the reference lets a client write but this model does not
        describe. Accepted without checks, kept aside and sent again by `to_wire` (a real
        platform applies them); the sandbox never reads them (docs/architecture.md).
      - `fixed_fields`: what is set at creation and cannot change (x-updateForbidden). Accepted
        and kept aside (`fixed_values`), not sent: a server compares them with what it holds
        and refuses a different value.
    Every other name is refused. Only a `ResourceRequest` (a resource's create or update body)
    keeps values aside: the many small nested models (references, tags) merely drop, which
    costs nothing measurable.

    A field marked deprecated must no longer be used (Document 1 §2, §9): setting one warns
    (DeprecationWarning, one per field set, pointing at the code that built the model), not
    only reading it as pydantic does. Fields deprecated in some cases only say so through
    `deprecated_fields_set`. A server reading what its clients sent stays quiet
    (quiet_deprecated_fields, accepting_deprecated_fields)."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        str_strip_whitespace=True,
        regex_engine="python-re",
        # Built on first use, as ApiModel's: most are never used in a session (issue 8).
        # `model_fields`, which __pydantic_init_subclass__ reads, is filled all the same.
        defer_build=True,
    )

    read_only_fields: ClassVar[frozenset[str]] = frozenset()
    not_modelled_fields: ClassVar[frozenset[str]] = frozenset()
    fixed_fields: ClassVar[frozenset[str]] = frozenset()

    _declared: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        # A name both declared and modelled would be dropped before its field could read it.
        wire = {info.alias or name for name, info in cls.model_fields.items()}
        sets = (cls.read_only_fields, cls.not_modelled_fields, cls.fixed_fields)
        clash = frozenset().union(*sets) & (wire | set(cls.model_fields))
        clash |= (sets[0] & sets[1]) | (sets[0] & sets[2]) | (sets[1] & sets[2])
        if clash:
            raise TypeError(f"{cls.__name__}: declared and modelled: {', '.join(sorted(clash))}")
        if (cls.not_modelled_fields or cls.fixed_fields) and not issubclass(cls, ResourceRequest):
            raise TypeError(f"{cls.__name__}: only a ResourceRequest keeps values aside")
        cls._declared = frozenset().union(*sets)

    @model_validator(mode="before")
    @classmethod
    def _accept_reference_names(cls, data: Any) -> Any:
        declared = cls._declared
        if not declared or not isinstance(data, dict) or declared.isdisjoint(data):
            return data
        return {k: v for k, v in data.items() if k not in declared}

    def to_wire(self) -> dict[str, object]:
        """The JSON body: only what the caller set, never defaults the server should decide."""
        return self.model_dump(mode="json", exclude_unset=True, by_alias=True)

    def deprecated_fields_set(self) -> dict[str, str]:
        """The deprecated fields the caller set (wire name -> why), {} when none."""
        found: dict[str, str] = {}
        for name, info in type(self).model_fields.items():
            if info.deprecated and name in self.model_fields_set:
                found[info.alias or name] = _reason(info.deprecated)
        return found

    @model_validator(mode="after")
    def _warn_deprecated_fields(self) -> Self:
        if not _SERVER_SIDE.get():
            for name, reason in self.deprecated_fields_set().items():
                warnings.warn(
                    f"{type(self).__name__}.{name} is deprecated ({reason}) and must no longer"
                    " be used",
                    DeprecationWarning,
                    stacklevel=_caller_stacklevel(),
                )
        return self


class ResourceRequest(RequestModel):
    """The body of a resource's create or update: also keeps the not-modelled and fixed values
    it was given (RequestModel)."""

    # (not-modelled, fixed) as given; None when none was (most requests).
    _kept: tuple[dict[str, Any], dict[str, Any]] | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _accept_reference_names(  # replaces RequestModel's (same name)
        cls, data: Any, handler: ModelWrapValidatorHandler[Self]
    ) -> Self:
        declared = cls._declared
        if not declared or not isinstance(data, dict) or declared.isdisjoint(data):
            return handler(data)
        kept = {k: v for k, v in data.items() if k in cls.not_modelled_fields}
        fixed = {k: v for k, v in data.items() if k in cls.fixed_fields}
        model = handler({k: v for k, v in data.items() if k not in declared})
        if kept or fixed:
            model._kept = (kept, fixed)
        return model

    def not_modelled(self) -> dict[str, Any]:
        """The not-modelled fields the sender gave (wire name -> value as sent)."""
        return dict(self._kept[0]) if self._kept else {}

    def fixed_values(self) -> dict[str, Any]:
        """The fixed fields the sender gave (wire name -> value as sent)."""
        return dict(self._kept[1]) if self._kept else {}

    def to_wire(self) -> dict[str, object]:
        """Also the not-modelled fields as they were given: a real platform applies them."""
        return super().to_wire() | self.not_modelled()


class QueryFilter(RequestModel):
    """The query parameters of a list: every field set, a list field once per value."""

    def to_params(self) -> list[tuple[str, str]]:
        params: list[tuple[str, str]] = []
        for key, value in self.model_dump(exclude_none=True).items():
            values = value if isinstance(value, list) else [value]
            params.extend((key, str(v)) for v in values if v != "")
        return params

    def is_empty(self) -> bool:
        return not self.to_params()


# A list's bounding box filter (devices, base stations): the reference's ranges. Each filter
# declares minLat, minLon, maxLat and maxLon where its query has them (the order of its
# query parameters), typed so; `BoxFilter.without_box` drops them (a clusters request sends
# its box apart).
BoxLatitude = Annotated[float | None, Field(ge=-90, le=90)]
BoxLongitude = Annotated[float | None, Field(ge=-180, le=180)]
BOX_FIELDS = ("minLat", "minLon", "maxLat", "maxLon")


class BoxFilter(QueryFilter):
    """A list filter with a bounding box (`BOX_FIELDS`, typed `BoxLatitude`/`BoxLongitude`)."""

    def without_box(self) -> Self:
        return self.model_copy(update=dict.fromkeys(BOX_FIELDS))


# --- identifiers (Document 1 §2.1, Document 2 §2.1) --------------------------------------


@dataclass(frozen=True, slots=True)
class Identifier:
    """A parsed path identifier.

    kind is one of:
      uid     sequential integer UID            "123"
      id      ID with the `id:` prefix          "id:my-app"
      sub     subscriber ID, `id:sub:` prefix   "id:sub:100"
      sup     supplier ID, `id:sup:` prefix     "id:sup:acme"
      mine    the authenticated user's own      "mine"
      eui     device EUI, `e` + upper-case hex  "e70B3D5E75E000001"
      text    anything else (platform IDs, OpenID subjects)
    """

    kind: Literal["uid", "id", "sub", "sup", "mine", "eui", "text"]
    value: str

    @property
    def uid(self) -> int:
        if self.kind != "uid":
            raise ValueError(f"{self} is not a sequential UID")
        return int(self.value)

    def __str__(self) -> str:
        return format_identifier(self)


_UID = re.compile(r"[0-9]{1,19}")
_UID_MAX = 2**63 - 1
_EUI_REF = re.compile(r"e([0-9A-F]+)")


def parse_identifier(text: str, *, allow_eui: bool = False) -> Identifier:
    """Parse a decoded path segment into its identifier form."""
    # A UID is a 64-bit integer: a longer run of digits cannot name one (it is only text).
    if _UID.fullmatch(text) and int(text) <= _UID_MAX:
        return Identifier("uid", text)
    if text == "mine":
        return Identifier("mine", "")
    if text.startswith("id:sub:"):
        return Identifier("sub", text[len("id:sub:") :])
    if text.startswith("id:sup:"):
        return Identifier("sup", text[len("id:sup:") :])
    if text.startswith("id:"):
        return Identifier("id", text[len("id:") :])
    if allow_eui and (match := _EUI_REF.fullmatch(text)):
        return Identifier("eui", match.group(1))
    return Identifier("text", text)


def format_identifier(ident: Identifier) -> str:
    """The identifier as written in a path, before percent-encoding."""
    prefix = {"uid": "", "id": "id:", "sub": "id:sub:", "sup": "id:sup:", "eui": "e", "text": ""}
    if ident.kind == "mine":
        return "mine"
    return prefix[ident.kind] + ident.value


def device_ref(eui: str) -> str:
    """The `e` + upper-case EUI form that addresses a device by its EUI."""
    return "e" + eui.upper()


def path_segment(ident: Identifier | str | int) -> str:
    """One percent-encoded path segment: `:` as %3A and `/` as %2F, so IDs with slashes survive."""
    text = str(ident) if not isinstance(ident, Identifier) else format_identifier(ident)
    return quote(text, safe="")


# An application server's references (schema/app_servers.py re-exports them): here, because a
# device's links to its servers are made without the app servers' models.
def app_server_ref(server_id: str) -> str:
    """`id:` + ID, the form that addresses a server of any scope (percent-encode it with
    common.path_segment: `:` -> %3A, `/` -> %2F)."""
    return "id:" + server_id


APP_SERVERS_HREF = "/subscriptions/mine/appServers"


def app_server_href(uid: int, server_id: str, scope: str) -> str:
    """The href of a server a device or group links to: by its UID when the subscription's,
    by `id:` + ID otherwise (an operator's server has no UID of the subscriber's)."""
    if scope == "SUBSCRIPTION":
        return f"{APP_SERVERS_HREF}/{uid}"
    return f"{APP_SERVERS_HREF}/{path_segment(app_server_ref(server_id))}"


# --- severities --------------------------------------------------------------------------


class Severity(IntEnum):
    """Alarm severity numbering (Document 1 §2.3)."""

    CLEARED = 1
    INDETERMINATE = 2
    WARNING = 3
    MINOR = 4
    MAJOR = 5
    CRITICAL = 6

    @property
    def label(self) -> str:
        return self.name.capitalize()


# --- errors and lists --------------------------------------------------------------------


class ErrorBody(ApiModel):
    """The platform's error body."""

    code: int
    message: str


class Cursors(ApiModel):
    last: str | None = None


T = TypeVar("T")


class ListEnvelope(ApiModel, Generic[T]):
    """A page of a list: `count` only comes with the first page, `cursors.last` only when a
    cursor-sorted list has a next page."""

    briefs: list[T] = Field(default_factory=list)
    count: int | None = None
    more: bool = False
    cursors: Cursors | None = None

    @property
    def next_cursor(self) -> str | None:
        return self.cursors.last if self.cursors else None


class Distribution(ApiModel, Generic[T]):
    """How many items per value (a state, a health state), and how many in all."""

    briefs: list[T] = Field(default_factory=list)
    totalCount: int = 0


class Tag(ApiModel):
    name: str
    href: str | None = None


TAG_NAME_PATTERN = r"^[^\x00-\x20<>\x7F]([^\x00-\x1F<>\x7F]{0,38}[^\x00-\x20<>\x7F])?$"


class TagRef(RequestModel):
    """A tag as sent: 1 to 40 characters, no control characters, `<` or `>`, no outer spaces.
    The `href` an answer gives it is ignored when sent back."""

    read_only_fields = frozenset({"href"})

    name: str = Field(pattern=TAG_NAME_PATTERN)


class TagSuggestions(ApiModel):
    briefs: list[Tag] = Field(default_factory=list)
    query: str = ""


class Coordinates(ApiModel):
    lat: float
    lng: float


class BoundingBox(ApiModel):
    northeast: Coordinates
    southwest: Coordinates


HEX = re.compile(r"[0-9A-Fa-f]+")


def is_hex(text: str, length: int | None = None) -> bool:
    return bool(HEX.fullmatch(text)) and (length is None or len(text) == length)


def hex_problem(text: str, digits: int) -> str:
    """What is wrong with `text` as `digits` hexadecimal digits, in words ('' when nothing):
    the first character that is no hexadecimal digit ("'G' is not a hexadecimal digit"),
    else the count ("16 hexadecimal digits expected, not 15")."""
    wrong = next((c for c in text if c not in "0123456789abcdefABCDEF"), None)
    if wrong is not None:
        shown = "a space" if wrong == " " else f"'{wrong}'"
        return f"{shown} is not a hexadecimal digit (0-9, A-F)"
    if len(text) != digits:
        return f"{digits} hexadecimal digits expected, not {len(text)}"
    return ""
