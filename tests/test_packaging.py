"""The installed distribution: one top-level import name, ``zengine``, that survives neighbours.

The wheel is built offline from the project's files (no build isolation), and installed into a
fresh virtual environment beside a distribution that ships its own ``engine`` and ``tools``
packages, the collision that used to overwrite the referee's modules.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import click
import pytest
import tqdm

ROOT = Path(__file__).resolve().parent.parent


def _project_copy(dest: Path) -> Path:
    """The project's tracked and new (not ignored) files, copied to ``dest``."""
    names = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    for name in filter(None, names):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def _build_wheel(source: Path, out: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = out.glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = _project_copy(tmp_path_factory.mktemp("src"))
    return _build_wheel(source, tmp_path_factory.mktemp("dist"))


def test_wheel_has_one_top_level_name(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (top_level,) = [n for n in names if n.endswith(".dist-info/top_level.txt")]
        assert archive.read(top_level).decode().split() == ["zengine"]
        metadata = archive.read(top_level.replace("top_level.txt", "METADATA")).decode()
    roots = {name.split("/")[0] for name in names}
    assert {r for r in roots if not r.endswith(".dist-info")} == {"zengine"}
    for module in (
        "zengine/__init__.py",
        "zengine/__main__.py",
        "zengine/py.typed",
        "zengine/engine/search.py",
        "zengine/cli.py",
        "zengine/tools/referee/match.py",
    ):
        assert module in names
    assert not any(name.startswith("zengine/tests/") for name in names)
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Operating System :: POSIX" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def _neighbour_wheel(tmp: Path) -> Path:
    """A distribution shipping generic top-level ``engine`` and ``tools`` packages, written as
    a wheel directly (a build would cost seconds and test nothing of ours)."""
    wheel = tmp / "neighbour-1.0-py3-none-any.whl"
    files = {
        f"{package}/{name}": text
        for package in ("engine", "tools")
        for name, text in (
            ("__init__.py", "NEIGHBOUR = True\n"),
            ("stats.py", "raise ImportError('not zengine')\n"),
        )
    }
    files["neighbour-1.0.dist-info/METADATA"] = (
        "Metadata-Version: 2.1\nName: neighbour\nVersion: 1.0\n"
    )
    files["neighbour-1.0.dist-info/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files["neighbour-1.0.dist-info/top_level.txt"] = "engine\ntools\n"
    record = [f"{name},," for name in files] + ["neighbour-1.0.dist-info/RECORD,,"]
    files["neighbour-1.0.dist-info/RECORD"] = "\n".join(record) + "\n"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def test_installed_beside_generic_packages(wheel: Path, tmp_path: Path) -> None:
    env = tmp_path / "venv"
    # No pip inside (ensurepip costs seconds): this environment's pip installs into it.
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # click and tqdm, the runtime dependencies, copied from this environment: the test stays
    # offline.
    for package in (click, tqdm):
        shutil.copytree(Path(package.__file__).parent, site / package.__name__)
    for built in (_neighbour_wheel(tmp_path), wheel):
        subprocess.run(
            [*pip, "install", "-q", "--no-deps", "--no-index", built],
            check=True,
            capture_output=True,
            text=True,
        )

    done = subprocess.run(
        [env / "bin" / "zengine", "perft", "3"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "Nodes searched: 46472"
    # python -m zengine, and the referee loads with its own dependencies.
    done = subprocess.run(
        [python, "-m", "zengine", "match", "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0 and "--ratinginterval" in done.stdout, done.stderr
    neighbour = subprocess.run(
        [python, "-c", "import engine, tools; print(engine.NEIGHBOUR)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert neighbour.stdout.strip() == "True"
    # Uninstalling the neighbour leaves zengine whole.
    subprocess.run(
        [*pip, "uninstall", "-q", "-y", "neighbour"],
        check=True,
        capture_output=True,
        text=True,
    )
    done = subprocess.run(
        [python, "-m", "zengine", "perft", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
