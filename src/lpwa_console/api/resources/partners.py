"""Network partners: `/partners/{partnerUid}` (`mine` by default: the caller's partner)."""

from __future__ import annotations

from ...schema.common import path_segment
from ...schema.partners import (
    OperatorPartnerUpdate,
    Partner,
    PartnerCreate,
    PartnerPage,
    PartnerUpdate,
    StationCreditTransactions,
)
from ...schema.stations import BaseStation, BaseStationUpdate
from ..pagination import page_params
from ._resource import APIResource

MINE = "mine"


def partner_path(partner: str = MINE) -> str:
    """`/partners/mine`, or the partner's UID, `id:sub:` + subscriber ID, `id:sup:` + ID."""
    return f"/partners/{path_segment(partner)}"


class PartnersResource(APIResource):
    async def get(self, partner: str = MINE) -> Partner:
        return await self._client.get(partner_path(partner), Partner)

    async def update(self, update: PartnerUpdate, partner: str = MINE) -> Partner:
        return await self._client.put(partner_path(partner), Partner, json=update.to_wire())


class OperatorPartnersResource(APIResource):
    """The operator's view of partners: `/admins/operators/{operatorUid}/partners...`
    (`operator` is `mine` by default)."""

    def _base(self, operator: str) -> str:
        return f"/admins/operators/{path_segment(operator)}/partners"

    async def list(
        self, page_index: int = 1, page_size: int = 100, *, operator: str = MINE
    ) -> PartnerPage:
        params = page_params(page_index, page_size)
        return await self._client.get(self._base(operator), PartnerPage, params=params)

    async def create(self, partner: PartnerCreate, *, operator: str = MINE) -> Partner:
        return await self._client.post(self._base(operator), Partner, json=partner.to_wire())

    async def get(self, partner: str, *, operator: str = MINE) -> Partner:
        return await self._client.get(f"{self._base(operator)}/{path_segment(partner)}", Partner)

    async def update(
        self, partner: str, update: OperatorPartnerUpdate, *, operator: str = MINE
    ) -> Partner:
        return await self._client.put(
            f"{self._base(operator)}/{path_segment(partner)}", Partner, json=update.to_wire()
        )

    async def station(self, partner: str, station: str, *, operator: str = MINE) -> BaseStation:
        """A partner's station in the operator view (some configuration strings hidden)."""
        return await self._client.get(
            f"{self._base(operator)}/{path_segment(partner)}/stations/{path_segment(station)}",
            BaseStation,
        )

    async def update_station(
        self, partner: str, station: str, update: BaseStationUpdate, *, operator: str = MINE
    ) -> BaseStation:
        return await self._client.put(
            f"{self._base(operator)}/{path_segment(partner)}/stations/{path_segment(station)}",
            BaseStation,
            json=update.to_wire(),
        )

    async def credit_transactions(
        self, partner: str, page_index: int = 1, page_size: int = 100, *, operator: str = MINE
    ) -> StationCreditTransactions:
        params = page_params(page_index, page_size)
        return await self._client.get(
            f"{self._base(operator)}/{path_segment(partner)}/stationCreditTransactions",
            StationCreditTransactions,
            params=params,
        )
