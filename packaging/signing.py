"""Code signing for `./dev package --sign`, from secrets in the environment; skipped without.

macOS   MACOS_CERT_P12 (base64 of a Developer ID Application .p12), MACOS_CERT_PASSWORD and
        MACOS_SIGN_IDENTITY sign the .app with the hardened runtime (entitlements.plist);
        APPLE_ID, APPLE_TEAM_ID and APPLE_APP_PASSWORD then notarize and staple the .dmg.
        Without them the .app keeps PyInstaller's ad hoc signature.
Windows WINDOWS_CERT_PFX (base64 of a .pfx) and WINDOWS_CERT_PASSWORD sign the console and
        the installer with signtool (Windows SDK), timestamped.
Linux   nothing to sign (a .deb of ours would be signed by the repository that serves it).

Secrets are written only to a temporary file or keychain that is removed afterwards, and
never printed.
"""

from __future__ import annotations

import base64
import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

ENTITLEMENTS = Path(__file__).resolve().parent / "entitlements.plist"
CODESIGN = "/usr/bin/codesign"
TIMESTAMP_URL = "http://timestamp.digicert.com"
MACOS_SIGNING = ("MACOS_CERT_P12", "MACOS_CERT_PASSWORD", "MACOS_SIGN_IDENTITY")
MACOS_NOTARY = ("APPLE_ID", "APPLE_TEAM_ID", "APPLE_APP_PASSWORD")
WINDOWS_SIGNING = ("WINDOWS_CERT_PFX", "WINDOWS_CERT_PASSWORD")


def given(names: tuple[str, ...]) -> bool:
    return all(os.environ.get(name) for name in names)


def say(message: str) -> None:
    print(f"package: {message}", flush=True)


def run_quiet(command: list[str]) -> None:
    """Run a command whose arguments may hold a secret: on failure, name only the tool."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"package: {Path(command[0]).name} failed: {done.stderr[-2000:]}")


@contextlib.contextmanager
def macos_keychain() -> Iterator[None]:
    """A temporary keychain holding the signing certificate, searched while it exists."""
    with tempfile.TemporaryDirectory() as tmp:
        keychain = str(Path(tmp) / "signing.keychain-db")
        password = base64.b64encode(os.urandom(18)).decode()
        p12 = Path(tmp) / "cert.p12"
        p12.write_bytes(base64.b64decode(os.environ["MACOS_CERT_P12"]))
        listed = subprocess.run(
            ["security", "list-keychains", "-d", "user"], capture_output=True, text=True
        ).stdout.split()
        run_quiet(["security", "create-keychain", "-p", password, keychain])
        run_quiet(["security", "unlock-keychain", "-p", password, keychain])
        secret = os.environ["MACOS_CERT_PASSWORD"]
        run_quiet(["security", "import", str(p12), "-k", keychain, "-P", secret, "-T", CODESIGN])
        partitions = ["security", "set-key-partition-list", "-S", "apple-tool:,apple:"]
        run_quiet([*partitions, "-k", password, keychain])
        previous = [name.strip('"') for name in listed]
        run_quiet(["security", "list-keychains", "-d", "user", "-s", keychain, *previous])
        try:
            yield
        finally:
            subprocess.run(["security", "list-keychains", "-d", "user", "-s", *previous])
            subprocess.run(["security", "delete-keychain", keychain])


def sign_macos_app(app: Path) -> bool:
    if not given(MACOS_SIGNING):
        say("no macOS signing secrets: the .app keeps its ad hoc signature")
        return False
    with macos_keychain():
        command = ["codesign", "--force", "--deep", "--timestamp", "--options", "runtime"]
        command += ["--entitlements", str(ENTITLEMENTS)]
        run_quiet([*command, "--sign", os.environ["MACOS_SIGN_IDENTITY"], str(app)])
    run_quiet(["codesign", "--verify", "--deep", "--strict", str(app)])
    say("signed the .app with the Developer ID")
    return True


def notarize_macos(dmg: Path) -> bool:
    if not given(MACOS_NOTARY):
        say("no notarization secrets: the .dmg is not notarized")
        return False
    command = ["xcrun", "notarytool", "submit", str(dmg), "--wait"]
    command += ["--apple-id", os.environ["APPLE_ID"], "--team-id", os.environ["APPLE_TEAM_ID"]]
    run_quiet([*command, "--password", os.environ["APPLE_APP_PASSWORD"]])
    run_quiet(["xcrun", "stapler", "staple", str(dmg)])
    say("notarized and stapled the .dmg")
    return True


def signtool() -> str | None:
    found = shutil.which("signtool")
    if found:
        return found
    kits = os.environ.get("PROGRAMFILES(X86)", r"C:\Program Files (x86)")
    candidates = sorted(glob.glob(str(Path(kits) / "Windows Kits/10/bin/*/x64/signtool.exe")))
    return candidates[-1] if candidates else None


def sign_windows(files: list[Path]) -> bool:
    if not given(WINDOWS_SIGNING):
        say("no Windows signing secrets: the console and installer are not signed")
        return False
    tool = signtool()
    if tool is None:
        raise SystemExit("package: signing secrets given, but signtool (Windows SDK) not found")
    with tempfile.TemporaryDirectory() as tmp:
        pfx = Path(tmp) / "cert.pfx"
        pfx.write_bytes(base64.b64decode(os.environ["WINDOWS_CERT_PFX"]))
        command = [tool, "sign", "/f", str(pfx), "/p", os.environ["WINDOWS_CERT_PASSWORD"]]
        command += ["/fd", "SHA256", "/tr", TIMESTAMP_URL, "/td", "SHA256"]
        run_quiet([*command, *map(str, files)])
    say(f"signed {', '.join(p.name for p in files)}")
    return True
