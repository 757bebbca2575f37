"""Ctrl-C: SIGINT to a Python process in the middle of a long solve (or batch) raises
KeyboardInterrupt there within moments, and the process is left with the threads it had
before the call (the search's threads were stopped and joined, not abandoned).

Each child is told to search courtyard deal 4 (still `unknown` after minutes) with a time
budget of ten minutes: a child that ignored Ctrl-C would run that long, and the parent gives
up on it after a minute.
"""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent(
    """
    import os, sys, time
    import castle

    def threads():
        return len(os.listdir("/proc/self/task"))

    what = sys.argv[1]
    before = threads()
    print("ready", flush=True)
    try:
        if what == "solve":
            castle.solve(castle.deal("courtyard", 4), max_seconds=600, threads=int(sys.argv[2]))
        else:
            for row in castle.batch("1..100000", "courtyard", threads=2, max_seconds=600):
                pass
        print("finished", flush=True)
    except KeyboardInterrupt:
        for _ in range(200):
            if threads() <= before:
                break
            time.sleep(0.05)
        print("interrupted", before, threads(), flush=True)
    """
)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
@pytest.mark.parametrize(
    "args", [["solve", "1"], ["solve", "2"], ["batch"]], ids=["solve", "solve-2-threads", "batch"]
)
def test_ctrl_c_raises_keyboard_interrupt_and_leaves_no_thread(args):
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "ready"
        # Well into the search (the module's import is done: "ready" came after it).
        try:
            child.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            pass
        assert child.poll() is None, child.stderr.read()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    words = out.split()
    assert words[:1] == ["interrupted"], out + err
    before, after = int(words[1]), int(words[2])
    assert after <= before, f"{after - before} threads left behind"
    assert child.returncode == 0, err
