"""stockade's Python half of the CPython engine, continued: rich outputs.
`display(obj)` (a builtin, as in Jupyter) sends a chart, an image or a
table to the host beside the printed text; matplotlib draws with a backend
whose `plt.show()` sends each open figure as a PNG, and the figures still
open when a feed ends are sent then (as Jupyter's inline backend does);
PIL's `Image.show()` sends the image. Run in guest.py's namespace.
"""

import weakref as _weakref

from stockade_cpython import show as _send

#: The module of the backend matplotlib is given (unless MPLBACKEND names one).
BACKEND_MODULE = "stockade_matplotlib"

#: The representations `display` looks for, best first: (method, MIME type).
_REPR_METHODS = (
    ("_repr_png_", "image/png"),
    ("_repr_jpeg_", "image/jpeg"),
    ("_repr_svg_", "image/svg+xml"),
    ("_repr_html_", "text/html"),
    ("_repr_markdown_", "text/markdown"),
    ("_repr_json_", "application/json"),
    ("_repr_latex_", "text/latex"),
)
_PREFERRED = tuple(mime for _, mime in _REPR_METHODS) + ("text/plain",)
_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
          (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"))


def _plain(obj):
    try:
        return repr(obj)
    except Exception as err:  # a broken __repr__ must not lose the output
        return f"<{type(obj).__name__} object (repr failed: {err})>"


def _as_bytes(mime, data):
    """A representation as bytes: text types as UTF-8, JSON encoded."""
    if isinstance(data, tuple) and data:  # (data, metadata), as IPython allows
        data = data[0]
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if mime == "application/json" and not isinstance(data, str):
        import json
        data = json.dumps(data)
    if isinstance(data, str):
        if mime in ("image/png", "image/jpeg"):  # base64, as IPython allows
            import base64
            return base64.b64decode(data)
        return data.encode("utf-8", "surrogatepass")
    raise TypeError(f"a {mime} representation must be bytes or str, "
                    f"not {type(data).__name__}")


def _is_figure(obj):
    figure = type(obj)
    return (figure.__name__ in ("Figure", "SubFigure")
            and figure.__module__.startswith("matplotlib."))


def _figure_png(figure):
    import io
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def _representation(obj):
    """(MIME type, bytes) for what `obj` is best shown as."""
    if _is_figure(obj):
        return "image/png", _figure_png(obj)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        head = bytes(obj[:8])
        for magic, mime in _MAGIC:
            if head.startswith(magic):
                return mime, bytes(obj)
        return "application/octet-stream", bytes(obj)
    if isinstance(obj, str):
        start = obj.lstrip()[:256].lower()
        if start.startswith("<svg") or (start.startswith("<?xml") and "<svg" in obj[:1024]):
            return "image/svg+xml", obj.encode("utf-8", "surrogatepass")
        return "text/plain", obj.encode("utf-8", "surrogatepass")
    bundle = getattr(obj, "_repr_mimebundle_", None)
    if callable(bundle) and not isinstance(obj, type):
        got = bundle()
        if isinstance(got, tuple):
            got = got[0]
        if isinstance(got, dict):
            for mime in _PREFERRED:
                if got.get(mime) is not None:
                    return mime, _as_bytes(mime, got[mime])
    if not isinstance(obj, type):
        for method, mime in _REPR_METHODS:
            make = getattr(obj, method, None)
            if callable(make):
                data = make()
                if data is not None:
                    return mime, _as_bytes(mime, data)
    return "text/plain", _plain(obj).encode("utf-8", "surrogatepass")


def display(*objs, mime_type=None):
    """Shows each object to the host as a rich output: a matplotlib figure
    or a PIL image as PNG, a DataFrame as HTML, an SVG string as SVG,
    anything else by its `_repr_*_` methods or its repr. With `mime_type`,
    each object is bytes or text of that type, sent as it is."""
    for obj in objs:
        if mime_type is None:
            mime, data = _representation(obj)
            # Raw bytes have no text worth sending (their repr is 4 times
            # their size): a description stands for them.
            if isinstance(obj, (bytes, bytearray, memoryview)):
                text = f"<{mime}, {len(data)} bytes>"
            else:
                text = _plain(obj)
        else:
            mime, data = mime_type, _as_bytes(mime_type, obj)
            text = f"<{mime_type}, {len(data)} bytes>"
        _send(mime, data, text)
        if _is_figure(obj):
            _SHOWN.add(obj)


#: Figures sent this feed: the feed's end does not send them again.
_SHOWN = _weakref.WeakSet()


def _show_open_figures(close=True):
    """Sends every open pyplot figure, then closes them (plt.show())."""
    import matplotlib.pyplot as plt

    for number in plt.get_fignums():
        figure = plt.figure(number)
        if figure not in _SHOWN:
            display(figure)
    if close:
        plt.close("all")
    _SHOWN.clear()


def outputs_at_feed_end():
    """At a feed's end, the pyplot figures still open are sent and closed,
    when matplotlib draws with stockade's backend."""
    import sys

    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        _SHOWN.clear()
        return
    backend = sys.modules.get("matplotlib")
    name = backend.get_backend() if backend is not None else ""
    if name.endswith(BACKEND_MODULE) and pyplot.get_fignums():
        _show_open_figures()
    _SHOWN.clear()


def _matplotlib_backend(module):
    """Fills in the backend module matplotlib imports from MPLBACKEND:
    drawing as Agg does, `show()` sending the figures."""
    from matplotlib.backend_bases import FigureManagerBase
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def show(*args, block=None, close=True, **kwargs):
        _show_open_figures(close)

    module.FigureCanvas = FigureCanvasAgg
    module.FigureManager = FigureManagerBase
    module.show = show


def _pil_viewer(module):
    """`Image.show()` in PIL sends the image instead of starting a viewer
    (which the sandbox has none of)."""
    class StockadeViewer(module.Viewer):
        format = "PNG"

        def show(self, image, **options):
            display(image)
            return 1

    module.register(StockadeViewer, order=-1)


def _default_backend(matplotlib):
    """matplotlib's default backend is the one that sends figures, unless
    the guest's environment names one (MPLBACKEND) or its code calls
    `matplotlib.use` later; the environment stays the host's."""
    import os

    if not os.environ.get("MPLBACKEND"):
        matplotlib.use("module://" + BACKEND_MODULE)


IMPORT_HOOKS.made[BACKEND_MODULE] = _matplotlib_backend
IMPORT_HOOKS.after["matplotlib"] = _default_backend
IMPORT_HOOKS.after["PIL.ImageShow"] = _pil_viewer
builtins.display = display
