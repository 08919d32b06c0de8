"""Fault injection on the client's transport (respx): retries, auth renewal, error mapping.

The contract tests (tests/contract) check the same client against a live sandbox.
"""

from __future__ import annotations

import httpx
import pytest
import respx

from lpwa_console.api import (
    APIConnectionError,
    APIResponseValidationError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    Credentials,
    InternalServerError,
    LpwaClient,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    TokenError,
)
from lpwa_console.api._retry import retry_after
from lpwa_console.schema.devices import DeviceCreate

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
TOKEN_URL = "https://platform.test/token"
SUB = f"{BASE}/subscriptions/mine"
SUBSCRIPTION = {
    "options": {"hsm": "DEACTIVATED"},
    "subscription": {"grantedPermissions": ["x"]},
}


class Sleeps:
    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def token_reply(token: str = "t1", expires_in: int = 3600) -> httpx.Response:
    return httpx.Response(200, json={"access_token": token, "expires_in": expires_in})


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
async def client(sleeps: Sleeps):
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, Credentials(TOKEN_URL, "cid", "s3cret"), http=http, sleep=sleeps)


@respx.mock
async def test_token_fetched_once_and_sent(client: LpwaClient) -> None:
    token = respx.post(TOKEN_URL).mock(return_value=token_reply("abc"))
    route = respx.get(SUB).mock(return_value=httpx.Response(200, json=SUBSCRIPTION))
    await client.subscription.get()
    await client.subscription.get()
    assert token.call_count == 1
    form = token.calls[0].request.content.decode()
    assert "grant_type=client_credentials" in form and "client_id=cid" in form
    assert route.calls[0].request.headers["Authorization"] == "Bearer abc"


@respx.mock
async def test_token_renewed_before_expiry(client: LpwaClient) -> None:
    # expires_in below the renewal margin: every call needs a fresh token.
    token = respx.post(TOKEN_URL).mock(side_effect=[token_reply("a", 10), token_reply("b", 10)])
    route = respx.get(SUB).mock(return_value=httpx.Response(200, json=SUBSCRIPTION))
    await client.subscription.get()
    await client.subscription.get()
    assert token.call_count == 2
    assert route.calls[1].request.headers["Authorization"] == "Bearer b"


@respx.mock
async def test_401_renews_token_once(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(side_effect=[token_reply("old"), token_reply("new")])
    route = respx.get(SUB).mock(
        side_effect=[
            httpx.Response(401, json={"code": 401, "message": "token revoked"}),
            httpx.Response(200, json=SUBSCRIPTION),
        ]
    )
    await client.subscription.get()
    assert [c.request.headers["Authorization"] for c in route.calls] == [
        "Bearer old",
        "Bearer new",
    ]


@respx.mock
async def test_second_401_is_an_authentication_error(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    respx.get(SUB).mock(return_value=httpx.Response(401, json={"code": 7, "message": "nope"}))
    with pytest.raises(AuthenticationError) as info:
        await client.subscription.get()
    assert info.value.code == 7


@respx.mock
async def test_bad_credentials_are_a_token_error(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(
        return_value=httpx.Response(
            401, json={"error": "invalid_client", "error_description": "bad secret"}
        )
    )
    with pytest.raises(TokenError, match="bad secret"):
        await client.subscription.get()


@respx.mock
async def test_get_retried_on_5xx_then_succeeds(client: LpwaClient, sleeps: Sleeps) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    route = respx.get(SUB).mock(
        side_effect=[
            httpx.Response(503),
            httpx.Response(502),
            httpx.Response(200, json=SUBSCRIPTION),
        ]
    )
    await client.subscription.get()
    assert route.call_count == 3
    assert len(sleeps.calls) == 2 and sleeps.calls[1] > sleeps.calls[0] * 1.2


@respx.mock
async def test_get_gives_up_after_max_retries(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    route = respx.get(SUB).mock(
        return_value=httpx.Response(500, json={"code": 1, "message": "boom"})
    )
    with pytest.raises(InternalServerError, match="boom"):
        await client.subscription.get()
    assert route.call_count == client.max_retries + 1


@respx.mock
async def test_429_honours_retry_after(client: LpwaClient, sleeps: Sleeps) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    respx.get(SUB).mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "7"}),
            httpx.Response(200, json=SUBSCRIPTION),
        ]
    )
    await client.subscription.get()
    assert sleeps.calls == [7.0]


