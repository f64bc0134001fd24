"""The cpython engine from Python: the interpreter running this package by
default, the standard library, and package directories the host chooses
(numpy, installed by the test command, with its threads)."""

import os
import sys

import pytest

import stockade


def test_the_cpython_engine_is_this_interpreter_by_default():
    with stockade.Sandbox("python", engine="cpython", sandbox="require") as sandbox:
        assert sandbox.run("import sys\nsys.version_info[:3]") == tuple(sys.version_info[:3])
        # What a subset interpreter lacks: properties, inheritance, match.
        code = ("class A:\n    @property\n    def v(self):\n        return 1\n"
                "class B(A):\n    pass\n"
                "match B().v:\n    case 1:\n        r = 'one'\nr")
        assert sandbox.run(code) == "one"


def test_an_engine_for_another_language_is_refused():
    with pytest.raises(stockade.ConfigurationError, match="runs javascript guests"):
        stockade.Sandbox("python", engine="quickjs")


def test_site_packages_are_importable_and_nothing_else_of_the_host(tmp_path):
    package = tmp_path / "site" / "greeting"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("def hello(name):\n    return f'hello {name}'\n")
    (tmp_path / "secret.txt").write_text("not for guests")
    for path in [tmp_path, tmp_path / "site", package]:
        path.chmod(0o755)
    (package / "__init__.py").chmod(0o644)
    with stockade.Sandbox("python", engine="cpython",
                          site_packages=[tmp_path / "site"]) as sandbox:
        assert sandbox.run("import greeting\ngreeting.hello('guest')") == "hello guest"
        with pytest.raises(stockade.GuestError) as caught:
            sandbox.run(f"open({str(tmp_path / 'secret.txt')!r}).read()")
        assert caught.value.type == "FileNotFoundError"
        with pytest.raises(stockade.GuestError) as caught:
            sandbox.run(f"open({str(package / 'new.py')!r}, 'w')")
        assert caught.value.type in {"PermissionError", "OSError"}
    with stockade.Sandbox("python", engine="cpython") as sandbox:
        with pytest.raises(stockade.GuestError) as caught:
            sandbox.run("import greeting")
        assert caught.value.type == "ModuleNotFoundError"


def test_numpy_from_the_hosts_environment_runs_with_its_threads_under_every_layer():
    numpy = pytest.importorskip("numpy")
    site = os.path.dirname(os.path.dirname(numpy.__file__))
    with stockade.Sandbox("python", engine="cpython", sandbox="require",
                          site_packages=[site]) as sandbox:
        code = ("import numpy as np\n"
                "a = np.arange(250_000, dtype=np.float64).reshape(500, 500)\n"
                "float(np.trace(a @ a.T))")
        expected = float(numpy.trace(numpy.arange(250_000, dtype=numpy.float64).reshape(500, 500)
                                     @ numpy.arange(250_000, dtype=numpy.float64).reshape(500, 500).T))
        assert sandbox.run(code) == expected
        # Every thread of the worker, numpy's included, is under the filter.
        tasks = os.listdir(f"/proc/{sandbox.worker_pid}/task")
        for task in tasks:
            status = open(f"/proc/{sandbox.worker_pid}/task/{task}/status").read()
            assert "Seccomp:\t2" in status, f"thread {task} is not filtered"
        # numpy inside the sandbox reads no more of the host than Python does.
        with pytest.raises(stockade.GuestError) as caught:
            sandbox.run("np.loadtxt('/etc/passwd')")
        assert caught.value.type == "FileNotFoundError"
        assert sandbox.run("import os\nos.uname().nodename") == "stockade"


def test_max_scratch_bytes_bounds_the_private_tmp_and_a_full_one_is_enospc():
    limits = stockade.Limits(max_scratch_bytes=1 << 20)
    with stockade.Sandbox("python", engine="cpython", sandbox="require", limits=limits) as sandbox:
        code = ("import errno, os, tempfile\n"
                "where = [os.getcwd(), tempfile.gettempdir(), os.environ['HOME']]\n"
                "try:\n    open('big', 'wb').write(b'x' * (2 << 20))\n    r = 'written'\n"
                "except OSError as e:\n    r = errno.errorcode[e.errno]\n"
                "[where, r]")
        assert sandbox.run(code) == [["/tmp", "/tmp", "/tmp"], "ENOSPC"]
        assert sandbox.run("open('small', 'w').write('ok')") == 2


