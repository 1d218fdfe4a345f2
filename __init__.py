"""zengine: an engine, a line protocol and a referee for the board games Zola and Zhadu.

The repository root is this package (``pyproject.toml`` maps ``zengine`` to ``.``), so
``engine/``, ``protocol/`` and ``tools/`` install as ``zengine.engine``, ``zengine.protocol``
and ``zengine.tools``: one top-level import name that no other distribution can overwrite.
Layers: ``engine`` (rules, search, the facade) imports nothing from ``protocol`` or ``tools``.
"""

#: The distribution's name (pyproject.toml): ``zengine`` on the package index is an unrelated
#: project, so this one is installed from its clone (``pip install .``) under another name.
DISTRIBUTION = "zola-zhadu-engine"
