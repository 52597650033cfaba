"""Page names are collision-free: 128 bits of SHA-256, not 32 (issue 11, item 6).

The two task names below share the first 32 bits of their SHA-256 and the same
readable prefix, so the old slug (prefix plus eight hex digits) gave both one
output folder and the build stopped with "two pages claim the same output
file".  Found by brute force in 0.3 s; the test proves the collision itself.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from comet_runs import build, pair

from generator.pages.urls import arm_url, name_slug, task_url

PREFIX = "csv-dedupe-" + "x" * 29 + "-"
COLLIDING = (PREFIX + "26361", PREFIX + "51760")


def _old_slug(name: str) -> str:
    prefix = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40].strip("-")
    return f"{prefix}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def test_the_two_names_collide_in_32_bits() -> None:
    first, second = (hashlib.sha256(name.encode()).hexdigest() for name in COLLIDING)
    assert first[:8] == second[:8] == "691a544f" and first != second
    assert _old_slug(COLLIDING[0]) == _old_slug(COLLIDING[1])


def test_their_slugs_and_urls_differ() -> None:
    slugs = {name_slug(name) for name in COLLIDING}
    assert len(slugs) == 2
    assert all(re.fullmatch(r"[a-z0-9-]+-[0-9a-f]{32}", slug) for slug in slugs)
    assert task_url("c", COLLIDING[0]) != task_url("c", COLLIDING[1])
    assert arm_url("l", COLLIDING[0]) != arm_url("l", COLLIDING[1])  # arm ids share the rule


def test_a_32_bit_collision_is_found_quickly_and_does_not_collide_now() -> None:
    """Brute force a fresh 32-bit collision (about 2**16 names), then check the real slugs."""
    seen: dict[str, str] = {}
    index = 0
    while True:
        name = f"task-{'y' * 40}-{index}"
        head = hashlib.sha256(name.encode()).hexdigest()[:8]
        if head in seen:
            break
        seen[head] = name
        index += 1
    other = seen[head]
    assert _old_slug(name) == _old_slug(other)
    assert name_slug(name) != name_slug(other)


def test_a_site_with_both_names_builds_both_task_pages(tmp_path: Path) -> None:
    pair(tmp_path, list(COLLIDING))
    code, err, out = build(tmp_path)
    assert code == 0 and "warning" not in err, err
    pages = sorted((out / "comparisons" / "a" / "tasks").glob("*/index.html"))
    assert len(pages) == 2
    assert {name for name in COLLIDING if any(name in page.read_text() for page in pages)} == set(COLLIDING)
