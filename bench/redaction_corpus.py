"""Recall and false positives of the redaction, before and after issue 26 (not a timed test).

Prints, per kind of the synthetic corpus (``tests/redaction/corpus.py``), how many of its secrets
the old redactor (``generator/model/redaction.py`` at commit cc19ed5, read with ``git show``) and
the current one redact, the seven evasions, and the false positives per 1,000 lines of the synthetic
CTF transcripts.  Run from the repository root: ``.venv/bin/python bench/redaction_corpus.py``.
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "redaction"))

from corpus import CLEAN, EVASIONS, SECRETS  # noqa: E402

from generator.model.redaction import Redactor  # noqa: E402

OLD_COMMIT = "cc19ed5"


def old_redactor() -> Any | None:
    """The redactor as it was before issue 26, or None outside a git checkout holding that commit."""
    try:
        source = subprocess.run(
            ["git", "show", f"{OLD_COMMIT}:generator/model/redaction.py"],
            cwd=ROOT,
            capture_output=True,
            check=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    module = types.ModuleType("old_redaction")
    sys.modules["old_redaction"] = module
    exec(compile(source, "old_redaction.py", "exec"), module.__dict__)  # noqa: S102 - our own old code
    return module.Redactor()


def hidden(out: str, secret: str) -> bool:
    """Neither the secret nor its second half (what an evasion leaves plain) is in *out*."""
    return secret not in out and secret[len(secret) // 2 + 1 :] not in out


def main() -> int:
    new = Redactor()
    old = old_redactor()
    rows: dict[str, list[int]] = {}
    for kind, text, secret in SECRETS + EVASIONS:
        row = rows.setdefault(kind, [0, 0, 0])
        row[0] += 1
        row[1] += old is not None and hidden(old.text(text), secret)
        row[2] += hidden(new.text(text), secret)
    width = max(map(len, rows))
    print(f"{'kind':<{width}}  secrets  old  now")
    for kind, (count, before, after) in rows.items():
        print(f"{kind:<{width}}  {count:>7}  {before:>3}  {after:>3}")
    total = [sum(row[i] for row in rows.values()) for i in range(3)]
    print(f"{'total':<{width}}  {total[0]:>7}  {total[1]:>3}  {total[2]:>3}")
    print(f"kinds: {len(rows)}")
    for name, redactor in (("old", old), ("now", new)):
        if redactor is None:
            print(f"{name}: not available")
            continue
        changed = sum(1 for line in CLEAN if redactor.text(line) != line)
        rate = 1000 * changed / len(CLEAN)
        print(f"false positives {name}: {changed} of {len(CLEAN)} clean lines = {rate:.1f} per 1,000")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
