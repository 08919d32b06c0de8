"""The Linux .deb: the bundle under /opt, a command on the PATH, a desktop entry with an icon.

`debian_package` builds it with dpkg-deb (from dpkg, on every Debian and Ubuntu; elsewhere the
tar.gz is the download). `install_check` installs it with dpkg into a scratch root of its own
(`--root`, `--admindir`: no root rights, nothing touched outside the folder), starts the
installed console's self-test, removes the package and checks that its files are gone while
the user's data folder stays.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
NAME = "lpwa-console"
INSTALL_DIR = Path("opt") / NAME
ICON = ROOT / "resources" / "icons" / f"{NAME}.svg"
# The desktop base the bundle takes from the system (the spec's SYSTEM_BASE, and Qt's xcb
# platform libraries that it never carried), by Debian package name.
DEB_DEPENDS = (
    "libc6 (>= 2.31)",
    "libx11-6",
    "libx11-xcb1",
    "libxcb1",
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-image0",
    "libxcb-keysyms1",
    "libxcb-randr0",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxcb-xinerama0",
    "libxcb-xkb1",
    "libxkbcommon-x11-0",
    "libfontconfig1",
    "libfreetype6",
    "libglib2.0-0",
    "libdbus-1-3",
)
DESKTOP_ENTRY = """[Desktop Entry]
Type=Application
Name=LPWA Console
GenericName=IoT network console
Comment=Manage LoRaWAN and cellular IoT networks: devices, base stations, alarms, keys
Exec=lpwa-console
Icon=lpwa-console
Terminal=false
Categories=Network;Monitor;Qt;
Keywords=LoRaWAN;IoT;LPWA;ThingPark;devices;gateways;
StartupWMClass=lpwa-console
"""


def deb_architecture() -> str:
    machine = platform.machine().lower()
    return {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "armhf"}.get(machine, machine)


def control(version: str, installed_kb: int) -> str:
    return (
        f"Package: {NAME}\n"
        f"Version: {version}\n"
        f"Architecture: {deb_architecture()}\n"
        "Maintainer: LPWA Console developers <console@lpwa-console.invalid>\n"
        f"Installed-Size: {installed_kb}\n"
        f"Depends: {', '.join(DEB_DEPENDS)}\n"
        "Section: net\n"
        "Priority: optional\n"
        "Description: desktop console for LoRaWAN and cellular IoT networks\n"
        " Devices, multicast groups, application servers, base stations, alarms, the key\n"
        " manager and the map of a ThingPark-style platform, with an embedded sandbox\n"
        " platform to learn and test on.\n"
    )


def stage(bundle: Path, root: Path, version: str) -> None:
    """The package's file tree under `root`: hard links to the bundle where the disk allows."""
    target = root / INSTALL_DIR
    target.parent.mkdir(parents=True)
    try:
        shutil.copytree(bundle, target, symlinks=True, copy_function=os.link)
    except OSError:  # another file system: copy
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(bundle, target, symlinks=True)
    (root / "usr" / "bin").mkdir(parents=True)
    (root / "usr" / "bin" / NAME).symlink_to(Path("/") / INSTALL_DIR / NAME)
    applications = root / "usr" / "share" / "applications"
    applications.mkdir(parents=True)
    (applications / f"{NAME}.desktop").write_text(DESKTOP_ENTRY)
    icons = root / "usr" / "share" / "icons" / "hicolor" / "scalable" / "apps"
    icons.mkdir(parents=True)
    shutil.copyfile(ICON, icons / f"{NAME}.svg")
    size_kb = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) // 1024
    (root / "DEBIAN").mkdir()
    (root / "DEBIAN" / "control").write_text(control(version, size_kb))


def debian_package(bundle: Path, version: str) -> Path | None:
    """dist/lpwa-console_VERSION_ARCH.deb, or None where dpkg-deb is missing."""
    if shutil.which("dpkg-deb") is None:
        print("package: dpkg-deb not found; no .deb (the tar.gz is the download)")
        return None
    out = DIST / f"{NAME}_{version}_{deb_architecture()}.deb"
    with tempfile.TemporaryDirectory(prefix="lpwa-deb-", dir=DIST) as tmp:
        root = Path(tmp) / "root"
        stage(bundle, root, version)
        # gzip: a third of xz's build time for a few MB more (the bundle is compressed code).
        command = ["dpkg-deb", "--root-owner-group", "-Zgzip", "-z6", "--build", str(root)]
        subprocess.run([*command, str(out)], check=True, stdout=subprocess.DEVNULL)
    return out


def dpkg(root: Path, *args: str) -> None:
    command = ["dpkg", "--force-not-root", "--force-script-chrootless", f"--root={root}"]
    command += [f"--admindir={root / 'var/lib/dpkg'}", "--log=/dev/null", *args]
    # Quiet unless it fails: the scratch root's missing dependencies are expected news.
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"package: dpkg {args[-2:]} failed: {done.stderr[-3000:]}")


def install_check(deb: Path, self_test: Callable[[Path], dict[str, object]]) -> dict[str, object]:
    """Install, self-test, remove: in a scratch root; raises SystemExit on any failure."""
    with tempfile.TemporaryDirectory(prefix="lpwa-deb-check-") as tmp:
        root = Path(tmp)
        admin = root / "var" / "lib" / "dpkg"
        (admin / "info").mkdir(parents=True)
        (admin / "updates").mkdir()
        (admin / "status").touch()
        # The scratch root's dpkg database is empty: its dependencies are the host's libraries
        # (a user's `apt install ./lpwa-console_*.deb` fetches what is missing).
        dpkg(root, "--force-depends", "--install", str(deb))
        installed = root / INSTALL_DIR / NAME
        command = root / "usr" / "bin" / NAME
        problems = []
        if os.readlink(command) != f"/{INSTALL_DIR}/{NAME}":
            problems.append(f"{command} points to {os.readlink(command)}")
        entry = root / "usr" / "share" / "applications" / f"{NAME}.desktop"
        validate = shutil.which("desktop-file-validate")
        if validate and subprocess.run([validate, str(entry)]).returncode != 0:
            problems.append("the desktop entry does not validate")
        icon = root / "usr" / "share" / "icons" / "hicolor" / "scalable" / "apps"
        if not (icon / f"{NAME}.svg").is_file():
            problems.append("no icon")
        result = self_test(installed)
        # The user's data folder lives in their home, never under the package's paths.
        user_data = root / "home" / "user" / ".local" / "share" / NAME
        user_data.mkdir(parents=True)
        (user_data / "settings.ini").write_text("[profiles]\n")
        dpkg(root, "--remove", NAME)
        left = [p for p in (root / INSTALL_DIR, command, entry) if os.path.lexists(p)]
        if left:
            problems.append(f"left after removal: {left}")
        if not (user_data / "settings.ini").is_file():
            problems.append("the removal took the user's data")
        if problems:
            raise SystemExit("package: the .deb check failed: " + "; ".join(problems))
        return {"installed_self_test_ok": result.get("ok"), "removed_cleanly": True}
