"""The `stockade` command a wheel installs: it runs the CLI binary the
package carries (`bin/stockade`), which finds the worker beside it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: The CLI binary inside the package.
CLI = Path(__file__).resolve().parent / "bin" / "stockade"


def main() -> None:
    if not CLI.is_file():
        sys.exit(f"stockade: this installation of the package has no CLI binary at {CLI}")
    # The process becomes the CLI: its exit status and signals are the
    # command's own.
    os.execv(CLI, [str(CLI), *sys.argv[1:]])
