"""pydantic's error messages in a user's words, shared by the forms (`models/forms.py`) and
the device import's check (`schema/device_import.py`): "at most 90", never "Input should be
less than or equal to 90"."""

from __future__ import annotations

from pydantic_core import ErrorDetails

# pydantic's error types in words ({ctx key} filled from the error's context).
TYPE_WORDS = {
    "missing": "required",
    "string_too_short": "at least {min_length} characters",
    "string_too_long": "at most {max_length} characters",
    "too_short": "at least {min_length} items",
    "too_long": "at most {max_length} items",
    "greater_than_equal": "at least {ge}",
    "less_than_equal": "at most {le}",
    "greater_than": "more than {gt}",
    "less_than": "less than {lt}",
    "int_parsing": "a whole number expected",
    "int_type": "a whole number expected",
    "int_from_float": "a whole number expected",
    "float_parsing": "a number expected",
    "float_type": "a number expected",
    "bool_parsing": "yes or no expected",
    "literal_error": "choose one of the values offered",
    "enum": "choose one of the values offered",
    "extra_forbidden": "not accepted here",
    "string_type": "text expected",
    "list_type": "a list expected",
}


def error_words(error: ErrorDetails) -> str:
    """One pydantic error in words, without the field's name: a rule of ours without
    pydantic's "Value error, ", pydantic's own types translated (`TYPE_WORDS`)."""
    kind = str(error.get("type", ""))
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    template = TYPE_WORDS.get(kind)
    if kind == "value_error" or template is None:
        return message
    ctx = error.get("ctx") or {}
    tidy = {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in ctx.items()}
    try:
        return template.format(**tidy)
    except (KeyError, IndexError):
        return message
