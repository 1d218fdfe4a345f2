"""Helpers of the GUI tests: ``zengine gui`` as a real process on 127.0.0.1 (``--port 0
--no-browser``, its address read from its first line) and headless Chromium driving it."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from zengine.tools.referee.programs import builtin_engine

#: A generous deadline for what must happen (a loaded machine may be slow; no timing is asserted).
PATIENCE = 120
FAKE_ENGINE = Path(__file__).parent / "fake_engines" / "fake_engine.py"


def fake(mode: str, *flags: str) -> str:
    """An ``--engine`` cmd= word for the fake engine in ``mode``."""
    return "cmd=" + " ".join([sys.executable, str(FAKE_ENGINE), mode, *flags])


def default_sigint() -> None:
    """In the child before exec: SIGINT as at a prompt, so that Python turns it into Ctrl-C.
    A suite run in the background (``pytest &``, CI) has SIGINT ignored, and a child would
    inherit that and never stop on the signal the tests send."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def gui(*args: str, cwd: str | None = None) -> Iterator[str]:
    """Run ``zengine gui ARGS --port 0 --no-browser``; yields its address. At the end it is
    stopped with Ctrl-C's signal and must exit with 130."""
    proc = subprocess.Popen(
        [*builtin_engine(), "gui", *args, "--port", "0", "--no-browser"],
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], PATIENCE)
        line = proc.stdout.readline() if ready else ""
        assert line.startswith("zengine gui: http://127.0.0.1:"), (line, proc.stderr)
        yield line.split()[2]
    except BaseException:
        _interrupt(proc)
        raise
    code = _interrupt(proc)
    assert code == 130, proc.stderr.read() if proc.stderr else code


def _interrupt(proc: subprocess.Popen) -> int | None:
    """Ctrl-C's signal, then the exit code (killed if it does not end in time: None)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(PATIENCE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


def make_browser() -> Any:
    """Headless Chromium through chromedriver; skipped where they are absent (CI installs
    them, so there a missing browser fails instead of silently skipping)."""
    missing = None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing = "selenium is not installed (pip install -e '.[test]')"
    browser = next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p),
        None,
    )
    driver_path = shutil.which("chromedriver")
    if missing is None and not (browser and driver_path):
        missing = "chromium and chromedriver are not installed"
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser test in CI: {missing}")
        pytest.skip(missing)
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1200,1000",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(PATIENCE)
    driver.set_script_timeout(PATIENCE)
    return driver


def wait(driver: Any, condition: Any, what: str) -> Any:
    """Wait (generously) for ``condition(driver)`` to be true; its value."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, PATIENCE, poll_frequency=0.05).until(condition, what)


def text(driver: Any, element_id: str) -> str:
    return str(driver.execute_script(f"return document.getElementById('{element_id}').textContent"))


def moves(driver: Any) -> list[str]:
    """The moves of ``#moves``: the last word of each child."""
    return list(
        driver.execute_script(
            "return Array.from(document.querySelectorAll('#moves > li'))"
            ".map(e => e.textContent.trim().split(/\\s+/).pop())"
        )
    )


def click(driver: Any, selector: str) -> None:
    """A real click (at the element's place, on whatever is drawn there)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    element = driver.find_element(By.CSS_SELECTOR, selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    ActionChains(driver).move_to_element(element).click().perform()
