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
        "zengine/protocol/cli.py",
        "zengine/tools/match.py",
    ):
        assert module in names
    assert not any(name.startswith("zengine/tests/") for name in names)
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Operating System :: POSIX" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def _neighbour_wheel(tmp: Path) -> Path:
    """A distribution shipping generic top-level ``engine`` and ``tools`` packages."""
    source = tmp / "neighbour"
    for package in ("engine", "tools"):
        (source / package).mkdir(parents=True)
        (source / package / "__init__.py").write_text("NEIGHBOUR = True\n")
        (source / package / "stats.py").write_text("raise ImportError('not zengine')\n")
    (source / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "neighbour"\nversion = "1.0"\n'
        '[tool.setuptools]\npackages = ["engine", "tools"]\n'
    )
    return _build_wheel(source, tmp / "neighbour-dist")


def test_installed_beside_generic_packages(wheel: Path, tmp_path: Path) -> None:
    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
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
            [python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", built],
            check=True,
            capture_output=True,
            text=True,
        )

    for command in (
        [env / "bin" / "zengine", "perft", "3"],
        [python, "-m", "zengine", "perft", "3"],
    ):
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[0] == "Nodes searched: 46472"
    # The referee loads with its own dependencies.
    done = subprocess.run(
        [env / "bin" / "zengine", "match", "--help"], capture_output=True, text=True, timeout=120
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
        [python, "-m", "pip", "uninstall", "-q", "-y", "neighbour"],
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
