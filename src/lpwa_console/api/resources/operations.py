"""The operator's operations: `/admins/operators/{operatorUid}` HSM groups, provisioning and
command queues, SIM cards and devices (`operator` is `mine` by default)."""

from __future__ import annotations

from ...schema.common import path_segment
from ...schema.operations import (
    CommandQueueFilter,
    CommandQueueItem,
    CommandQueuePage,
    OperatorDeviceFilter,
    OperatorDevicePage,
    OperatorHsmGroup,
    OperatorHsmGroupCreate,
    OperatorHsmGroupPage,
    OperatorHsmGroupUpdate,
    ProvisioningQueueFilter,
    ProvisioningQueueItem,
    ProvisioningQueuePage,
    SimCardFilter,
    SimCardPage,
)
from ..pagination import Params, page_params
from ._resource import APIResource

MINE = "mine"


def _sort(descending: bool) -> Params:
    """The queues' one criterion; newest first is the server's default."""
    return [] if descending else [("sort", "creationTimestamp,asc")]


class OperationsResource(APIResource):
    def _base(self, operator: str) -> str:
        return f"/admins/operators/{path_segment(operator)}"

    # --- provisioning queue -----------------------------------------------------------------

    async def provisioning_queue(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: ProvisioningQueueFilter | None = None,
        descending: bool = True,
        operator: str = MINE,
    ) -> ProvisioningQueuePage:
        params = page_params(page_index, page_size) + _sort(descending)
        params += filters.to_params() if filters else []
        return await self._client.get(
            f"{self._base(operator)}/provqueues", ProvisioningQueuePage, params=params
        )

    async def provisioning_item(self, uid: str, *, operator: str = MINE) -> ProvisioningQueueItem:
        return await self._client.get(
            f"{self._base(operator)}/provqueues/{path_segment(uid)}", ProvisioningQueueItem
        )

    # --- command queue ------------------------------------------------------------------------

    async def command_queue(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: CommandQueueFilter | None = None,
        descending: bool = True,
        operator: str = MINE,
    ) -> CommandQueuePage:
        params = page_params(page_index, page_size) + _sort(descending)
        params += filters.to_params() if filters else []
        return await self._client.get(
            f"{self._base(operator)}/cmdqueues", CommandQueuePage, params=params
        )

    async def command(self, uid: str, *, operator: str = MINE) -> CommandQueueItem:
        return await self._client.get(
            f"{self._base(operator)}/cmdqueues/{path_segment(uid)}", CommandQueueItem
        )

    # --- SIM cards and devices ----------------------------------------------------------------

    async def sims(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: SimCardFilter | None = None,
        operator: str = MINE,
    ) -> SimCardPage:
        params = page_params(page_index, page_size) + (filters.to_params() if filters else [])
        return await self._client.get(f"{self._base(operator)}/sims", SimCardPage, params=params)

    async def devices(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: OperatorDeviceFilter | None = None,
        operator: str = MINE,
    ) -> OperatorDevicePage:
        params = page_params(page_index, page_size) + (filters.to_params() if filters else [])
        return await self._client.get(
            f"{self._base(operator)}/devices", OperatorDevicePage, params=params
        )

    # --- HSM groups ---------------------------------------------------------------------------

    async def hsm_groups(
        self, page_index: int = 1, page_size: int = 100, *, operator: str = MINE
    ) -> OperatorHsmGroupPage:
        return await self._client.get(
            f"{self._base(operator)}/hsmGroups",
            OperatorHsmGroupPage,
            params=page_params(page_index, page_size),
        )

    async def hsm_group(self, group: str, *, operator: str = MINE) -> OperatorHsmGroup:
        """`group`: its UID, or `id:` + its ID."""
        return await self._client.get(
            f"{self._base(operator)}/hsmGroups/{path_segment(group)}", OperatorHsmGroup
        )

    async def create_hsm_group(
        self, group: OperatorHsmGroupCreate, *, operator: str = MINE
    ) -> OperatorHsmGroup:
        return await self._client.post(
            f"{self._base(operator)}/hsmGroups", OperatorHsmGroup, json=group.to_wire()
        )

    async def update_hsm_group(
        self, group: str, update: OperatorHsmGroupUpdate, *, operator: str = MINE
    ) -> OperatorHsmGroup:
        return await self._client.put(
            f"{self._base(operator)}/hsmGroups/{path_segment(group)}",
            OperatorHsmGroup,
            json=update.to_wire(),
        )
