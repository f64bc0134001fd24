"""Output: one rich result a guest showed (a chart, a table, an image)."""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable, Dict, Optional, Union

#: File-name extensions by MIME type, for `Output.save` into a directory.
_EXTENSIONS = {
    "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
    "image/svg+xml": "svg", "text/html": "html", "text/markdown": "md", "text/csv": "csv",
    "application/json": "json", "application/pdf": "pdf", "text/plain": "txt",
}


#: Image types a notebook shows without running anything of the guest's.
_RASTER_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


@dataclasses.dataclass(frozen=True)
class Output:
    """A rich output from `display(obj)` or a matplotlib figure: a MIME
    type, its bytes, and a plain-text form. In a notebook it shows itself
    as its image (PNG, JPEG, GIF, WebP) or its text: never as HTML or SVG,
    which would run the guest's markup in the host's page."""

    #: "image/png", "text/html", "image/svg+xml", "text/plain", ...
    mime_type: str
    data: bytes
    #: A plain-text form (a DataFrame's text, "<Figure size 640x480 with 1 Axes>").
    text: str

    @property
    def extension(self) -> str:
        """The file-name extension its type is written with ("png")."""
        return _EXTENSIONS.get(self.mime_type.split(";")[0].strip().lower(), "bin")

    def save(self, path: Union[str, os.PathLike]) -> str:
        """Writes the bytes to `path` and returns it."""
        with open(path, "wb") as file:
            file.write(self.data)
        return os.fspath(path)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Dict[str, Any]:
        # The guest wrote it: only its text and raster images are offered
        # to a notebook. HTML, SVG and JavaScript would run in the host's
        # notebook page, which can drive its kernel (`data` holds them).
        bundle: Dict[str, Any] = {"text/plain": self.text}
        essence = self.mime_type.split(";")[0].strip().lower()
        if essence in _RASTER_TYPES:
            bundle[essence] = self.data
        return bundle

    def __repr__(self) -> str:
        return f"Output({self.mime_type!r}, {len(self.data)} bytes, text={self.text[:60]!r})"


OutputCallback = Callable[[Output], Any]


def receiver(on_output: Optional[OutputCallback]) -> Optional[Callable[[str, bytes, str], None]]:
    """What the native session calls with (mime_type, data, text)."""
    if on_output is None:
        return None
    if not callable(on_output):
        from ._errors import ConfigurationError
        raise ConfigurationError("on_output= takes a callable(Output)")

    def received(mime_type: str, data: bytes, text: str) -> None:
        on_output(Output(mime_type, data, text))

    return received
