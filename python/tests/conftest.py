"""Shared helpers of castle's Python tests.

A test that needs a tool that is missing (pandas, pysol_cards, the castle command) says so and
skips, except under CI (the environment variable CI set), where a missing tool is a failure:
.ci/python installs every one of them (pandas only from a wheel; see need_module).
"""

import importlib
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def missing(what):
    """Skips the test for lack of `what`, or fails it under CI."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing (CI installs it)")
    pytest.skip(f"{what} is missing")


def need_module(name):
    """The module `name`, or a skip (a failure under CI, except for pandas where .ci/python
    found no wheel of it for this Python and said so: CASTLE_NO_PANDAS)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        if name == "pandas" and os.environ.get("CASTLE_NO_PANDAS"):
            pytest.skip("pandas is missing (no wheel of it for this Python)")
        missing(f"the Python package {name}")


def castle_command():
    """The castle command: $CASTLE_BIN, the checkout's release build, or `castle` on PATH."""
    for candidate in (
        os.environ.get("CASTLE_BIN"),
        REPO / "target" / "release" / "castle",
        shutil.which("castle"),
    ):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    missing("the castle command (cargo build --release)")


def run_castle(*args, check=True):
    """Runs the castle command: (exit code, stdout, stderr)."""
    p = subprocess.run(
        [castle_command(), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if check and p.returncode != 0:
        raise AssertionError(f"castle {' '.join(map(str, args))}: {p.returncode}\n{p.stderr}")
    return p.returncode, p.stdout, p.stderr


def os_threads():
    """Threads of this process (Linux), or None."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


@pytest.fixture
def tmp(tmp_path):
    return tmp_path
