"""Render and write a site's pages on every core: worker processes, results merged in page order.

Each page bundle (its HTML, ``data.json`` and extras) depends on that bundle alone, so workers
render and write bundles into the staged site folder in any order while the parent keeps the
bookkeeping in bundle order: it claims every path first (so two pages claiming one file, or an
unsafe path, fail exactly as a serial build fails), then merges each worker's sizes, SHA-256
digests and redaction markers.  The files, the manifest and therefore the site are byte-identical
to a serial build.  Small sites, platforms without ``fork`` and ``EVALSITE_WORKERS=1`` write in
this process.  A :class:`Deferred` item (a comparison's task page) is made where it is written:
the workers, forked after the comparison was computed, build its page model from what they
inherited, so the parent neither builds nor sends a thousand page models.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from generator.model.redaction import Redactor
from generator.pages.models import PageBundle
from generator.pages.urls import page_dir
from generator.pipelines import parallel
from generator.render.env import render_page
from generator.write.site import SiteWriter

__all__ = ["POOL_MIN_PAGES", "Deferred", "Item", "bundle_paths", "write_bundles", "write_one", "write_page"]

#: Below this many pages forking costs more than it saves (a 13-system leaderboard, 93 pages, gains
#: about 0.4 s of 2.3 s on two idle cores; on busy cores the pool gains nothing at any size).
POOL_MIN_PAGES = 64


@runtime_checkable
class Deferred(Protocol):
    """A page made only when it is written (a comparison's task page, a leaderboard's system or pair
    page: its model is built in the worker that renders it); its URL and the paths it writes are
    known before."""

    @property
    def url(self) -> str: ...
    @property
    def paths(self) -> tuple[str, ...]: ...
    def bundle(self) -> PageBundle: ...


Item = PageBundle | Deferred


def _made(item: Item) -> PageBundle:
    return item.bundle() if isinstance(item, Deferred) else item


def _item_url(item: Item) -> str:
    return item.url if isinstance(item, Deferred) else item.page.meta.url


#: Bundles per task sent to a worker (results still come back in bundle order).
_CHUNK = 8


def bundle_paths(bundle: Item) -> list[str]:
    """The site paths one bundle writes, in the order a serial build writes them."""
    if isinstance(bundle, Deferred):
        return list(bundle.paths)
    folder = page_dir(bundle.page.meta.url)
    prefix = f"{folder}/" if folder else ""
    paths = [bundle.page.meta.url]
    if bundle.data is not None:
        paths.append(prefix + "data.json")
    paths.extend(prefix + name for name, _content in bundle.extras)
    return paths


def write_one(writer: SiteWriter, bundle: PageBundle, templates: Path) -> int:
    """Render and write one bundle with *writer*; the page's size in bytes."""
    html = render_page(bundle.page, templates, writer.redactor)
    return write_page(writer, bundle.page.meta.url, html, bundle.data, bundle.extras)


def write_page(writer: SiteWriter, url: str, html: str, data: object, extras: Sequence[tuple[str, object]] = ()) -> int:
    """A rendered page, its ``data.json`` (none when *data* is None) and its extras (text as it is,
    anything else as JSON) in the page's folder; the page's size in bytes."""
    folder = page_dir(url)
    prefix = f"{folder}/" if folder else ""
    writer.write_text(url, html)
    if data is not None:  # a leaderboard's system page links the board's data.json instead of a copy
        writer.write_json(prefix + "data.json", data)
    for name, content in extras:
        if isinstance(content, str):
            writer.write_text(prefix + name, content)
        else:
            writer.write_json(prefix + name, content)
    return len(html.encode("utf-8"))


_Result = tuple[int, dict[str, int], dict[str, str], dict[str, set[str]]]
_Shared = tuple[Sequence[Item], Path, Path, Redactor]  # the items, the templates, the site root, the redactor


def _job(shared: _Shared, indices: range) -> list[_Result]:
    """Bundles ``indices`` rendered and written by one worker: each page's size and what it wrote."""
    bundles, templates, root, redactor = shared
    out: list[_Result] = []
    for index in indices:
        writer = SiteWriter(root, redactor)  # its own record of what this bundle wrote
        size = write_one(writer, _made(bundles[index]), templates)
        out.append((size, writer.written, writer.digests, writer.redacted))
    return out


def write_bundles(
    writer: SiteWriter,
    bundles: Sequence[Item],
    templates: Path,
    on_page: Callable[[str, int], None],
    tick: Callable[[], None] = lambda: None,
) -> None:
    """Write every bundle; ``on_page(url, size)`` is called in bundle order, then ``tick``.

    What exists now (the comparison, its document, the page builders: millions of objects on a large
    site) stays out of the garbage collector meanwhile: no collection walks it again and again while
    the pages are made, and in forked workers no memory page of it is copied only to be walked.
    """
    workers = min(parallel.workers(len(bundles), POOL_MIN_PAGES), len(bundles))
    gc.freeze()
    try:
        _write_all(writer, bundles, templates, on_page, tick, workers)
    finally:
        gc.unfreeze()


def _write_all(
    writer: SiteWriter,
    bundles: Sequence[Item],
    templates: Path,
    on_page: Callable[[str, int], None],
    tick: Callable[[], None],
    workers: int,
) -> None:
    if workers < 2:
        for item in bundles:
            bundle = _made(item)
            on_page(bundle.page.meta.url, write_one(writer, bundle, templates))
            tick()
        return
    for item in bundles:
        for path in bundle_paths(item):
            writer.claim(path)
    chunks = [range(start, min(start + _CHUNK, len(bundles))) for start in range(0, len(bundles), _CHUNK)]
    shared = (bundles, templates, writer.root, writer.redactor)
    with contextlib.closing(parallel.ordered_map(_job, shared, chunks, workers)) as done:
        results = (result for chunk in done for result in chunk)
        for item, (size, written, digests, redacted) in zip(bundles, results, strict=True):
            writer.merge(written, digests, redacted)
            on_page(_item_url(item), size)
            tick()
