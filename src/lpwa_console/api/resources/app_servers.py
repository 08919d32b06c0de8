"""Application servers: `/subscriptions/mine/appServers`.

`server` arguments are a UID (scope SUBSCRIPTION only) or `id:` + ID (any scope; see
schema.app_servers.app_server_ref); they are percent-encoded (`id:a/b` -> `id%3Aa%2Fb`).
"""

from __future__ import annotations

from ...schema.app_servers import (
    AppServer,
    AppServerBrief,
    AppServerCreate,
    AppServerFilter,
    AppServerIotFlowConnectorMetrics,
    AppServerPage,
    AppServerUpdate,
    SecurityAppServer,
    SecurityAppServerUpdate,
)
from ...schema.common import path_segment
from ..pagination import Paginator, Params, page_params, sort_params
from ._resource import APIResource

BASE = "/subscriptions/mine/appServers"


class AppServersResource(APIResource):
    async def _page(self, params: Params) -> AppServerPage:
        return await self._client.get(BASE, AppServerPage, params=params)

    async def list(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: AppServerFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
    ) -> AppServerPage:
        """Without a scope filter the platform lists SUBSCRIPTION servers only; pass
        schema.app_servers.ALL_SCOPES for both."""
        query = (filters or AppServerFilter()).to_params() + sort_params(sort, descending)
        return await self._page(page_params(page_index, page_size) + query)

    def iterate(
        self, *, filters: AppServerFilter | None = None, page_size: int = 500
    ) -> Paginator[AppServerBrief]:
        query = (filters or AppServerFilter()).to_params()
        return Paginator(self._page, query, page_size=page_size)

    async def get(self, server: str | int) -> AppServer:
        return await self._client.get(f"{BASE}/{path_segment(server)}", AppServer)

    async def create(self, server: AppServerCreate) -> AppServer:
        """POST (201)."""
        return await self._client.post(BASE, AppServer, json=server.to_wire())

    async def update(self, server: str | int, update: AppServerUpdate) -> AppServer:
        """OPERATOR-scope servers are refused by the platform."""
        return await self._client.put(
            f"{BASE}/{path_segment(server)}", AppServer, json=update.to_wire()
        )

    async def delete(self, server: str | int) -> None:
        await self._client.delete(f"{BASE}/{path_segment(server)}")

    async def security(self, server: str | int) -> SecurityAppServer:
        return await self._client.get(f"{BASE}/{path_segment(server)}/security", SecurityAppServer)

    async def update_security(
        self, server: str | int, update: SecurityAppServerUpdate
    ) -> SecurityAppServer:
        return await self._client.put(
            f"{BASE}/{path_segment(server)}/security", SecurityAppServer, json=update.to_wire()
        )

    async def iot_flow_connector_metrics(
        self, server: str | int
    ) -> AppServerIotFlowConnectorMetrics:
        return await self._client.get(
            f"{BASE}/{path_segment(server)}/iotFlowConnector/metrics",
            AppServerIotFlowConnectorMetrics,
        )
