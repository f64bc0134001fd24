"""examples/hello.py again, this time from Python through the stockade
package: the host program a Python user writes.

    .venv/bin/python examples/run_hello.py
"""

from pathlib import Path

import stockade

guest = (Path(__file__).parent / "hello.py").read_text()

with stockade.Sandbox("python", limits=stockade.Limits(max_duration=5)) as sandbox:
    result = sandbox.run(guest)           # guest output streams to our stdout
    print("result:", result)
    print("sandbox layers:", ", ".join(sandbox.sandbox_report["applied"]))
