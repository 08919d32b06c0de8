"""Network partners: `/partners/{partnerUid}` (`mine` by default: the caller's partner)."""

from __future__ import annotations

from ...schema.common import path_segment
from ...schema.partners import Partner, PartnerUpdate
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
