"""What is installed: one version (the package's, its installed metadata's
and the workspace's Cargo.toml are the same), the suite runs against the
installed wheel rather than the source tree, and the wheel's `stockade`
command is the CLI it carries."""

import importlib.metadata
import json
import pathlib
import re
import subprocess
import sys
import sysconfig

import stockade

ROOT = pathlib.Path(__file__).resolve().parents[3]
PACKAGE = pathlib.Path(stockade.__file__).resolve().parent


def workspace_version():
    # The first `version = ` of [workspace.package], read without tomllib
    # (3.11 and later), so that this runs on every interpreter the wheel
    # installs on.
    text = (ROOT / "Cargo.toml").read_text()
    section = text.split("[workspace.package]", 1)[1].split("\n[", 1)[0]
    return re.search(r'^version = "([^"]+)"$', section, re.M).group(1)


def test_the_version_is_the_workspaces():
    assert stockade.__version__ == workspace_version()
    assert importlib.metadata.version("stockade") == workspace_version()


def test_the_tests_run_the_installed_wheel():
    installed = {pathlib.Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    assert PACKAGE.parent in installed, f"stockade imported from {PACKAGE}, not from the environment"
    # Installed from a wheel, by pip: not an editable or source-tree install.
    distribution = importlib.metadata.distribution("stockade")
    assert distribution.read_text("WHEEL") is not None
    assert distribution.read_text("direct_url.json") is None or \
        not json.loads(distribution.read_text("direct_url.json")).get("dir_info", {}).get("editable")
    for name in ("stockade", "stockade-worker", "libstockade_cpython.so"):
        assert (PACKAGE / "bin" / name).is_file(), f"the installed package has no bin/{name}"


def test_the_package_installs_the_stockade_command():
    command = pathlib.Path(sys.executable).parent / "stockade"
    version = subprocess.run([command, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip() == f"stockade {workspace_version()}"
    doctor = subprocess.run([command, "doctor", "--json"], capture_output=True, text=True, check=True)
    report = json.loads(doctor.stdout)
    assert pathlib.Path(report["worker"]).resolve() == PACKAGE / "bin" / "stockade-worker"


def test_the_supported_interpreters_are_named_alike_everywhere():
    # scripts/lib/pythons.sh's list is what the test command runs on; the
    # installed metadata (pyproject.toml's), the host library's oldest
    # engine interpreter and docs/install.md must say the same.
    listed = re.search(r"^SUPPORTED_PYTHONS=\(([^)]*)\)$", (ROOT / "scripts/lib/pythons.sh").read_text(), re.M)
    supported = [tuple(int(part) for part in minor.split(".")) for minor in listed.group(1).split()]
    metadata = importlib.metadata.metadata("stockade")
    named = sorted(
        tuple(int(part) for part in classifier.rsplit(" :: ", 1)[1].split("."))
        for classifier in metadata.get_all("Classifier")
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", classifier)
    )
    assert named == supported
    oldest = "%d.%d" % supported[0]
    assert metadata["Requires-Python"] == f">={oldest}"
    engine = (ROOT / "crates/stockade/src/cpython.rs").read_text()
    assert re.search(r"MIN_VERSION: \([^)]*\) = \(%d, %d\)" % supported[0], engine), "cpython.rs MIN_VERSION"
    install = (ROOT / "docs/install.md").read_text()
    assert f"CPython {oldest} to %d.%d" % supported[-1] in install
    # Wherever the docs and the README give the oldest interpreter, it is
    # the same one.
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = " ".join(doc.read_text().split())
        for phrase in re.findall(r"(?:Python|CPython) 3\.\d+ or later|older than 3\.\d+", text):
            assert oldest in phrase, f"{doc.name} says {phrase!r}; the oldest supported is {oldest}"
    assert sys.version_info[:2] in supported
