"""The build backend: setuptools', and mypyc when ``ZENGINE_COMPILE=1`` asks for a compiled build.

``pip install .`` builds the pure-Python package, the default and the reference, which needs no
compiler. ``ZENGINE_COMPILE=1 pip install .`` compiles the hot modules (``[tool.zengine]
compiled`` in pyproject.toml) with mypyc from the same source files: this hook checks for a C
compiler first and adds mypy, which ships mypyc, to the build's requirements; setup.py hands
the modules to it. A request that cannot be built stops with one ``error:`` line.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sysconfig
from pathlib import Path
from typing import Any, NoReturn

from setuptools import build_meta as _setuptools
from setuptools.build_meta import build_editable as _build_editable

# No prepare_metadata_for_build_wheel: pip then takes the metadata from the wheel it builds,
# and the setup script runs mypyc once, not twice.
from setuptools.build_meta import (  # noqa: F401 (PEP 517 hooks, served as they are)
    build_sdist,
    build_wheel,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
)

#: mypyc ships with mypy; the versions that compile the engine are those its type check uses.
MYPYC = "mypy>=1.10"


def fail(reason: str) -> NoReturn:
    """Stop the build with one line that says what to do (pip shows it)."""
    raise SystemExit(f"error: ZENGINE_COMPILE=1: {reason}; `pip install .` builds pure Python")


def compile_requested() -> bool:
    """Whether ``ZENGINE_COMPILE`` asks for the compiled build (1) or not (0 or unset)."""
    flag = os.environ.get("ZENGINE_COMPILE", "0").strip()
    if flag not in ("", "0", "1"):
        raise SystemExit(
            f"error: ZENGINE_COMPILE is 1 (compile the hot modules) or 0, not {flag!r}"
        )
    return flag == "1"


def check_toolchain() -> None:
    """A C compiler and the Python headers, or one line saying which is missing."""
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    if not compiler or shutil.which(compiler[0]) is None:
        fail(f"no C compiler ({' '.join(compiler) or 'CC is empty'} not found)")
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").is_file():
        fail(f"no Python headers ({include}/Python.h; Debian: apt install python3-dev)")


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' requirements, or for a compiled build mypy (after the compiler check).

    The compiled build's list is not asked of setuptools: that runs the setup script, which
    needs mypyc before it is installed; the project declares no setup-time requirements.
    """
    if compile_requested():
        check_toolchain()
        return [MYPYC]
    return list(_setuptools.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    """An editable install is always pure Python: compiled modules would land in the source tree,
    where every other install of that tree (a pure one included) would load them."""
    if compile_requested():
        raise SystemExit(
            "error: ZENGINE_COMPILE=1 builds a regular install, not an editable one (the compiled "
            "modules would land in the source tree): ZENGINE_COMPILE=1 pip install '.[test]'"
        )
    return list(_setuptools.get_requires_for_build_editable(config_settings))


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """setuptools' editable build, behind the same refusal of ``ZENGINE_COMPILE=1``."""
    get_requires_for_build_editable(config_settings)
    return str(_build_editable(wheel_directory, config_settings, metadata_directory))
