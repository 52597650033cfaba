"""Render and write a site's pages on every core: forked workers, results merged in page order.

Each page bundle (its HTML, ``data.json`` and extras) depends on that bundle alone, so workers
render and write bundles into the staged site folder in any order while the parent keeps the
bookkeeping in bundle order: it claims every path first (so two pages claiming one file, or an
unsafe path, fail exactly as a serial build fails), then merges each worker's sizes, SHA-256
digests and redaction markers.  The files, the manifest and therefore the site are byte-identical
to a serial build.  Small sites, platforms without ``fork`` and ``EVALSITE_WORKERS=1`` write in
this process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from generator.model.redaction import Redactor
from generator.pages.urls import page_dir
from generator.render.env import render_page
from generator.write.site import SiteWriter

__all__ = ["POOL_MIN_PAGES", "bundle_paths", "write_bundles"]

#: Below this many pages forking costs more than it saves.
POOL_MIN_PAGES = 200


class Bundle(Protocol):
    """A comparison, ledger or index ``PageBundle`` or a ``LeaderboardBundle``."""

    @property
    def page(self) -> Any: ...
    @property
    def data(self) -> object: ...
    @property
    def extras(self) -> Sequence[tuple[str, object]]: ...


#: How a bundle's page becomes HTML: ``(page, templates, redactor) -> text``.
Renderer = Callable[[Any, Path, Redactor], str]


def _render(page: Any, templates: Path, redactor: Redactor) -> str:
    return render_page(page, templates, redactor)

#: Bundles per task sent to a worker (results still come back in bundle order).
_CHUNK = 8

_JOBS: list[tuple[Sequence[Bundle], Path, SiteWriter, Renderer]] = []  # set before the fork; workers read it


def bundle_paths(bundle: Bundle) -> list[str]:
    """The site paths one bundle writes, in the order a serial build writes them."""
    folder = page_dir(bundle.page.meta.url)
    prefix = f"{folder}/" if folder else ""
    paths = [bundle.page.meta.url]
    if bundle.data is not None:
        paths.append(prefix + "data.json")
    paths.extend(prefix + name for name, _content in bundle.extras)
    return paths


def write_one(writer: SiteWriter, bundle: Bundle, templates: Path, render: Renderer = _render) -> int:
    """Render and write one bundle with *writer*; the page's size in bytes."""
    html = render(bundle.page, templates, writer.redactor)
    folder = page_dir(bundle.page.meta.url)
    prefix = f"{folder}/" if folder else ""
    writer.write_text(bundle.page.meta.url, html)
    if bundle.data is not None:
        writer.write_json(prefix + "data.json", bundle.data)
    for name, content in bundle.extras:
        if isinstance(content, str):
            writer.write_text(prefix + name, content)
        else:
            writer.write_json(prefix + name, content)
    return len(html.encode("utf-8"))


_Result = tuple[int, dict[str, int], dict[str, str], dict[str, set[str]]]


def _job(index: int) -> _Result:
    bundles, templates, parent, render = _JOBS[0]
    writer = SiteWriter(parent.root, parent.redactor)
    size = write_one(writer, bundles[index], templates, render)
    return size, writer.written, writer.digests, writer.redacted


def _workers(pages: int) -> int:
    forced = os.environ.get("EVALSITE_WORKERS", "").strip()
    if forced.isdigit():
        return max(1, int(forced))
    if pages < POOL_MIN_PAGES or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def write_bundles(
    writer: SiteWriter,
    bundles: Sequence[Bundle],
    templates: Path,
    on_page: Callable[[str, int], None],
    tick: Callable[[], None] = lambda: None,
    render: Renderer = _render,
) -> None:
    """Write every bundle; ``on_page(url, size)`` is called in bundle order, then ``tick``."""
    global _JOBS
    workers = min(_workers(len(bundles)), len(bundles))
    if workers < 2:
        for bundle in bundles:
            on_page(bundle.page.meta.url, write_one(writer, bundle, templates, render))
            tick()
        return
    for bundle in bundles:
        for path in bundle_paths(bundle):
            writer.claim(path)
    for bundle in bundles:  # make each folder once, here, before the workers race for them
        folder = page_dir(bundle.page.meta.url)
        if folder:
            writer.root.joinpath(*folder.split("/")).mkdir(parents=True, exist_ok=True)
    _JOBS = [(bundles, templates, writer, render)]
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.imap(_job, range(len(bundles)), chunksize=_CHUNK)
            for bundle, (size, written, digests, redacted) in zip(bundles, results, strict=True):
                writer.merge(written, digests, redacted)
                on_page(bundle.page.meta.url, size)
                tick()
    finally:
        _JOBS = []
