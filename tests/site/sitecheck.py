"""Checks over a built site folder: links and anchors, scripts, leaked paths.

Small and stdlib-only, so the same checks can run in any test suite.
"""

from __future__ import annotations

import hashlib
import posixpath
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _PageScan(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str, int]] = []  # (tag, url, line)
        self.scripts: list[dict[str, str | None]] = []
        self.duplicate_ids: list[str] = []
        self.inline_handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        ident = values.get("id")
        if ident:
            if ident in self.ids:
                self.duplicate_ids.append(ident)
            self.ids.add(ident)
        for name, _value in attrs:
            if name.startswith("on"):
                self.inline_handlers.append(f"<{tag} {name}>")
        for attr in ("href", "src"):
            if values.get(attr) is not None:
                self.links.append((tag, values[attr] or "", self.getpos()[0]))
        if tag == "script":
            self.scripts.append(values)


def scan(path: Path) -> _PageScan:
    """The page's ids, links and scripts; a page read before with the same bytes is not parsed again
    (``check_links`` and ``check_scripts`` read every page of a site; a shared site is read by several
    tests).  Callers only read the result."""
    data = path.read_bytes()
    key = hashlib.sha256(data).digest()
    found = _SCANNED.get(key)
    if found is None:
        found = _PageScan()
        found.feed(data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n"))  # as read_text reads it
        found.close()
        if len(_SCANNED) >= 4096:
            _SCANNED.clear()
        _SCANNED[key] = found
    return found


_SCANNED: dict[bytes, _PageScan] = {}


def check_links(root: Path, *, allowed_external: tuple[str, ...] = ("https://", "http://", "mailto:")) -> list[str]:
    """Every internal href/src resolves to a file, every #fragment to an id. Returns problems."""
    root = root.resolve()
    pages = sorted(root.rglob("*.html"))
    scans = {page: scan(page) for page in pages}
    problems: list[str] = []
    for page, result in scans.items():
        rel_page = page.relative_to(root).as_posix()
        for ident in result.duplicate_ids:
            problems.append(f"{rel_page}: duplicate id {ident!r}")
        for tag, url, line in result.links:
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//"):
                if url.startswith("data:") and tag == "link":
                    continue  # the favicon
                if not url.startswith(allowed_external):
                    problems.append(f"{rel_page}:{line}: <{tag}> {url!r} uses a disallowed scheme")
                continue
            if url.startswith("/"):
                problems.append(f"{rel_page}:{line}: <{tag}> {url!r} is root-absolute")
                continue
            if parts.path:
                target_rel = posixpath.normpath(posixpath.join(posixpath.dirname(rel_page), unquote(parts.path)))
                if target_rel.startswith(".."):
                    problems.append(f"{rel_page}:{line}: <{tag}> {url!r} leaves the site")
                    continue
                target = root / target_rel
                if target.is_dir():
                    problems.append(f"{rel_page}:{line}: <{tag}> {url!r} points at a folder (breaks file://)")
                    continue
                if not target.is_file():
                    problems.append(f"{rel_page}:{line}: <{tag}> {url!r} -> missing file")
                    continue
            else:
                target = page
            if parts.fragment:
                if target.suffix != ".html":
                    problems.append(f"{rel_page}:{line}: fragment on a non-page {url!r}")
                    continue
                ids = scans[target].ids if target in scans else scan(target).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{rel_page}:{line}: <{tag}> {url!r} -> missing anchor")
    return problems


def check_scripts(root: Path) -> list[str]:
    """No inline executable script and no inline event handler on any page."""
    problems = []
    for page in sorted(root.rglob("*.html")):
        result = scan(page)
        rel_page = page.relative_to(root).as_posix()
        for script in result.scripts:
            if script.get("src"):
                continue
            if script.get("type") != "application/json":
                problems.append(f"{rel_page}: inline executable <script>")
        problems += [f"{rel_page}: inline handler {h}" for h in result.inline_handlers]
    return problems


def find_leaks(root: Path, needles: list[str]) -> list[str]:
    """Files whose bytes contain any of *needles* (absolute paths, home, temp folders)."""
    hits = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.name == "plotly.min.js":
            continue
        data = path.read_bytes()
        for needle in needles:
            if needle and needle.encode() in data:
                hits.append(f"{path.relative_to(root)} contains {needle!r}")
    return hits
