"""One version: the package's, its installed metadata's and the
workspace's (Cargo.toml) are the same."""

import importlib.metadata
import pathlib
import tomllib

import stockade

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_the_version_is_the_workspaces():
    workspace = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    assert stockade.__version__ == workspace
    assert importlib.metadata.version("stockade") == workspace
