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


def _script(name: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``scripts/<name> args`` run to its end with ``env``: exit code, stdout, stderr."""
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / name), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="the script finds the checkout with git")
def test_strength_vs_baseline_needs_zengine_on_path(tmp_path: Path) -> None:
    # Without zengine on PATH it says what to do and stops before installing the baseline.
    git = Path(shutil.which("git") or "git").parent
    env = {"PATH": f"{git}:/usr/bin:/bin", "HOME": str(tmp_path)}
    if shutil.which("zengine", path=env["PATH"]):
        pytest.skip("a zengine is installed system-wide")
    done = _script("strength-vs-baseline", "zola", env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: no zengine on PATH: install this checkout (pip install -e .) and activate its"
        " virtual environment"
    ]
    assert done.stdout == ""  # its first line comes after the baseline's install


def _sigint_default() -> None:
    """In the child before exec: Ctrl-C as at a terminal. An in-process test of zengine's
    Ctrl-C leaves SIGINT ignored in pytest, and a shell started with it ignored cannot trap it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


ZENGINE = shutil.which("zengine", path=str(Path(sys.executable).parent))
#: The commit scripts/baseline installs by default.
BASELINE = "e61bcc8"


def _fake_baseline(tmp_path: Path) -> dict[str, str]:
    """The environment of a script run whose baseline is this checkout's zengine, "installed"
    in a BASELINE_DIR under ``tmp_path`` (no 40-second install)."""
    assert ZENGINE is not None
    bin_dir = tmp_path / "baseline" / BASELINE / "venv" / "bin"
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
        preexec_fn=_sigint_default,
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


#: A ``python3`` whose ``-m venv`` makes a fake virtual environment at once: its ``pip install``
#: waits FAKE_PIP_SECONDS, fails if FAKE_PIP_FAIL is set or its sources went away meanwhile (as
#: a real install fails), else writes an executable ``zengine``.
FAKE_PYTHON = """#!/bin/sh
[ "$1 $2" = "-m venv" ] || exec /usr/bin/env -u PATH python3 "$@"
mkdir -p "$3/bin"
cat >"$3/bin/pip" <<'END'
#!/bin/sh
touch "$3/.fake-pip-$$"
sleep "${FAKE_PIP_SECONDS:-0}"
[ -z "${FAKE_PIP_FAIL:-}" ] || { echo "pip: failed" >&2; exit 1; }
[ -e "$3/.fake-pip-$$" ] || { echo "pip: the sources went away" >&2; exit 1; }
printf '#!/bin/sh\\necho fake\\n' >"$(dirname "$0")/zengine" && chmod +x "$(dirname "$0")/zengine"
END
chmod +x "$3/bin/pip"
"""


def _baseline_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a scripts/baseline run with the fake ``python3`` first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python3").write_text(FAKE_PYTHON)
    (bin_dir / "python3").chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", **extra}


def _baseline(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / "baseline"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )


def _commit(name: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short=7", name], capture_output=True, text=True
    )
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="the script reads the history with git")
def test_baseline_dir_keeps_what_it_holds(tmp_path: Path) -> None:
    # BASELINE_DIR holds one folder per commit, as .baseline/ does: what else it holds stays
    # (the whole folder was removed when it held no venv/bin/zengine).
    top = tmp_path / "d"
    (top / "precious").mkdir(parents=True)
    (top / "notes.txt").write_text("y\n")
    env = _baseline_env(tmp_path, BASELINE_DIR=str(top))
    done = _baseline(env)
    assert (top / "precious").is_dir()
    assert (top / "notes.txt").read_text() == "y\n"
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{top / BASELINE}/venv/bin/zengine\n"
    # A failed install removes its own folder only.
    done = _baseline({**env, "FAKE_PIP_FAIL": "1"}, "HEAD")
    assert done.returncode != 0
    assert sorted(path.name for path in top.iterdir()) == [
        ".lock",
        BASELINE,
        "notes.txt",
        "precious",
    ]


@pytest.mark.skipif(shutil.which("git") is None, reason="the script reads the history with git")
def test_baseline_dir_installs_the_commit_asked_for(tmp_path: Path) -> None:
    # With BASELINE_DIR set, the commit named was ignored: any install there was returned.
    env = _baseline_env(tmp_path, BASELINE_DIR=str(tmp_path / "d"))
    first = _baseline(env)
    other = _baseline(env, "HEAD")
    assert first.returncode == other.returncode == 0, (first.stderr, other.stderr)
    assert first.stdout == f"{tmp_path / 'd' / BASELINE}/venv/bin/zengine\n"
    assert other.stdout == f"{tmp_path / 'd' / _commit('HEAD')}/venv/bin/zengine\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="the script reads the history with git")
