"""The core never imports Textual: agents' verbs stay fast and the core stays testable alone.
(import-linter checks the same statically in `.ci/run`; this checks what really gets imported.)"""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import review

CORE = sorted(
    module.name
    for module in pkgutil.walk_packages(review.__path__, "review.")
    if not module.name.startswith(("review.tui", "review.cli", "review.__main__"))
)


def test_core_modules_do_not_import_textual() -> None:
    code = (
        "import sys\n"
        f"for name in {CORE!r}: __import__(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert {"review.repo.git", "review.state.store", "review.agents.hooks"} <= set(CORE)
