"""The .deb's contents, built from a small stand-in bundle (the real one is built, installed,
self-tested and removed by `./dev test` through packaging/build.py --check)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers import load_by_path

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def deb_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = load_by_path("lpwa_debian_package", ROOT / "packaging" / "debian_package.py")
    monkeypatch.setattr(module, "DIST", tmp_path / "dist")
    (tmp_path / "dist").mkdir()
    return module


def stand_in_bundle(folder: Path, script: str) -> Path:
    bundle = folder / "lpwa-console"
    (bundle / "_internal").mkdir(parents=True)
    (bundle / "_internal" / "data.txt").write_text("carried")
    console = bundle / "lpwa-console"
    console.write_text(script)
    console.chmod(0o755)
    return bundle


def test_the_tree_puts_the_bundle_under_opt_with_command_entry_and_icon(
    deb_module: ModuleType, tmp_path: Path
) -> None:
    bundle = stand_in_bundle(tmp_path, "#!/bin/sh\n")
    root = tmp_path / "root"
    deb_module.stage(bundle, root, "1.2.3")
    assert (root / "opt/lpwa-console/_internal/data.txt").read_text() == "carried"
    assert os.readlink(root / "usr/bin/lpwa-console") == "/opt/lpwa-console/lpwa-console"
    entry = (root / "usr/share/applications/lpwa-console.desktop").read_text()
    assert "Exec=lpwa-console\n" in entry and "Icon=lpwa-console\n" in entry
    assert (root / "usr/share/icons/hicolor/scalable/apps/lpwa-console.svg").is_file()
    control = (root / "DEBIAN/control").read_text()
    assert "Package: lpwa-console\nVersion: 1.2.3\n" in control
    assert "libxcb-cursor0" in control and "Installed-Size: " in control


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb: Debian and Ubuntu only")
def test_installs_runs_and_removes_in_a_scratch_root(
    deb_module: ModuleType, tmp_path: Path
) -> None:
    # The stand-in console answers --self-test as the real one does.
    script = '#!/bin/sh\necho \'{"ok": true, "args": "\'"$*"\'"}\'\n'
    bundle = stand_in_bundle(tmp_path, script)
    deb = deb_module.debian_package(bundle, "1.2.3")
    assert deb is not None and deb.name.startswith("lpwa-console_1.2.3_")
    listing = subprocess.run(["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True)
    assert "./opt/lpwa-console/lpwa-console" in listing.stdout
    assert "root/root" in listing.stdout  # owned by root, whoever built it

    started = []

    def self_test(binary: Path) -> dict[str, object]:
        started.append(binary)
        done = subprocess.run([str(binary), "--self-test"], capture_output=True, text=True)
        return {"ok": '"ok": true' in done.stdout}

    result = deb_module.install_check(deb, self_test)
    assert result == {"installed_self_test_ok": True, "removed_cleanly": True}
    assert started and started[0].parts[-3:] == ("opt", "lpwa-console", "lpwa-console")


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb: Debian and Ubuntu only")
def test_a_failing_installed_console_fails_the_check(
    deb_module: ModuleType, tmp_path: Path
) -> None:
    bundle = stand_in_bundle(tmp_path, "#!/bin/sh\nexit 3\n")
    deb = deb_module.debian_package(bundle, "1.2.3")

    def self_test(binary: Path) -> dict[str, object]:
        done = subprocess.run([str(binary), "--self-test"])
        if done.returncode != 0:
            raise SystemExit("the installed console failed its self-test")
        return {"ok": True}

    with pytest.raises(SystemExit, match="failed its self-test"):
        deb_module.install_check(deb, self_test)
