"""The key manager's view-models: keys encrypted on the workstation, the kinds' filters, the
import's rows encrypted before they leave."""

from __future__ import annotations

import base64
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from lpwa_console.models.key_manager import (
    encrypt_request,
    encrypt_rows,
    key_manager_kinds,
)
from lpwa_console.models.km_crypto import PublicExchangeKey, random_root_key
from lpwa_console.models.resources import ResourceViewModel
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.key_manager import KmDeviceCreate, KmDeviceFilter, KmDeviceUpdate
from lpwa_console.schema.km_import import km_row_cells, parse_km_import_csv

KEY = "000102030405060708090A0B0C0D0E0F"
NWK = "F0E0D0C0B0A090807060504030201000"
OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
PRIVATE = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PEM = (
    PRIVATE.public_key()
    .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    .decode()
)


def _open(text: str) -> str:
    return PRIVATE.decrypt(base64.b64decode(text), OAEP).hex().upper()


def test_clear_keys_are_encrypted_before_sending() -> None:
    key = PublicExchangeKey("platform-v1", PEM)
    request = KmDeviceCreate(EUI="0011223344556677", appKey=KEY, nwkKey=NWK, lorawanVersion="1.1")
    sent = encrypt_request(request, key)
    assert sent.exchangeKeyVersion == "platform-v1"
    assert sent.appKey and sent.nwkKey and KEY not in sent.appKey
    assert _open(sent.appKey) == KEY and _open(sent.nwkKey) == NWK
    assert KEY not in str(sent.to_wire()) and NWK not in str(sent.to_wire())
    # Already wrapped by an HSM key, or without a key: sent as it is.
    wrapped = KmDeviceCreate(EUI="0011223344556677", appKey="00" * 24, hsmAppKeyVersion="v1")
    assert encrypt_request(wrapped, key) is wrapped
    update = KmDeviceUpdate.model_validate({"EUI": "0011223344556677", "name": "x"})
    assert encrypt_request(update, key) is update
    changed = encrypt_request(KmDeviceUpdate(appKey=KEY), key)
    assert changed.appKey is not None and _open(changed.appKey) == KEY
    assert len(random_root_key()) == 32 and random_root_key() != random_root_key()


def test_import_rows_are_encrypted_in_their_cells() -> None:
    key = PublicExchangeKey("platform-v1", PEM)
    text = "\r\n".join(
        ",".join(cells)
        for cells in (
            km_row_cells("00112233445566D1", KEY),
            km_row_cells("00112233445566D2", "00" * 24, hsm_app_version="v1"),
            ["DELETE", "00112233445566D3"],
        )
    )
    rows = encrypt_rows(parse_km_import_csv(text), key)
    assert _open(rows[0].cell("F")) == KEY and rows[0].cell("X") == "platform-v1"
    assert rows[1].cell("F") == "00" * 24 and rows[2].cell("B") == "00112233445566D3"
    again = parse_km_import_csv("\r\n".join(",".join(r.cells) for r in rows))
    assert all(r.ok for r in again)


def test_state_filter_and_models(qtbot: Any, qtmodeltester: Any) -> None:
    kinds = {k.key: k for k in key_manager_kinds()}
    assert set(kinds) == {"km_devices", "km_as_keys", "km_hsm_groups", "km_traffic"}
    vm = ResourceViewModel(TaskRunner(), kinds["km_devices"])
    assert vm.filters == KmDeviceFilter() and not vm.filtered
    with qtbot.waitSignal(vm.filters_changed, timeout=1000):
        vm.update_filters(state="ACTIVATED")
    assert vm.filters == KmDeviceFilter(state="ACTIVATED") and vm.filtered
    kept = [ResourceViewModel(TaskRunner(), kind) for kind in kinds.values()]
    for each in kept:
        qtmodeltester.check(each.model)
