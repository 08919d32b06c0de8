"""The API client's transport while offline: it answers from the snapshot, so every pane
browses as it does online (the same client, resources and schemas; only the HTTP below
them changes). GETs of a list are paged, sorted and filtered here (`collections`); other
GETs are the stored answers. Writes: a device's name, tags and position, and a base
station's position (its updateLocation command), go to the edit queue (`offline_edits`);
anything else is refused with the reason."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx

from . import collections
from .offline_edits import (
    DEVICES_PATH,
    LOCATION_COMMAND,
    STATIONS_PATH,
    OfflineEditor,
    OfflineRefused,
)
from .store import DEVICE_ALARMS, DEVICES, STATIONS, SnapshotStore, response_key

DEVICE_ALARMS_PATH = f"{DEVICES_PATH}/alarms"
ONE_DEVICE = re.compile(rf"^{DEVICES_PATH}/([^/]+)$")
DEVICE_ALARMS_OF = re.compile(rf"^{DEVICES_PATH}/([^/]+)/alarms$")
STATION_LOCATION = re.compile(rf"^{STATIONS_PATH}/([^/]+)/{LOCATION_COMMAND}$")
NEEDS_PLATFORM = "Offline: this needs a connection to the platform"


def _json(status: int, body: Any, request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        status,
        content=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        request=request,
    )


class SnapshotTransport(httpx.AsyncBaseTransport):
    def __init__(self, store: SnapshotStore, editor: OfflineEditor, base_path: str) -> None:
        self.store = store
        self.editor = editor
        self.base_path = base_path.rstrip("/")
        self._selections: dict[Any, list[dict[str, Any]]] = {}
        taken = store.taken_at
        self.taken_text = time.strftime("%H:%M", time.localtime(taken)) if taken else "?"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if self.base_path and path.startswith(self.base_path):
            path = path[len(self.base_path) :]
        params = list(request.url.params.multi_items())
        try:
            if request.method == "GET":
                return self._get(request, path, params)
            return self._write(request, path, params)
        except OfflineRefused as exc:
            return _json(403, {"code": 403, "message": str(exc)}, request)

    def _get(
        self, request: httpx.Request, path: str, params: list[tuple[str, str]]
    ) -> httpx.Response:
        lists = {DEVICES_PATH: DEVICES, STATIONS_PATH: STATIONS, DEVICE_ALARMS_PATH: DEVICE_ALARMS}
        kind = lists.get(path)
        if kind is not None:
            return _json(200, self._page(kind, params), request)
        if path in (f"{DEVICES_PATH}/clusters", f"{STATIONS_PATH}/clusters"):
            kind = DEVICES if path.startswith(DEVICES_PATH) else STATIONS
            return _json(200, collections.clusters(self.store.items(kind), params), request)
        owner = DEVICE_ALARMS_OF.match(path)
        if owner is not None:
            eui = self._device_eui(owner.group(1))
            alarms = [
                a
                for a in self.store.items(DEVICE_ALARMS)
                if str(a.get("device", {}).get("EUI", "")).upper() == eui
            ]
            return _json(200, collections.page(alarms, params), request)
        body = self.store.response(response_key(path, params))
        if body is None:
            message = f"Offline: not in the snapshot taken at {self.taken_text}"
            return _json(503, {"code": 503, "message": message}, request)
        return httpx.Response(
            200, content=body, headers={"Content-Type": "application/json"}, request=request
        )

    def _page(self, kind: str, params: list[tuple[str, str]]) -> dict[str, Any]:
        """A page of a list; the selection (filters and sort) is kept for the next pages
        of the same list, until an offline edit changes the items."""
        paging = ("pageIndex", "pageSize", "pageAfter")
        key = (kind, self.store.version, tuple(sorted(p for p in params if p[0] not in paging)))
        chosen = self._selections.get(key)
        items = self.store.items(kind)
        if chosen is None:
            chosen = collections.select(items, params)
            self._selections = {key: chosen}  # one kept: the list being scrolled
        return collections.page(items, params, chosen=chosen)

    def _device_eui(self, ref: str) -> str:
        if ref.startswith("e"):
            return ref[1:].upper()
        for device in self.store.items(DEVICES):
            if device.get("ref") == ref:
                return str(device.get("EUI", "")).upper()
        return ""

    def _write(
        self, request: httpx.Request, path: str, params: list[tuple[str, str]]
    ) -> httpx.Response:
        body = json.loads(request.content) if request.content else {}
        one = ONE_DEVICE.match(path)
        if request.method == "PUT" and one is not None and isinstance(body, dict):
            return _json(200, self.editor.update_device(one.group(1), body), request)
        if request.method == "POST" and path == f"{DEVICES_PATH}/tags":
            action = dict(params).get("action") or body.get("action") or "TAG"
            euis = [str(e) for e in body.get("devEUIs") or []]
            count = self.editor.tag_devices(str(body.get("name", "")), euis, action == "UNTAG")
            return _json(200, {"count": count}, request)
        located = STATION_LOCATION.match(path)
        if request.method == "POST" and located is not None and isinstance(body, dict):
            return _json(201, self.editor.update_station_location(located.group(1), body), request)
        raise OfflineRefused(NEEDS_PLATFORM)