def test_packages_are_installed_on_the_host_and_imported_by_the_guest():
    # uv comes with the package (its dependency), beside this interpreter.
    packages = stockade.Packages(["tabulate==0.10.0"])
    with stockade.Sandbox("python", engine="cpython", sandbox="require",
                          packages=packages) as sandbox:
        assert sandbox.run("import tabulate\ntabulate.__version__") == "0.10.0"
    with pytest.raises(stockade.ConfigurationError, match="not URLs or paths"):
        stockade.Sandbox("python", engine="cpython", packages=["pkg @ https://example.com/p.whl"])


def test_rich_outputs_reach_on_output_and_execute_in_order():
    seen = []
    with stockade.Sandbox(engine="cpython", sandbox="require") as sandbox:
        value = sandbox.run("display('<svg></svg>')\ndisplay({'a': 1})\n3",
                            on_output=seen.append)
        assert value == 3
        assert [(o.mime_type, o.data, o.text) for o in seen] == [
            ("image/svg+xml", b"<svg></svg>", "'<svg></svg>'"),
            ("text/plain", b"{'a': 1}", "{'a': 1}"),
        ]
        assert seen[0].extension == "svg"
        # A notebook is offered its text, never the guest's markup.
        assert seen[0]._repr_mimebundle_() == {"text/plain": "'<svg></svg>'"}
        # execute() keeps them with the streams, also when the run fails.
        result = sandbox.execute("print('a')\ndisplay(b'\\x89PNG\\r\\n\\x1a\\n')\n1 / 0")
        assert result.status == "error" and result.error_type == "ZeroDivisionError"
        assert result.stdout == "a\n"
        assert [(o.mime_type, o.data) for o in result.outputs] == [
            ("image/png", b"\x89PNG\r\n\x1a\n")]
        assert result.outputs[0]._repr_mimebundle_()["image/png"] == b"\x89PNG\r\n\x1a\n"
        # A run without on_output hears of each output on stderr.
        heard = []
        sandbox.run("display('<svg></svg>')", print=lambda stream, text: heard.append((stream, text)))
        assert heard and heard[0][0] == "stderr" and "does not take" in heard[0][1]


def test_on_output_must_be_callable():
    with stockade.Sandbox(engine="cpython") as sandbox:
        with pytest.raises(stockade.ConfigurationError, match="on_output"):
            sandbox.run("1", on_output="out.png")


def test_a_pool_preloads_modules_for_every_checkout():
    probe = "import sys\n'csv' in sys.modules"
    with stockade.Sandbox(engine="cpython") as plain:
        assert plain.run(probe) is False
    with stockade.Pool("python", engine="cpython", preload=["csv"], size=1) as pool:
        for _ in range(2):
            with pool.checkout() as sandbox:
                assert sandbox.run(probe) is True
    with pytest.raises(stockade.ConfigurationError, match="not a module name"):
        stockade.Sandbox(engine="cpython", preload=["csv; x"])


def test_install_dependencies_and_script_blocks_add_packages_before_the_first_run():
    with stockade.Sandbox(engine="cpython", sandbox="require") as sandbox:
        sandbox.install_dependencies([])
        sandbox.install_dependencies(stockade.Packages(["tabulate==0.10.0"]))
        assert sandbox.run("import tabulate\ntabulate.__version__") == "0.10.0"
        with pytest.raises(stockade.ConfigurationError, match="before a session's first run"):
            sandbox.install_dependencies(["six==1.17.0"])
    block = "# /// script\n# dependencies = ['tabulate==0.10.0']\n# ///\nimport tabulate\n1"
    with stockade.Sandbox(engine="cpython", script_packages=["tabulate"]) as sandbox:
        assert sandbox.run(block) == 1
    with stockade.Sandbox(engine="cpython") as sandbox:
        with pytest.raises(stockade.GuestError, match="No module named 'tabulate'"):
            sandbox.run(block)
