"""The catalog import and the RF region logo cannot take the sandbox down (issue 21 §3): a
gzip bomb is stopped at its bound with a clear 413, a logo is read whole and bounded, and
served back with nosniff."""

from __future__ import annotations

import gzip
import json
import zlib
from typing import Any

import pytest

from lpwa_console.sandbox.routes import catalogs as route
from lpwa_console.schema.images import MAX_SIDE

from ..images import jpeg, png
from .conftest import API, Sandbox

OP = f"{API}/admins/operators/mine"


def _post(sb: Sandbox, path: str, **kw: Any) -> Any:
    return sb.post(OP + path, "operator", **kw)


def _bomb(unpacked_mb: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
    zeros = b"\x00" * (1 << 20)
    return b"".join(packer.compress(zeros) for _ in range(unpacked_mb)) + packer.flush()


def test_a_gzip_bomb_is_stopped_at_its_ratio(sb: Sandbox) -> None:
    bomb = _bomb(64)  # ~64 KB unpacking to 64 MB: stopped at 100 times its size
    response = _post(sb, "/deviceProfiles/catalog", content=bomb)
    assert response.status_code == 413, response.text
    assert response.json()["code"] == 41300
    assert "unpacks to more than 6 MB" in response.json()["message"]
    assert "100 times its compressed size" in response.json()["message"]


def test_a_gzip_file_is_stopped_at_the_absolute_bound(
    sb: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(route, "MAX_CATALOG_BYTES", 4 * 1024 * 1024)
    monkeypatch.setattr(route, "MAX_GZIP_RATIO", 10_000)
    response = _post(sb, "/deviceProfiles/catalog", content=_bomb(16))
    assert response.status_code == 413
    assert "unpacks to more than 4 MB" in response.json()["message"]


def test_a_cut_gzip_file_is_a_400(sb: Sandbox) -> None:
    whole = gzip.compress(json.dumps({"format": "lpwa-catalog/1"}).encode() * 50)
    response = _post(sb, "/deviceProfiles/catalog", content=whole[: len(whole) // 2])
    assert response.status_code == 400
    assert "not a readable gzip file" in response.json()["message"]


def _region(sb: Sandbox) -> str:
    made = _post(sb, "/rfRegions", json={"ID": "KR920_L", "name": "KR", "ismBand": "kr920"})
    assert made.status_code == 201, made.text
    return str(made.json()["href"].rsplit("/", 1)[1])


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (png() + b"<html><script>alert(1)</script></html>", "follows the PNG's IEND"),
        (png(100_000, 100_000, rows=b"\x00" * 10), "100000x100000 pixels"),
        (b"\xff\xd8\xff\xe0" + bytes((i * 7919 + 13) % 251 for i in range(5000)), "JPEG"),
        (jpeg(MAX_SIDE * 2, 10), "pixels"),
    ],
)
def test_a_logo_that_is_not_a_whole_small_image_is_refused(
    sb: Sandbox, data: bytes, words: str
) -> None:
    uid = _region(sb)
    response = _post(sb, f"/rfRegions/{uid}/logo", files={"file": ("l.png", data, "image/png")})
    assert response.status_code == 400, response.text
    assert response.json()["message"].startswith("file: ") and words in response.json()["message"]


@pytest.mark.parametrize("data", [png(), jpeg()])
def test_a_logo_is_served_with_nosniff(sb: Sandbox, data: bytes) -> None:
    uid = _region(sb)
    assert _post(sb, f"/rfRegions/{uid}/logo", content=data).status_code == 201
    got = sb.get(f"{OP}/rfRegions/{uid}/logo", "operator")
    assert got.content == data
    assert got.headers["x-content-type-options"] == "nosniff"
