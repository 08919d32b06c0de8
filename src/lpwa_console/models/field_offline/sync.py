"""Sending the queued edits back, in order, once the platform answers again.

Nothing is sent twice and nothing is overwritten silently: before an edit is sent its item
is read again and compared, field by field, with what the edit changes:

- the platform already has the new values: the edit is marked sent, not sent again (the
  case of a crash after a send and before its mark: the edit was left `sending`);
- the platform's values are those the edit started from (`base`): the edit is marked
  `sending` (committed), sent, then marked `sent`;
- anything else: the item changed on the platform since: a conflict, kept with the
  platform's values for the user to choose (`resolve`).

A base station's position is sent as its updateLocation command (a POST); the station
carries it out a few seconds later, so an edit left `sending` whose station still shows the
old position is not sent again while the station's last command is that location update,
still pending or running.

A lost connection stops the replay; what was not sent stays queued (or `sending`, re-read
next time)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...api import LpwaClient
from ...api.errors import APIConnectionError, APIStatusError, APITimeoutError, NotFoundError
from .edit_queue import CONFLICT, FAILED, KEPT, QUEUED, SENDING, SENT, Edit, EditQueue
from .offline_edits import LOCATION_COMMAND, location_command, normal
from .store import STATIONS

Offline = (APIConnectionError, APITimeoutError)


def _equal(field: str, a: Any, b: Any) -> bool:
    return bool(normal(field, a) == normal(field, b))


def _values(item: dict[str, Any], edit: Edit) -> dict[str, Any]:
    values = {field: item.get(field) for field in edit.changes}
    if "tags" in values:
        values["tags"] = [{"name": n} for n in normal("tags", values["tags"])]
    return values


async def _read(client: LpwaClient, queue: EditQueue, edit: Edit) -> dict[str, Any] | None:
    try:
        item = (await client.request("GET", edit.path)).json()
    except NotFoundError:
        queue.mark(edit.seq, FAILED, "No longer on the platform: the edit was not sent")
        return None
    except Offline:
        raise
    except APIStatusError as exc:
        queue.mark(edit.seq, FAILED, f"Could not read it from the platform: {exc.message}")
        return None
    return item if isinstance(item, dict) else None


async def _location_under_way(client: LpwaClient, edit: Edit) -> bool:
    """Whether the station's last command is a location update it has not finished."""
    try:
        status = (await client.request("GET", f"{edit.path}/admins/lastCmdStatus")).json()
    except APIStatusError:
        return False
    return isinstance(status, dict) and (
        status.get("lastCmdType") == "LOCATION_ADMIN"
        and status.get("lastCmdCompletionStatus") in ("PENDING", "PROCESSING", None)
    )


async def _send(client: LpwaClient, queue: EditQueue, edit: Edit, outcome: str) -> None:
    queue.mark(edit.seq, SENDING)  # committed before the request: a crash now re-reads
    try:
        if edit.kind == STATIONS:
            body = location_command(edit.changes)
            await client.request("POST", f"{edit.path}/{LOCATION_COMMAND}", json=body)
        else:
            await client.request("PUT", edit.path, json=edit.changes)
    except Offline:
        raise  # stays `sending`: the next replay reads the item before anything
    except APIStatusError as exc:
        queue.mark(edit.seq, FAILED, f"Refused by the platform: {exc.message}")
        return
    queue.mark(edit.seq, SENT, outcome)


async def replay_one(client: LpwaClient, queue: EditQueue, edit: Edit) -> None:
    item = await _read(client, queue, edit)
    if item is None:
        return
    now = _values(item, edit)
    if all(_equal(f, now[f], v) for f, v in edit.changes.items()):
        words = (
            "Already on the platform (sent before the console stopped): not sent again"
            if edit.state == SENDING
            else "Already so on the platform: nothing to send"
        )
        queue.mark(edit.seq, SENT, words)
    elif all(_equal(f, now[f], edit.base.get(f)) for f in edit.changes):
        if (
            edit.state == SENDING
            and edit.kind == STATIONS
            and await _location_under_way(client, edit)
        ):
            words = "Already sent (before the console stopped): the station is applying it"
            queue.mark(edit.seq, SENT, words)
            return
        await _send(client, queue, edit, "Sent")
    else:
        queue.mark(edit.seq, CONFLICT, "Changed on the platform since the snapshot", now)


async def replay(
    client: LpwaClient,
    queue: EditQueue,
    done: Callable[[Edit], None] = lambda _e: None,
) -> int:
    """Replay every waiting edit in order; `done` is told each outcome. How many were
    handled (a lost connection stops early, raising APIConnectionError)."""
    handled = 0
    for edit in queue.edits(QUEUED, SENDING):
        await replay_one(client, queue, edit)
        handled += 1
        after = queue.get(edit.seq)
        if after is not None:
            done(after)
    return handled


async def resolve(client: LpwaClient, queue: EditQueue, edit: Edit, *, mine: bool) -> None:
    """The user's choice for a conflict: keep the platform's values, or send theirs (only
    over the values they were shown: changed again meanwhile, it is a conflict again)."""
    if not mine:
        queue.mark(edit.seq, KEPT, "Kept the platform's value", edit.platform)
        return
    item = await _read(client, queue, edit)
    if item is None:
        return
    now = _values(item, edit)
    shown = edit.platform or {}
    if all(_equal(f, now[f], shown.get(f)) for f in edit.changes):
        await _send(client, queue, edit, "Sent (your value chosen over the platform's)")
    else:
        queue.mark(edit.seq, CONFLICT, "Changed on the platform again: choose again", now)