@respx.mock
async def test_get_retried_on_dropped_connection(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    route = respx.get(SUB).mock(
        side_effect=[httpx.ReadError("reset"), httpx.Response(200, json=SUBSCRIPTION)]
    )
    await client.subscription.get()
    assert route.call_count == 2


DEVICE = DeviceCreate(EUI="70B3D5E75E000001", nwAddress="01020304", appSKey="00" * 16)


@respx.mock
async def test_post_not_retried_when_it_may_have_arrived(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    route = respx.post(f"{SUB}/devices").mock(side_effect=httpx.ReadError("reset"))
    with pytest.raises(APIConnectionError, match="may or may not") as raised:
        await client.devices.create(DEVICE)
    assert route.call_count == 1
    assert raised.value.maybe_applied  # what a caller tests before anything else


@respx.mock
async def test_post_not_retried_on_5xx(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    route = respx.post(f"{SUB}/devices").mock(return_value=httpx.Response(503))
    with pytest.raises(InternalServerError):
        await client.devices.create(DEVICE)
    assert route.call_count == 1


@respx.mock
async def test_post_retried_when_connection_never_opened(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    route = respx.post(f"{SUB}/devices").mock(
        side_effect=[
            httpx.ConnectError("refused"),
            httpx.Response(201, json={"EUI": "70B3D5E75E000001", "name": "x"}),
        ]
    )
    device = await client.devices.create(DEVICE)
    assert device.EUI == "70B3D5E75E000001"
    assert route.call_count == 2


@respx.mock
async def test_connection_refused_everywhere(sleeps: Sleeps) -> None:
    async with httpx.AsyncClient() as http:
        client = LpwaClient(BASE, None, http=http, sleep=sleeps, max_retries=2)
        respx.get(SUB).mock(side_effect=httpx.ConnectError("refused"))
        with pytest.raises(APIConnectionError, match="Cannot connect") as raised:
            await client.subscription.get()
    assert len(sleeps.calls) == 2
    assert not raised.value.maybe_applied  # nothing reached the server


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, BadRequestError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, ConflictError),
        (429, RateLimitError),
    ],
)
@respx.mock
async def test_status_errors_carry_code_and_message(
    client: LpwaClient, status: int, error: type[Exception]
) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    respx.post(f"{SUB}/devices").mock(
        return_value=httpx.Response(status, json={"code": 42, "message": "EUI: already exists"})
    )
    with pytest.raises(error) as info:
        await client.devices.create(DEVICE)
    assert info.value.code == 42  # type: ignore[attr-defined]
    assert info.value.message == "EUI: already exists"  # type: ignore[attr-defined]


@respx.mock
async def test_error_without_json_body(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    respx.get(SUB).mock(return_value=httpx.Response(404, text="<html>gone</html>"))
    with pytest.raises(NotFoundError) as info:
        await client.subscription.get()
    assert info.value.code is None


@respx.mock
async def test_malformed_success_body(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    respx.get(SUB).mock(return_value=httpx.Response(200, json={"unexpected": True}))
    with pytest.raises(APIResponseValidationError, match="Subscription"):
        await client.subscription.get()


def test_retry_after_forms() -> None:
    assert retry_after(httpx.Response(429, headers={"Retry-After": "3"})) == 3.0
    assert retry_after(httpx.Response(429, headers={"Retry-After": "99999"})) == 60.0
    assert retry_after(httpx.Response(429)) is None
    dated = retry_after(
        httpx.Response(429, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})
    )
    assert dated == 0.0


def test_credentials_repr_hides_secret() -> None:
    assert "s3cret" not in repr(Credentials(TOKEN_URL, "cid", "s3cret"))


@respx.mock
async def test_token_request_retried_on_503_and_429(client: LpwaClient, sleeps: Sleeps) -> None:
    token = respx.post(TOKEN_URL).mock(
        side_effect=[
            httpx.Response(503),
            httpx.Response(429, headers={"Retry-After": "4"}),
            token_reply("after-blips"),
        ]
    )
    route = respx.get(SUB).mock(return_value=httpx.Response(200, json=SUBSCRIPTION))
    await client.subscription.get()
    assert token.call_count == 3
    assert len(sleeps.calls) == 2 and sleeps.calls[1] == 4.0
    assert route.calls[0].request.headers["Authorization"] == "Bearer after-blips"


@respx.mock
async def test_token_request_retried_on_dropped_connection(
    client: LpwaClient, sleeps: Sleeps
) -> None:
    token = respx.post(TOKEN_URL).mock(
        side_effect=[httpx.ReadError("reset"), httpx.ConnectError("refused"), token_reply()]
    )
    respx.get(SUB).mock(return_value=httpx.Response(200, json=SUBSCRIPTION))
    await client.subscription.get()
    assert token.call_count == 3 and len(sleeps.calls) == 2


@respx.mock
async def test_renewal_survives_a_blip(client: LpwaClient) -> None:
    """The hourly renewal meets a 503: the user's request still goes through."""
    token = respx.post(TOKEN_URL).mock(
        side_effect=[token_reply("a", 10), httpx.Response(503), token_reply("b", 10)]
    )
    route = respx.get(SUB).mock(return_value=httpx.Response(200, json=SUBSCRIPTION))
    await client.subscription.get()
    await client.subscription.get()
    assert token.call_count == 3
    assert route.calls[1].request.headers["Authorization"] == "Bearer b"


@respx.mock
async def test_token_request_gives_up_after_max_retries(client: LpwaClient) -> None:
    token = respx.post(TOKEN_URL).mock(return_value=httpx.Response(503))
    route = respx.get(SUB).mock(return_value=httpx.Response(200, json=SUBSCRIPTION))
    with pytest.raises(TokenError, match="503"):
        await client.subscription.get()
    assert token.call_count == client.max_retries + 1 and not route.called


@respx.mock
async def test_token_endpoint_unreachable(client: LpwaClient) -> None:
    token = respx.post(TOKEN_URL).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(APIConnectionError, match="token endpoint"):
        await client.subscription.get()
    assert token.call_count == client.max_retries + 1


@respx.mock
async def test_token_refusal_not_retried(client: LpwaClient, sleeps: Sleeps) -> None:
    token = respx.post(TOKEN_URL).mock(
        return_value=httpx.Response(400, json={"error": "invalid_client"})
    )
    with pytest.raises(TokenError, match="invalid_client"):
        await client.subscription.get()
    assert token.call_count == 1 and sleeps.calls == []


@respx.mock
async def test_post_timeout_says_it_may_have_been_applied(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    route = respx.post(f"{SUB}/devices").mock(side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(APITimeoutError, match="may or may not have been applied") as raised:
        await client.devices.create(DEVICE)
    assert route.call_count == 1
    assert raised.value.maybe_applied


@respx.mock
async def test_get_timeout_retried_then_plain_message(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    route = respx.get(SUB).mock(side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(APITimeoutError) as info:
        await client.subscription.get()
    assert info.value.message == "The server did not answer in time"
    assert route.call_count == client.max_retries + 1


@respx.mock
async def test_post_retried_when_no_pooled_connection_freed(client: LpwaClient) -> None:
    respx.post(TOKEN_URL).mock(return_value=token_reply())
    route = respx.post(f"{SUB}/devices").mock(
        side_effect=[
            httpx.PoolTimeout("pool full"),
            httpx.Response(201, json={"EUI": "70B3D5E75E000001", "name": "x"}),
        ]
    )
    device = await client.devices.create(DEVICE)
    assert device.EUI == "70B3D5E75E000001" and route.call_count == 2


def _ssl_verifies(http: httpx.AsyncClient, url: str) -> bool:
    """Whether the transport `http` would use for `url` verifies certificates (httpx's pool)."""
    import ssl

    context = http._transport_for_url(httpx.URL(url))._pool._ssl_context  # type: ignore[attr-defined]
    return bool(context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname)


async def test_a_plain_http_client_has_no_tls_and_refuses_https() -> None:
    # The embedded sandbox: its client makes no SSL context (the CA bundle's load was ~40 ms
    # of every sign-in), and an https URL is refused, never asked unverified.
    client = LpwaClient(
        "http://127.0.0.1:9/rest", Credentials("http://127.0.0.1:9/token", "cid", "s3cret")
    )
    try:
        with pytest.raises(httpx.ConnectError, match="HTTPS was not expected"):
            await client._http.get("https://platform.test/rest")
    finally:
        await client.aclose()


async def test_https_urls_are_verified() -> None:
    for base, token in [
        (BASE, TOKEN_URL),
        ("http://127.0.0.1:9/rest", TOKEN_URL),  # one https URL: the client verifies
    ]:
        client = LpwaClient(base, Credentials(token, "cid", "s3cret"))
        try:
            assert _ssl_verifies(client._http, "https://platform.test/rest")
        finally:
            await client.aclose()
    unverified = LpwaClient(BASE, Credentials(TOKEN_URL, "cid", "s3cret"), verify=False)
    try:
        assert not _ssl_verifies(unverified._http, "https://platform.test/rest")
    finally:
        await unverified.aclose()
