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
from ..pagination import IndexPaginator
from ._resource import APIResource

BASE = "/subscriptions/mine/appServers"


class AppServersResource(APIResource):
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
        params = [("pageIndex", str(page_index)), ("pageSize", str(page_size))]
        params += (filters or AppServerFilter()).to_params()
        if sort:
            params.append(("sort", f"{sort},{'desc' if descending else 'asc'}"))
        return await self._client.get(BASE, AppServerPage, params=params)

    def iterate(
        self, *, filters: AppServerFilter | None = None, page_size: int = 500
    ) -> IndexPaginator[AppServerBrief]:
        async def fetch(index: int, size: int) -> AppServerPage:
            return await self.list(index, size, filters=filters)

        return IndexPaginator(fetch, page_size)

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
