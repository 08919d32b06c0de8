"""The release workflow and the signing steps, as far as they can be checked off their OSes.

The workflow runs on the forge's Linux, Windows and macOS runners, never here; `./dev test`
validates it against the workflow schema (check-jsonschema), and these tests check what the
schema cannot: every step it runs is a `./dev` command a developer can run the same way, each
OS keeps its installers, and signing is skipped, not failed, without its secrets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import load_by_path

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


@pytest.fixture(scope="module")
def job() -> dict[str, Any]:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    (only,) = workflow["jobs"].values()
    return dict(only)


def test_every_step_run_is_a_dev_command(job: dict[str, Any]) -> None:
    runs = [step["run"] for step in job["steps"] if "run" in step]
    assert runs, "the workflow runs nothing"
    for command in runs:
        assert command.startswith("./dev ") and "\n" not in command.strip(), command
    assert "./dev test" in runs


def test_each_os_builds_and_keeps_its_installers(job: dict[str, Any]) -> None:
    matrix = {entry["name"]: entry for entry in job["strategy"]["matrix"]["include"]}
    assert set(matrix) == {"linux", "windows", "macos"}
    assert matrix["linux"]["os"].startswith("ubuntu")
    assert matrix["windows"]["os"].startswith("windows")
    assert matrix["macos"]["os"].startswith("macos")
    kept = {name: entry["installers"].split() for name, entry in matrix.items()}
    assert kept == {
        "linux": ["dist/*.tar.gz", "dist/*.deb"],
        "windows": ["dist/*.zip", "dist/*-setup.exe"],
        "macos": ["dist/*.dmg"],
    }
    upload = next(step for step in job["steps"] if "upload-artifact" in step.get("uses", ""))
    assert upload["with"]["path"] == "${{ matrix.installers }}"
    assert upload["with"]["if-no-files-found"] == "error"


def test_the_signing_step_reads_every_secret_signing_uses(job: dict[str, Any]) -> None:
    signing = load_by_path("lpwa_signing", ROOT / "packaging" / "signing.py")
    step = next(step for step in job["steps"] if "--sign" in step.get("run", ""))
    wanted = {*signing.MACOS_SIGNING, *signing.MACOS_NOTARY, *signing.WINDOWS_SIGNING}
    assert set(step["env"]) == wanted
    for name, value in step["env"].items():
        assert value == f"${{{{ secrets.{name} }}}}"


def test_signing_is_skipped_without_secrets(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    signing = load_by_path("lpwa_signing", ROOT / "packaging" / "signing.py")
    for name in (*signing.MACOS_SIGNING, *signing.MACOS_NOTARY, *signing.WINDOWS_SIGNING):
        monkeypatch.delenv(name, raising=False)
    assert signing.sign_macos_app(tmp_path / "LPWA Console.app") is False
    assert signing.notarize_macos(tmp_path / "x.dmg") is False
    assert signing.sign_windows([tmp_path / "lpwa-console.exe"]) is False
    said = capsys.readouterr().out
    assert "ad hoc signature" in said and "not notarized" in said and "not signed" in said


def test_a_failed_signing_tool_names_the_tool_not_the_secret(tmp_path: Path) -> None:
    signing = load_by_path("lpwa_signing", ROOT / "packaging" / "signing.py")
    secret = "s3cret-passphrase"
    with pytest.raises(SystemExit) as failed:
        signing.run_quiet(["false", "/p", secret])
    assert "false failed" in str(failed.value)
    assert secret not in str(failed.value)
