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


SECRET_NAMES = (
    "deploy-AKIAQ3EGRZLM7XK2WNPB",
    "fetch-ghp_Q3vLx9TzR2mK8pWb4NcY7hJd5FsA1gE6uZ0o",
    "login-password=Xk9mQ2vL7pR4wZtB",
)


def test_a_secret_in_a_task_name_reaches_no_path_and_no_file(tmp_path: Path) -> None:
    """Issue 26, item 3: the slug kept 40 lowercased characters (an AWS key id came back in a page path)."""
    pair(tmp_path, list(SECRET_NAMES))
    code, err, out = build(tmp_path)
    assert code == 0, err
    secrets = ("akiaq3egrzlm7xk2wnpb", "q3vlx9tzr2mk8pwb4ncy", "xk9mq2vl7pr4wztb")
    for path in out.rglob("*"):
        relative = str(path.relative_to(out)).lower()
        assert not any(secret in relative for secret in secrets), relative
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace").lower()
            assert not any(secret in text for secret in secrets), relative


def test_a_slug_keeps_only_short_words() -> None:
    assert name_slug("blind-maze-explorer-5x5").startswith("blind-maze-explorer-5x5-")
    assert name_slug("password=Xk9mQ2vL7pR4wZtB").startswith("n-")  # a redaction rule would change the name
    assert "hunter" not in name_slug("password=hunter2")  # a word with digits past 4 characters
    assert name_slug("build-AKIAQ3EGRZLM7XK2WNPB-now").startswith("n-")
    assert name_slug("task-xq7rt9z2kd").startswith("task-")  # mixed letters and digits past 4: dropped
