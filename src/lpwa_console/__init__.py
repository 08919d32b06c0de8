"""LPWA Console: a desktop management console for LoRaWAN and cellular IoT networks."""

import sys

# The one version number: pyproject.toml reads it from here (hatch's dynamic version), and so
# do About, the PyInstaller bundle and the installers' names (packaging/build.py).
__version__ = "0.1.0"

# httpx imports its command-line tool (click, rich, pygments: about 0.2 s) whenever those
# happen to be installed, as they are beside the test tools; the console never uses it.
# A None entry makes that import fail the way httpx expects when they are absent.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