def test_baseline_refuses_extra_arguments(tmp_path: Path) -> None:
    done = _baseline(_baseline_env(tmp_path, BASELINE_DIR=str(tmp_path / "d")), "a", "b")
    assert done.returncode == 2
    assert done.stderr == (
        "baseline: error: one commit at most, got 2 arguments (usage: scripts/baseline [COMMIT])\n"
    )
    assert not (tmp_path / "d").exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="the script reads the history with git")
def test_baseline_first_installs_at_once(tmp_path: Path) -> None:
    # The second of two first installs removed the first's folder while its pip ran.
    top = tmp_path / "d"
    env = _baseline_env(tmp_path, BASELINE_DIR=str(top), FAKE_PIP_SECONDS="1")
    command = ["bash", str(ROOT / "scripts" / "baseline")]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 10
        while not list(top.glob("**/.fake-pip-*")):  # the first one's pip is running
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        second = _baseline(env)
        out, err = first.communicate(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err
    assert second.returncode == 0, second.stderr
    assert out.decode() == second.stdout == f"{top / BASELINE}/venv/bin/zengine\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="the script finds the checkout with git")
@pytest.mark.skipif(ZENGINE is None, reason="needs the zengine of the test install")
@pytest.mark.parametrize(
    ("settings", "variant", "message"),
    [
        ({}, "zolaa", "unknown variant 'zolaa' (known: zola zola-8 zola-10 zhadu zhadu-star)"),
        ({"GAMES": "abc"}, "zola", "GAMES=abc: must be an even number of games from 2 to 999998"),
        ({"GAMES": "3"}, "zola", "GAMES=3: must be an even number of games from 2 to 999998"),
        (
            {"TC": "bogus"},
            "zola",
            "TC=bogus: must be [moves/]base[+inc] in seconds, base maybe m:ss (e.g. 5+0.05, 1:30+1)",
        ),
        (
            {"TC": "0/5"},
            "zola",
            "TC=0/5: must be [moves/]base[+inc] in seconds, base maybe m:ss (e.g. 5+0.05, 1:30+1)",
        ),
        ({"CONCURRENCY": "0"}, "zola", "CONCURRENCY=0: must be a number of games from 1 to 64"),
        # The referee's limit (tools/referee/config.py, MAX_CONCURRENCY).
        ({"CONCURRENCY": "65"}, "zola", "CONCURRENCY=65: must be a number of games from 1 to 64"),
    ],
)
def test_strength_vs_baseline_checks_settings_first(
    tmp_path: Path, settings: dict[str, str], variant: str, message: str
) -> None:
    # A bad variant or setting is one line and exit 2 before the baseline's install; it failed
    # in each match, after the install, and the script exited 0 leaving a log behind.
    env = _baseline_env(tmp_path, **settings)
    env["PATH"] = f"{Path(str(ZENGINE)).parent}:{env['PATH']}"
    env.update(BASELINE_DIR=str(tmp_path / "baseline"), OUT=str(tmp_path / "out"))
    done = _script("strength-vs-baseline", variant, env=env)
    assert (done.returncode, done.stderr) == (2, f"error: {message}\n")
    assert done.stdout == ""
    assert not (tmp_path / "baseline").exists()
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="the script finds the checkout with git")
@pytest.mark.skipif(ZENGINE is None, reason="needs the zengine of the test install")
def test_strength_vs_baseline_reports_a_failed_match(tmp_path: Path) -> None:
    # A match that fails (here the new engine cannot start) makes the script fail too.
    env = {**_fake_baseline(tmp_path), "GAMES": "2", "TC": "1+0.01", "NEW": "/bin/false"}
    done = _script("strength-vs-baseline", "zola", env=env)
    assert done.returncode == 1, done.stdout
    assert done.stderr == f"error: the match failed for zola: see its log in {tmp_path / 'out'}\n"


