"""Shared fixtures: every test runs real sandboxed workers."""

import pytest

import stockade

LANGUAGES = ["python", "javascript"]


@pytest.fixture(params=LANGUAGES)
def language(request):
    return request.param


@pytest.fixture
def sandbox(language):
    with stockade.Sandbox(language) as sandbox:
        yield sandbox


def code(language, python, javascript):
    """The same snippet in the sandbox's language."""
    return python if language == "python" else javascript
