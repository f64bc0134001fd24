"""Mounts from Python (docs/files.md): a guest reads an upload and writes
a report through stockade.Mount, in each mode; a mount of a missing
directory fails when it is made; environ= and clock= in both languages."""

from datetime import datetime, timezone

import pytest

import stockade

SALES = "region,amount\nnorth,120\nsouth,80\nnorth,30\n"
SUMMARY = """
from pathlib import Path
totals = {}
for row in Path('/data/sales.csv').read_text().splitlines()[1:]:
    region, amount = row.split(',')
    totals[region] = totals.get(region, 0) + int(amount)
report = ''.join(f'{k}: {v}\\n' for k, v in sorted(totals.items()))
Path('/out/report.txt').write_text(report)
totals
"""


@pytest.mark.parametrize("engine", ["cpython", "monty"])
def test_an_upload_in_a_report_out(tmp_path, engine):
    uploads, reports = tmp_path / "uploads", tmp_path / "reports"
    uploads.mkdir()
    reports.mkdir()
    (uploads / "sales.csv").write_text(SALES)
    mounts = [stockade.Mount("/data", uploads, mode="ro"),
              stockade.Mount("/out", reports, mode="rw")]
    with stockade.Sandbox("python", engine=engine, mounts=mounts) as sandbox:
        assert sandbox.run(SUMMARY) == {"north": 150, "south": 80}
        with pytest.raises(stockade.GuestError) as refused:
            sandbox.run("Path('/data/sales.csv').write_text('')")
        assert refused.value.type == "PermissionError"
    assert (reports / "report.txt").read_text() == "north: 150\nsouth: 80\n"
    assert (uploads / "sales.csv").read_text() == SALES


def test_overlay_writes_stay_in_the_sandbox(tmp_path):
    (tmp_path / "notes.txt").write_text("original")
    mount = stockade.Mount("/work", tmp_path, mode="overlay")
    assert (mount.guest_path, mount.mode) == ("/work", "overlay")
    with stockade.Sandbox("python", engine="monty", mounts=mount) as sandbox:
        sandbox.run("from pathlib import Path\nPath('/work/notes.txt').write_text('changed')")
        assert sandbox.run("Path('/work/notes.txt').read_text()") == "changed"
    assert (tmp_path / "notes.txt").read_text() == "original"


def test_a_mount_is_checked_when_it_is_made(tmp_path):
    with pytest.raises(stockade.ConfigurationError, match="mount"):
        stockade.Mount("/data", tmp_path / "missing")
    with pytest.raises(stockade.ConfigurationError, match="not one of ro, rw, overlay"):
        stockade.Mount("/data", tmp_path, mode="rwx")
    with pytest.raises(stockade.ConfigurationError, match="stockade.Mount"):
        stockade.Sandbox("python", engine="monty", mounts=["/data"])


NEW_YEAR = datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_environ_and_a_frozen_clock_in_both_languages():
    with stockade.Sandbox("python", engine="monty", environ={"REGION": "north"},
                          clock=NEW_YEAR) as sandbox:
        assert sandbox.run("import os\n[os.getenv('REGION'), os.getenv('HOME')]") == ["north", "/tmp"]
        assert sandbox.run("from datetime import date\nstr(date.today())") == "2026-01-01"
    with stockade.Sandbox("javascript", clock=NEW_YEAR) as sandbox:
        assert sandbox.run("Date.now()") == 1767225600000
    with pytest.raises(stockade.ConfigurationError, match="clock"):
        stockade.Sandbox("python", engine="monty", clock="sometimes")


@pytest.mark.parametrize("engine", ["cpython", "monty"])
def test_an_os_handler_answers_paths_outside_the_mounts(engine):
    calls = []

    def handler(name, args, kwargs):
        calls.append(name)
        if args and args[0] == "/virtual/config.txt":
            return "from the host" if name == "Path.read_text" else b"from the host"
        raise PermissionError("not served")

    with stockade.Sandbox("python", engine=engine, os_handler=handler) as sandbox:
        assert sandbox.run("from pathlib import Path\nPath('/virtual/config.txt').read_text()") \
            == "from the host"
        with pytest.raises(stockade.GuestError) as refused:
            sandbox.run("Path('/virtual/other.txt').read_text()")
        assert refused.value.type == "PermissionError"
    assert calls
    with pytest.raises(stockade.ConfigurationError, match="os_handler"):
        stockade.Sandbox("python", engine=engine, os_handler="not callable")


SCRATCH_WRITE = {
    "monty": "from pathlib import Path\nPath('notes.txt').write_text('kept')\n"
             "try:\n    Path('big').write_text('x' * 100000)\n    r = 'written'\n"
             "except OSError as e:\n    r = str(e)\n'No space left on device' in r",
    "javascript": "import fs from 'fs';\nfs.writeFileSync('notes.txt', 'kept');\nlet code;\n"
                  "try { fs.writeFileSync('big', 'x'.repeat(100000)); } catch (e) { code = e.code; }\n"
                  "export default code === 'ENOSPC';",
}
SCRATCH_READ = {
    "monty": "from pathlib import Path\nPath('/tmp/notes.txt').read_text()",
    "javascript": "import fs from 'fs'; export default fs.readFileSync('/tmp/notes.txt', 'utf8');",
}


@pytest.mark.parametrize("language", ["monty", "javascript"])
def test_monty_and_javascript_guests_have_a_scratch_that_a_dump_carries(language):
    keys = [b"k" * 32]
    options = {"engine": "monty"} if language == "monty" else {}
    name = "python" if language == "monty" else "javascript"
    limits = stockade.Limits(max_scratch_bytes=64 << 10)
    with stockade.Sandbox(name, limits=limits, dump_keys=keys, dump_context="scratch",
                          **options) as sandbox:
        assert sandbox.run(SCRATCH_WRITE[language]) is True
        data = sandbox.dump()
    with stockade.Sandbox.restore(data, name, limits=limits, dump_keys=keys,
                                  dump_context="scratch", **options) as later:
        assert later.run(SCRATCH_READ[language]) == "kept"
    with pytest.raises(stockade.DumpRejected, match="scratch directory"):
        stockade.Sandbox.restore(data, name, limits=stockade.Limits(max_scratch_bytes=0),
                                 dump_keys=keys, dump_context="scratch", **options)
