"""The core never imports Textual: agents' verbs stay fast and the core stays testable alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import review

CORE = sorted(
    path.stem
    for path in Path(review.__file__).parent.glob("*.py")
    if path.stem not in {"__init__", "__main__", "cli"}
)


def test_core_modules_do_not_import_textual() -> None:
    code = (
        "import sys\n"
        f"for name in {CORE!r}: __import__('review.' + name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert len(CORE) >= 6
