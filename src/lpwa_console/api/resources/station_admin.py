"""Remote administration of a base station: `/partners/{partner}/bss/{bsUid}/admins/...`
(the 19 commands, the support password, settings, the last command's status and the status
readings a command dialog follows)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...schema.common import ApiModel
from ...schema.station_admin import (
    COMMANDS,
    STATUS_MODELS,
    AdminSettings,
    AdminSettingsState,
    CommandAccepted,
    CommandBody,
    CommandHistory,
    LastCmdStatus,
    SupportPasswordChange,
    parse_command,
)
from ._resource import APIResource
from ._stations_path import station_path


class StationAdminResource(APIResource):
    async def command(
        self,
        bs_uid: str | int,
        name: str,
        params: CommandBody | Mapping[str, Any] | None = None,
        *,
        partner: str = "mine",
    ) -> CommandAccepted:
        """POST admins/{name} (201). `params` is checked by the command's model first, so a
        mistake is named before anything is sent; an unknown command is a ValueError."""
        if name not in COMMANDS:
            raise ValueError(f"unknown base station command {name!r}")
        body = params if isinstance(params, CommandBody) else parse_command(name, params)
        path = f"{station_path(bs_uid, partner)}/admins/{name}"
        return await self._client.post(path, CommandAccepted, json=body.to_wire())

    async def status(self, bs_uid: str | int, name: str, *, partner: str = "mine") -> ApiModel:
        """GET admins/{name} for one of STATUS_NAMES (swVersion, rfcStatus, ...)."""
        model = STATUS_MODELS.get(name)
        if model is None:
            raise ValueError(f"unknown base station status {name!r}")
        return await self._client.get(f"{station_path(bs_uid, partner)}/admins/{name}", model)

    async def last_command_status(
        self, bs_uid: str | int, *, partner: str = "mine"
    ) -> LastCmdStatus:
        path = f"{station_path(bs_uid, partner)}/admins/lastCmdStatus"
        return await self._client.get(path, LastCmdStatus)

    async def command_history(
        self, bs_uid: str | int, *, limit: int = 20, partner: str = "mine"
    ) -> CommandHistory:
        """GET admins/commandHistory: the sandbox's own (a platform without it answers 404;
        lastCmdStatus is then the only history)."""
        path = f"{station_path(bs_uid, partner)}/admins/commandHistory"
        return await self._client.get(path, CommandHistory, params={"limit": limit})

    async def change_support_password(
        self, bs_uid: str | int, change: SupportPasswordChange, *, partner: str = "mine"
    ) -> None:
        """POST admins/changeSupportPassword (LRR_LINUX stations only). The password goes in
        the body only; the client never logs a body."""
        path = f"{station_path(bs_uid, partner)}/admins/changeSupportPassword"
        await self._client.request("POST", path, json=change.to_wire())

    async def settings(
        self, bs_uid: str | int, settings: AdminSettings, *, partner: str = "mine"
    ) -> AdminSettingsState:
        """PUT admins/settings."""
        path = f"{station_path(bs_uid, partner)}/admins/settings"
        return await self._client.put(path, AdminSettingsState, json=settings.to_wire())
