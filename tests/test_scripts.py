"""The development scripts' checks that run before any slow work (installing the baseline)."""

from __future__ import annotations

import shutil
import subprocess
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
