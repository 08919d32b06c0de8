"""The HTML of the detail views (devices, stations, partners): labelled rows that line up,
sections, links, muted notes. One look for every detail."""

from __future__ import annotations

from html import escape

EMPTY = "—"
LABEL_WIDTH = 130  # px: the values of every section line up (room for them in a narrow detail)


def field_row(label: str, value: object) -> str:
    """A row that is always there: an empty value reads "—"."""
    text = EMPTY if value is None or value == "" else str(value)
    return (
        f"<tr><td width='{LABEL_WIDTH}' style='padding:2px 12px 2px 0;opacity:.7'>"
        f"{escape(label)}</td>"
        f"<td style='padding:2px 0'>{escape(text)}</td></tr>"
    )


def section_html(title: str, rows: list[str]) -> str:
    body = "".join(r for r in rows if r)
    if not body:
        return ""
    return f"<h4 style='margin:10px 0 4px 0'>{escape(title)}</h4><table>{body}</table>"


def linked_row(label: str, links: list[tuple[str, str]]) -> str:
    """A row whose values open what they name (text, href); "—" when there is none."""
    if not links:
        return field_row(label, None)
    value = ", ".join(f"<a href='{escape(href)}'>{escape(text)}</a>" for text, href in links)
    return (
        f"<tr><td width='{LABEL_WIDTH}' style='padding:2px 12px 2px 0;opacity:.7'>"
        f"{escape(label)}</td><td style='padding:2px 0'>{value}</td></tr>"
    )


def muted(text: str) -> str:
    return f"<p style='opacity:.6'>{escape(text)}</p>"
