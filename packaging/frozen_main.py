"""The entry point of the packaged console (PyInstaller bundle, see lpwa-console.spec).

In a bundle `sys.executable` is the console itself, not a Python that takes `-m`, so the
console starts its embedded sandbox as `<console> sandbox serve ...` and reads its accounts
with `<console> sandbox accounts ...` (models/embedded.py), and its fleet index's sync as
`<console> fleet-index ...` (models/fleet_index/process.py). This script sends such a command
line to the sandbox CLI or the sync, without importing Qt, and anything else to the GUI.
"""

from __future__ import annotations

import sys

SANDBOX = "sandbox"  # the first argument models/embedded.py passes to a frozen console
FLEET_INDEX = "fleet-index"  # models/fleet_index/process.py's (FROZEN_COMMAND)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == [SANDBOX]:
        from lpwa_console.sandbox.cli import main as sandbox_main

        sandbox_main(args[1:])  # raises SystemExit with the command's status
        return
    if args[:1] == [FLEET_INDEX]:
        from lpwa_console.models.fleet_index.child import main as sync_main

        sys.exit(sync_main(args[1:]))
    # startup, not app: it starts the sandbox before the heavy imports (models/embedded.py).
    from lpwa_console.startup import main as console_main

    sys.exit(console_main(args))


if __name__ == "__main__":
    main()
