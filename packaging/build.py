"""Build the console for this OS into dist/: `./dev package [--check] [--no-installer]`.

1. PyInstaller (lpwa-console.spec): dist/lpwa-console/, one folder, windowed; on macOS also
   dist/LPWA Console.app.
2. What a user downloads:
   Linux    dist/lpwa-console-VERSION-linux-ARCH.tar.gz (the folder)
   Windows  dist/lpwa-console-VERSION-windows-ARCH.zip (the folder), and with Inno Setup's
            ISCC.exe on PATH (or at its default place) dist/lpwa-console-VERSION-windows-ARCH-setup.exe
   macOS    dist/lpwa-console-VERSION-macos-ARCH.dmg (the .app and a link to /Applications)
   Linux    also dist/lpwa-console_VERSION_ARCH.deb where dpkg-deb is found (debian_package.py)
3. With --sign, signs what the OS signs from secrets in the environment (signing.py).
4. With --check, runs the built console's --self-test (offscreen, on its own embedded sandbox
   in a temporary data folder) and fails unless it says "ok": true; a .deb is then installed
   into a scratch root, its console self-tested and the package removed.

Prints one JSON line of figures at the end: build seconds, bundle size, the files made.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

import signing
from debian_package import debian_package, install_check

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "packaging" / "lpwa-console.spec"
ISS = ROOT / "packaging" / "lpwa-console.iss"
DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
ICONS = ROOT / "build" / "icons"
NAME = "lpwa-console"
APP = "LPWA Console.app"
SELF_TEST_TIMEOUT_S = 240


def version() -> str:
    sys.path.insert(0, str(ROOT / "src"))
    from lpwa_console import __version__

    return __version__


def os_tag() -> str:
    system = {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(sys.platform)
    return f"{system or sys.platform}-{platform.machine().lower() or 'unknown'}"


def tree_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def draw_icons() -> None:
    """build/icons/: the icon in each OS's format, which the spec and the installers use."""
    icons = ROOT / "packaging" / "icons.py"
    subprocess.run([sys.executable, str(icons), str(ICONS)], check=True, stdout=subprocess.DEVNULL)


def run_pyinstaller(clean: bool) -> float:
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN"]
    command += ["--distpath", str(DIST), "--workpath", str(WORK)]
    if clean:
        command.append("--clean")
    command.append(str(SPEC))
    print("package:", " ".join(command), file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True)
    return time.perf_counter() - t0


def executable() -> Path:
    """The console binary users start: in the .app on macOS, in the folder elsewhere."""
    if sys.platform == "darwin":
        return DIST / APP / "Contents" / "MacOS" / NAME
    return DIST / NAME / (NAME + ".exe" if sys.platform == "win32" else NAME)


def tar_gz(folder: Path, out: Path) -> Path:
    with tarfile.open(out, "w:gz", compresslevel=6) as tar:
        tar.add(folder, arcname=folder.name)
    return out


def zip_folder(folder: Path, out: Path) -> Path:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for path in sorted(folder.rglob("*")):
            archive.write(path, Path(folder.name) / path.relative_to(folder))
    return out


def inno_setup() -> str | None:
    found = shutil.which("ISCC") or shutil.which("iscc")
    if found:
        return found
    for base in (os.environ.get("PROGRAMFILES(X86)"), os.environ.get("PROGRAMFILES")):
        if base and (Path(base) / "Inno Setup 6" / "ISCC.exe").is_file():
            return str(Path(base) / "Inno Setup 6" / "ISCC.exe")
    return None


def windows_setup(stem: str, ver: str) -> Path | None:
    iscc = inno_setup()
    if iscc is None:
        print("package: Inno Setup not found; the .zip is the download", file=sys.stderr)
        return None
    defines = {"AppVersion": ver, "SourceDir": str(DIST / NAME), "OutputDir": str(DIST)}
    defines["IconFile"] = str(ICONS / "lpwa-console.ico")
    defines["OutputBaseFilename"] = stem + "-setup"
    command = [iscc, "/Q", *(f"/D{key}={value}" for key, value in defines.items()), str(ISS)]
    subprocess.run(command, check=True)
    return DIST / (stem + "-setup.exe")


def dmg(stem: str) -> Path:
    out = DIST / (stem + ".dmg")
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp) / "LPWA Console"
        stage.mkdir()
        shutil.copytree(DIST / APP, stage / APP, symlinks=True)
        (stage / "Applications").symlink_to("/Applications")
        command = ["hdiutil", "create", "-volname", "LPWA Console", "-srcfolder", str(stage)]
        subprocess.run([*command, "-ov", "-format", "UDZO", str(out)], check=True)
    return out


def installers(ver: str, sign: bool) -> list[Path]:
    stem = f"{NAME}-{ver}-{os_tag()}"
    if sys.platform == "darwin":
        if sign:
            signing.sign_macos_app(DIST / APP)
        image = dmg(stem)
        if sign:
            signing.notarize_macos(image)
        return [image]
    if sys.platform == "win32":
        if sign:
            signing.sign_windows([executable()])
        made = [zip_folder(DIST / NAME, DIST / (stem + ".zip"))]
        setup = windows_setup(stem, ver)
        if sign and setup:
            signing.sign_windows([setup])
        return made + ([setup] if setup else [])
    made = [tar_gz(DIST / NAME, DIST / (stem + ".tar.gz"))]
    package = debian_package(DIST / NAME, ver)
    return made + ([package] if package else [])


def self_test(binary: Path) -> dict[str, object]:
    """The built console's --self-test, on a fresh embedded sandbox (its own child process)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    with tempfile.TemporaryDirectory(prefix="lpwa-package-") as data:
        done = subprocess.run(
            [str(binary), "--self-test", "--data-dir", data],
            capture_output=True,
            text=True,
            env=env,
            timeout=SELF_TEST_TIMEOUT_S,
        )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    result: dict[str, object] = json.loads(lines[-1]) if lines else {}
    if done.returncode != 0 or result.get("ok") is not True:
        sys.stderr.write(done.stderr[-3000:])
        raise SystemExit(f"package: the built console failed its self-test: {done.stdout[-1000:]}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev package", description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="empty PyInstaller's cache first")
    parser.add_argument("--no-installer", action="store_true", help="the folder only")
    parser.add_argument(
        "--check", action="store_true", help="run the built console's --self-test afterwards"
    )
    parser.add_argument(
        "--sign",
        action="store_true",
        help="sign (and on macOS notarize) with the secrets in the environment (signing.py)",
    )
    args = parser.parse_args(argv)
    ver = version()
    draw_icons()
    seconds = run_pyinstaller(args.clean)
    folder = DIST / NAME
    summary: dict[str, object] = {
        "version": ver,
        "os": os_tag(),
        "build_s": round(seconds, 1),
        "bundle": str(folder.relative_to(ROOT)),
        "bundle_mb": round(tree_size(folder) / 1e6, 1),
        "executable": str(executable().relative_to(ROOT)),
    }
    if sys.platform == "darwin":
        summary["app"] = str((DIST / APP).relative_to(ROOT))
    made: list[Path] = []
    if not args.no_installer:
        t0 = time.perf_counter()
        made = installers(ver, args.sign)
        summary["installer_s"] = round(time.perf_counter() - t0, 1)
        summary["installers"] = {
            str(p.relative_to(ROOT)): round(p.stat().st_size / 1e6, 1) for p in made
        }
    if args.check:
        summary["self_test"] = self_test(executable())
        for deb in (p for p in made if p.suffix == ".deb"):
            summary["deb_check"] = install_check(deb, self_test)
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
