"""The development scripts' checks that run before any slow work (installing the baseline)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("git") is None, reason="the script finds the checkout with git")
def test_strength_vs_baseline_needs_zengine_on_path(tmp_path: Path) -> None:
    # Without zengine on PATH it says what to do and stops before installing the baseline.
    git = Path(shutil.which("git") or "git").parent
    env = {"PATH": f"{git}:/usr/bin:/bin", "HOME": str(tmp_path)}
    if shutil.which("zengine", path=env["PATH"]):
        pytest.skip("a zengine is installed system-wide")
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "strength-vs-baseline"), "zola"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: no zengine on PATH: install this checkout (pip install -e .) and activate its"
        " virtual environment"
    ]
    assert done.stdout == ""  # its first line comes after the baseline's install


ZENGINE = shutil.which("zengine", path=str(Path(sys.executable).parent))
#: The commit scripts/baseline installs by default.
BASELINE = "e61bcc8"


def _fake_baseline(tmp_path: Path) -> dict[str, str]:
    """The environment of a script run whose baseline is this checkout's zengine, "installed"
    in a BASELINE_DIR under ``tmp_path`` (no 40-second install)."""
    assert ZENGINE is not None
    bin_dir = tmp_path / "baseline" / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "zengine").symlink_to(ZENGINE)
    return {
        **os.environ,
        "PATH": f"{Path(ZENGINE).parent}:{os.environ['PATH']}",
        "BASELINE_DIR": str(tmp_path / "baseline"),
        "OUT": str(tmp_path / "out"),
    }


@pytest.mark.skipif(shutil.which("git") is None, reason="the script finds the checkout with git")
@pytest.mark.skipif(ZENGINE is None, reason="needs the zengine of the test install")
def test_strength_vs_baseline_stops_at_ctrl_c(tmp_path: Path) -> None:
    # Ctrl-C (SIGINT to the process group) during the first match ends the script with 130; it
    # went on with the next variant, because the match handles SIGINT and exits 130 itself.
    env = {**_fake_baseline(tmp_path), "GAMES": "2", "TC": "60+1", "CONCURRENCY": "1"}
    script = subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "strength-vs-baseline"), "zola", "zhadu"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    out_dir = None
    try:
        assert script.stdout is not None
        first = script.stdout.readline()
        assert "output in " in first, script.communicate()
        out_dir = Path(first.rsplit("output in ", 1)[1].strip())
        deadline = time.monotonic() + 20
        # The match is under way (its SIGINT handler set) once it has written its folder.
        while not (out_dir / "zola" / "config.json").exists():
            assert script.poll() is None, script.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.killpg(script.pid, signal.SIGINT)
        out = first
        for line in script.stdout:  # until the script ends, or starts the next match
            out += line
            if line.startswith("== zhadu"):
                break
        assert "== zhadu" not in out
        script.wait(timeout=20)
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
            script.wait()
        if out_dir is not None and not out_dir.is_relative_to(tmp_path):
            shutil.rmtree(out_dir, ignore_errors=True)  # a script without OUT wrote in the checkout
    assert script.returncode == 130