def _make_openings_env(**extra: str) -> dict[str, str]:
    """The environment of a scripts/make-openings run with this test install's python."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", **extra}


@pytest.mark.skipif(shutil.which("git") is None, reason="the script finds the checkout with git")
@pytest.mark.parametrize(
    ("settings", "variant", "message"),
    [
        (
            {},
            "zolaa",
            "python -m zengine.tools.dev.openings: error: invalid value for --variant: unknown game"
            " 'zolaa' (known: zola, zola-8, zola-10, zhadu, zhadu-star)",
        ),
        (
            {"COUNT": "abc"},
            "zola",
            "make-openings: error: COUNT=abc: must be a whole number of openings, 1 or more",
        ),
    ],
)
def test_make_openings_bad_command_line(
    settings: dict[str, str], variant: str, message: str
) -> None:
    # One line and exit 2, and no openings/<variant>.txt.part left behind: it was click's
    # three-line usage block, and the file stayed.
    part = ROOT / "openings" / f"{variant}.txt.part"
    try:
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / "make-openings"), variant],
            capture_output=True,
            text=True,
            env=_make_openings_env(**settings),
            timeout=60,
        )
        assert (done.returncode, done.stderr) == (2, message + "\n")
        assert not part.exists()
    finally:
        part.unlink(missing_ok=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="the script finds the checkout with git")
def test_make_openings_ctrl_c() -> None:
    # Ctrl-C: one line, exit code 130, no .part file (it was 'Aborted!', exit code 1, and the
    # file stayed).
    part = ROOT / "openings" / "zola.txt.part"
    before = (ROOT / "openings" / "zola.txt").read_bytes()
    script = subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "make-openings"), "zola"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_make_openings_env(COUNT="100000"),  # never done: openings/zola.txt is not replaced
        start_new_session=True,
        preexec_fn=_sigint_default,
    )
    try:
        deadline = time.monotonic() + 20
        while not (part.exists() and part.stat().st_size > 0):  # the builder runs
            assert script.poll() is None, script.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.killpg(script.pid, signal.SIGINT)
        _, err = script.communicate(timeout=20)
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
            script.wait()
        leftover = part.exists()
        part.unlink(missing_ok=True)
    assert (script.returncode, err) == (130, "python -m zengine.tools.dev.openings: interrupted\n")
    assert not leftover
    assert (ROOT / "openings" / "zola.txt").read_bytes() == before


#: An interpreter without zengine, as a build: what a traceback ends with, and exit status 1.
NO_ZENGINE = """#!/bin/sh
echo "Traceback (most recent call last):" >&2
echo "ModuleNotFoundError: No module named 'zengine'" >&2
exit 1
"""


def _compare_builds(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "compare_builds.py"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_compare_builds_names_a_build_that_fails(tmp_path: Path) -> None:
    # One line naming the build and the reason; it was one line of 2,768 characters holding the
    # whole probe script (the failed command), exit status 1.
    python = tmp_path / "python"
    python.write_text(NO_ZENGINE)
    python.chmod(0o755)
    done = _compare_builds(f"a={python}")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"compare_builds.py: error: build a ({python}): ModuleNotFoundError: No module named"
        " 'zengine'\n"
    )


def test_compare_builds_refuses_a_name_given_twice(tmp_path: Path) -> None:
    # x=A x=B measured B alone, as x.
    python = tmp_path / "python"
    python.write_text(NO_ZENGINE)
    python.chmod(0o755)
    done = _compare_builds(f"x={sys.executable}", f"x={python}")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "compare_builds.py: error: build name 'x' given twice\n"


def test_strength_vs_baseline_caps_concurrency_as_the_referee() -> None:
    from zengine.tools.referee.config import MAX_CONCURRENCY

    script = (ROOT / "scripts" / "strength-vs-baseline").read_text()
    assert f"$concurrency -le {MAX_CONCURRENCY} ]]" in script


def test_compare_builds_refuses_a_limit_folder_without_the_program(tmp_path: Path) -> None:
    done = _compare_builds("--limit", str(tmp_path), f"a={sys.executable}")
    assert done.returncode == 2
    assert done.stderr == (
        f"compare_builds.py: error: --limit: no program {tmp_path}/zola_perft "
        f"(make it with make -C {tmp_path})\n"
    )


def test_compare_builds_speed_to_depth_is_the_geometric_mean_over_shared_positions() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "compare_builds", ROOT / "scripts" / "compare_builds.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.SPEEDUP_POSITIONS = 2
    first = [{5: 1.0, 6: 4.0}, {5: 2.0, 6: 8.0}, {5: 0.01, 6: 1.0}]
    # 2x and 8x at depth 5 (the third position's 0.01 s is below the clock's grain): 4x;
    # depth 6 only where both completed it: 4x then 1x, 2x in all (two positions).
    second = [{5: 0.5, 6: 1.0}, {5: 0.25}, {5: 0.005, 6: 1.0}]
    third = [{5: 1.0}, {}, {}]  # one position per depth: too few for a row
    assert module.depth_speedups([first, second, third]) == [
        (5, ["4.00x (2)", ""]),
        (6, ["2.00x (2)", ""]),
    ]
