"""`python -m lpwa_console` and the `lpwa-console` entry point."""

from __future__ import annotations

import sys


def main() -> None:
    # Not through app.py: startup.py starts the sandbox before the heavy imports.
    from .startup import main as run

    sys.exit(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
