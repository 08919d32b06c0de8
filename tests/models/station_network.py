"""A scripted network of stations for the command-run tests: answers as the reference's
admin endpoints do (201 for a command, lastCmdStatus moving PENDING -> PROCESSING -> an
outcome over a few reads, status endpoints), with faults chosen per station."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

import httpx

from lpwa_console.api import APIConnectionError, BadRequestError
from lpwa_console.models.station_command_catalogue import command_spec


@dataclass
class Station:
    outcome: str = "COMPLETED"  # the final lastCmdCompletionStatus
    refuse: str = ""  # a 400 message for the POST
    drop: str = ""  # "after" (applied, answer lost), "before-apply" (lost, not applied)
    never_ends: bool = False  # stays PROCESSING
    reads: int = 0  # lastCmdStatus reads since the command
    last: dict[str, Any] = field(default_factory=dict)
    posts: int = 0


class StationNetwork:
    """`command`, `status`, `last_command_status` as `client.station_admin` has them."""

    def __init__(self, stations: dict[str, Station], *, steps: int = 2) -> None:
        self.stations = stations
        self.steps = steps  # reads in PENDING, then PROCESSING, before the outcome
        self.ids = itertools.count(100)
        self.in_flight = 0
        self.most_in_flight = 0
        self.posts: list[tuple[str, str, dict[str, Any]]] = []

    async def _hop(self) -> None:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.001)
        finally:
            self.in_flight -= 1

    async def change_support_password(self, bs_uid: str, change: Any) -> Any:
        return await self.command(bs_uid, "changeSupportPassword", change)

    async def command(self, bs_uid: str, name: str, params: Any) -> Any:
        await self._hop()
        if name == "changeSupportPassword":  # what the real client puts in the body
            params = {"password": params.password.get_secret_value()}
        elif hasattr(params, "to_wire"):
            params = params.to_wire()
        station = self.stations[bs_uid]
        request = httpx.Request("POST", f"http://sandbox/bss/{bs_uid}/admins/{name}")
        station.posts += 1
        if station.refuse:
            response = httpx.Response(400, request=request)
            raise BadRequestError(station.refuse, response=response, code=40000)
        if station.drop == "before-apply":
            station.drop = ""  # a later explicit send goes through
            raise APIConnectionError(
                "Connection lost during POST (it may or may not have been applied)",
                request=request,
                maybe_applied=True,
            )
        self.posts.append((bs_uid, name, params))
        station.reads = 0
        station.last = {
            "lastCmdID": next(self.ids),
            "lastCmdType": (command_spec(name).command_types or ("",))[0],
            "lastCmdRequestDate": 1_700_000_000_000 + len(self.posts),
            "lastCmdCompletionStatus": "PENDING",
            "now": 1,
        }
        if station.drop == "after":
            station.drop = ""
            raise APIConnectionError(
                "Connection lost during POST (it may or may not have been applied)",
                request=request,
                maybe_applied=True,
            )
        return {}

    async def last_command_status(self, bs_uid: str) -> Any:
        await self._hop()
        station = self.stations[bs_uid]
        if not station.last:
            return {"now": 1}
        station.reads += 1
        answer = dict(station.last)
        if station.reads > 2 * self.steps and not station.never_ends:
            answer["lastCmdCompletionStatus"] = station.outcome
            if station.outcome == "ERR_EXEC":
                answer["lastCmdCompletionData"] = "\nupgrade: package checksum mismatch\nmore"
        elif station.reads > self.steps:
            answer["lastCmdCompletionStatus"] = "PROCESSING"
        return answer

    async def status(self, bs_uid: str, name: str) -> Any:
        await self._hop()
        if name == "rfcStatus":
            return {"rfcellState": 2, "completionStatus": "COMPLETED"}
        if name == "systemUptime":
            return {"lastsystemReboot": 1_700_000_000_000}
        if name == "logStatus":
            return {"traceLevel": 2, "completionStatus": "COMPLETED"}
        if name == "antennasGainAndLossStatus":
            return {"chains": [{"index": 0, "name": "A1", "gain": 3.0, "cableLoss": 0.5}]}
        if name == "availableLrrVersions":
            return {"briefs": [{"version": "2.4.18"}, {"version": "2.10.1"}]}
        return {}
