"""The installed distribution: one top-level import name, ``zengine``, that survives neighbours.

The wheel is built offline from the project's files (no build isolation), and installed into a
fresh virtual environment beside a distribution that ships its own ``engine`` and ``tools``
packages, the collision that used to overwrite the referee's modules.
"""

from __future__ import annotations

import re
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
#: The report's page files, package data that every report.html inlines.
PAGE_FILES = tuple(
    f"zengine/tools/pictures/{name}" for name in ("report.css", "report.js", "viewer.html")
)


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
        *PAGE_FILES,
    ):
        assert module in names
    assert not any(name.startswith("zengine/tests/") for name in names)
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Operating System :: POSIX" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def test_the_distribution_is_not_the_index_s_zengine(wheel: Path) -> None:
    """The name ``zengine`` on the package index is an unrelated project (a BPMN workflow
    framework): this one is published as another name, which the code asks its version of."""
    from zengine import DISTRIBUTION

    assert DISTRIBUTION != "zengine"
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    assert f"Name: {DISTRIBUTION}\n" in text
    extras = (ROOT / "pyproject.toml").read_text()
    assert f'"{DISTRIBUTION}[cluster]"' in extras  # the test extra brings this one's cluster


#: ``pip install`` advice: the command and its first argument.
INSTALL = re.compile(r"pip install (?:-[-\w]+ )*('[^']+'|[-\w.\[\]]+)")


def test_every_install_advice_installs_this_project() -> None:
    """README, docs, scripts and the command's error lines advise installs that bring this
    project (``.`` from a clone, or its distribution name), never the index's ``zengine``."""
    from zengine import DISTRIBUTION
    from zengine.tools.referee import cluster

    texts = {"cluster.INSTALL_HINT": cluster.INSTALL_HINT}
    for name in ["README.md", *(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]:
        texts[name] = (ROOT / name).read_text(encoding="utf-8")
    for name in ["tools/referee/match.py", "tools/referee/cluster.py", "cli.py"]:
        texts[name] = (ROOT / name).read_text(encoding="utf-8")
    found = 0
    for name, text in texts.items():
        assert "zengine[" not in text, name
        for target in INSTALL.findall(text):
            found += 1
            target = target.strip("'")
            if target.startswith("-"):  # an option alone: "`pip install -e`"
                continue
            ok = target.startswith(".") or target.startswith(DISTRIBUTION)
            ok = ok or target in ("mypy", "zengine-hexapawn")  # a tool; a plugin's own name
            assert ok, f"{name}: pip install {target}"
    assert found >= 4


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
    # The report inlines its page files from the installed package (a match with no game yet
    # shows no viewer, but its markup is read all the same).
    folder = tmp_path / "match"
    folder.mkdir()
    (folder / "config.json").write_text('{"engines": [{"name": "A"}, {"name": "B"}]}')
    done = subprocess.run(
        [env / "bin" / "zengine", "report", str(folder)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    page = (folder / "report.html").read_text(encoding="utf-8")
    for name in PAGE_FILES[:2]:
        text = (ROOT / name.removeprefix("zengine/")).read_text(encoding="utf-8")
        assert text.removesuffix("\n") in page, name
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
