"""The examples run as the README says."""

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_agent_tools_example_runs_in_both_languages():
    done = subprocess.run([sys.executable, str(EXAMPLES / "agent_tools.py")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for language in ("python", "javascript"):
        assert f"[{language}] plum: 7 in stock" in done.stdout
        assert f"{language} result: {{'can_order': ['apple', 'plum'], 'total': 8.75}}" in done.stdout


def test_run_hello_runs_the_hello_guest_from_python():
    done = subprocess.run([sys.executable, str(EXAMPLES / "run_hello.py")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Hello, stockade!" in done.stdout and "result: 55" in done.stdout
    assert "seccomp" in done.stdout


def test_the_readme_python_example_runs():
    readme = (EXAMPLES.parent / "README.md").read_text()
    section = readme.split("## The Python package", 1)[1]
    snippet = section.split("```python", 1)[1].split("```", 1)[0]
    exec(compile(snippet, "README.md", "exec"), {})


def test_file_report_example_runs_in_both_languages():
    done = subprocess.run([sys.executable, str(EXAMPLES / "file_report.py")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for language in ("python", "javascript"):
        assert f"{language} result: {{'east': 55, 'north': 150, 'south': 80}}" in done.stdout
        assert f"[{language}] wrote 3 regions" in done.stdout
        assert "- north: 150\n- south: 80" in done.stdout


def test_analyse_csv_example_summarises_with_pandas_and_writes_the_chart(tmp_path):
    done = subprocess.run([sys.executable, str(EXAMPLES / "analyse_csv.py"), str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "March revenue by region:" in done.stdout
    assert "top region:" in done.stdout
    chart = tmp_path / "chart-1.png"
    assert chart.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert f"output 1: image/png" in done.stdout and str(chart) in done.stdout
