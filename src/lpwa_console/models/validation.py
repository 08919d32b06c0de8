"""Checking a form's data with its schema before anything is sent: errors by field, in
words that name the field by its label. Shared by every form's view-model."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ValidationError

from .forms import error_text, in_words, labelled_error

# Model-level messages name the field in words; point the dialog at the right input.
_FIELD_WORDS = {
    "DevAddr": "nwAddress",
    "nwAddress": "nwAddress",
    "AppSKey": "appSKey",
    "adminLat": "adminLat",
    "IMEI": "EUI",
    "DevEUI": "EUI",
    "EUI": "EUI",
    "AppKey": "appKey",
    "AppEUI": "appEUI",
    "JoinEUI": "appEUI",
    "name": "name",
    "tag": "tags",
}


def field_named_in(message: str, fields: set[str]) -> str:
    """The request field a message talks about, or ''."""
    for word, name in _FIELD_WORDS.items():
        if re.search(rf"\b{re.escape(word)}\b", message) and name in fields:
            return name
    for name in fields:
        if re.search(rf"\b{re.escape(name)}\b", message):
            return name
    return ""


def under_field(message: str, name: str) -> str:
    """A refusal shown under the field it names, without the field's API name leading the
    platform's words ("Not allowed: domains: outside ..." -> "Not allowed: outside ...")."""
    if not name:
        return message
    said = re.sub(rf"(^|: ){re.escape(name)}: ", r"\1", message, count=1)
    return said[:1].upper() + said[1:] if said != message else message


def validate(
    model: type[BaseModel], data: dict[str, Any]
) -> tuple[BaseModel | None, dict[str, str]]:
    """Validate form data with the schema; errors by field ('' for the form as a whole), in
    plain words that name the field by its label (`forms.labelled_error`)."""
    try:
        return model.model_validate(data), {}
    except ValidationError as exc:
        fields = set(model.model_fields)
        errors: dict[str, str] = {}
        for error in exc.errors():
            loc = error.get("loc") or ()
            name = str(loc[0]) if loc and str(loc[0]) in fields else ""
            if name:
                message = labelled_error(name, error, model)
            else:
                message = error_text(error)
                name = field_named_in(message, fields)
                if name and message.startswith(f"{name}: "):  # "destinations: ..." in words
                    message = labelled_error(name, error, model)
                message = in_words(message, fields, model)
            errors.setdefault(name, message)
        return None, errors
