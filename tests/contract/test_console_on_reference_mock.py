"""The console's self-test with a mock of the 7.3 reference as its platform (issue 22): a
remote profile whose URLs point at `platform_shim` (the token endpoint, and the two Prism
mocks behind one base URL). Every pane of the account opens, shows what the mock answers and
says what the platform does not offer; the self-test then exits 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lpwa_console.models.profiles import MemorySecretStore, Profile, ProfileStore
from lpwa_console.startup import make_settings

from .prism import DEVICE_MANAGER, NETWORK_MANAGER, ROOT, TOKEN_PATH, platform_shim, prism_mock

pytestmark = [pytest.mark.reference_mock, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def platform() -> Iterator[str]:
    with (
        prism_mock(DEVICE_MANAGER) as subscriber,
        prism_mock(NETWORK_MANAGER) as partner,
        platform_shim(subscriber, partner) as url,
    ):
        yield url


def self_test(platform: str, data_dir: Path, role: str) -> dict[str, Any]:
    settings = make_settings(data_dir)
    name = f"Reference mock ({role})"
    profile = Profile(
        name=name,
        role=role,
        subscriber_url=platform,
        token_url=platform + TOKEN_PATH,
        client_id="reference-mock",
    )
    ProfileStore(settings, MemorySecretStore()).save(profile)
    settings.sync()
    env = dict(os.environ)
    env.pop("LPWA_STRICT_RESPONSES", None)  # the console reads a platform tolerantly
    env["PYTHON_KEYRING_BACKEND"] = "tests.contract.mock_keyring.FixedSecret"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["QT_QPA_PLATFORM"] = "offscreen"
    command = [sys.executable, "-m", "lpwa_console", "--self-test"]
    done = subprocess.run(
        [*command, "--data-dir", str(data_dir), "--profile", name],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=240,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stdout + done.stderr
    result: dict[str, Any] = json.loads(lines[-1])
    assert done.returncode == 0 and result["ok"], (result, done.stderr[-3000:])
    return result


def test_a_subscriber_on_the_reference_mock(platform: str, tmp_path: Path) -> None:
    result = self_test(platform, tmp_path, "subscriber")
    panes = result["panes"]
    assert {"devices", "network"} <= set(panes), panes
    network = panes["network"]
    assert network["network_contexts"] == {
        "not_offered": "This platform does not offer cellular network contexts"
    }
    assert network["hsm_groups"] == {"not_offered": "This platform does not offer HSM groups"}
    assert network["network_subscriptions"]["rows"] > 0
    assert panes["devices"]["rows"] > 0 and panes["app_servers"]["app_servers"]["rows"] > 0
    assert panes["multicast"]["multicast"]["rows"] > 0 and panes["alarms"]["rows"] > 0
    assert all("not_offered" in part for part in panes["key_manager"].values()), panes


def test_a_partner_on_the_reference_mock(platform: str, tmp_path: Path) -> None:
    result = self_test(platform, tmp_path, "partner")
    panes = result["panes"]
    assert panes["stations"]["rows"] > 0, panes
