"""Browser tests (issue 5): the built site in the system's headless Chromium.

- Playwright drives ``/usr/bin/chromium`` (Debian's package; override with
  ``EVALSITE_CHROMIUM``).  ``playwright install`` is never needed or run.
- No browser (or no playwright): every browser test skips with the reason, on a
  developer machine.  With ``CI=true`` the same condition is a test *error*,
  so CI cannot go green without running them.
- The example site (``site-config.yaml``, built by the real ``evalsite build``)
  and the hostile site (``tests/site/sitefixtures.py``) are built once per session.
- Screenshots go to ``test-artifacts/screenshots/`` (gitignored).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "site"))  # sitefixtures, sitecheck
sys.path.insert(0, str(Path(__file__).resolve().parent))  # browsing

import browsing
from sitefixtures import build_hostile_site

CHROMIUM = Path(os.environ.get("EVALSITE_CHROMIUM", "/usr/bin/chromium"))
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def playwright_instance():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        browsing.unavailable(f"the Python package playwright is not installed ({error})")
    try:
        import axe_playwright_python  # noqa: F401
    except ImportError as error:
        browsing.unavailable(f"the Python package axe-playwright-python is not installed ({error})")
    manager = sync_playwright()
    instance = manager.start()
    yield instance
    instance.stop()


@pytest.fixture(scope="session")
def browser(playwright_instance):
    if not CHROMIUM.is_file() or not os.access(CHROMIUM, os.X_OK):
        browsing.unavailable(f"no Chromium executable at {CHROMIUM}")
    try:
        instance = playwright_instance.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS)
    except Exception as error:  # noqa: BLE001 - any launch failure means "no usable browser"
        browsing.unavailable(f"Chromium at {CHROMIUM} did not start: {str(error).splitlines()[0]}")
    yield instance
    instance.close()


@pytest.fixture(scope="session")
def example_site(tmp_path_factory) -> Path:
    """The bundled example, built by ``evalsite build`` exactly as ``make site`` does."""
    out = tmp_path_factory.mktemp("browser-example") / "_site"
    # a copy of the committed example history: the trend pages are built, the file is never appended to
    history = out.parent / "history.jsonl"
    shutil.copyfile(REPO / "examples" / "history" / "history.jsonl", history)
    env = {**os.environ, "EVALSITE_NO_PROGRESS": "1"}
    env.pop("SOURCE_DATE_EPOCH", None)
    result = subprocess.run(
        [sys.executable, "-m", "generator", "build", "--config", "site-config.yaml", "--out", str(out)]
        + ["--history", str(history)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr
    return out


@pytest.fixture(scope="session")
def realscale_site(tmp_path_factory) -> Path:
    """The synthetic real-scale site (``tests/support/realscale.py``), built once per session."""
    from tests.support.realscale import make_realscale_site

    root = tmp_path_factory.mktemp("browser-realscale")
    config = make_realscale_site(root)
    out = root / "site"
    env = {**os.environ, "EVALSITE_NO_PROGRESS": "1", "SOURCE_DATE_EPOCH": "1700000000"}
    result = subprocess.run(
        [sys.executable, "-m", "generator", "build", "--config", str(config), "--out", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory) -> Path:
    """Hostile strings in every field, a failing comparison and ledger, dialog payloads."""
    out = tmp_path_factory.mktemp("browser-hostile") / "_site"
    return build_hostile_site(out, entry_errors=True, dialogs=True)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """test-artifacts/screenshots/, emptied of the previous run's images (and axe reports).

    Under pytest-xdist every worker has its own session: the first to get here empties the folder
    once for the whole run (a marker named by the run's id, taken under a lock), so no worker deletes
    another's images."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")
    with open(SCREENSHOTS / ".lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = SCREENSHOTS / f".run-{run}"
        if not run or not marker.exists():
            for old in [*SCREENSHOTS.glob("*.png"), *SCREENSHOTS.glob(".run-*")]:
                old.unlink(missing_ok=True)
            for old in (SCREENSHOTS.parent / "axe").glob("*.json"):
                old.unlink(missing_ok=True)
            if run:
                marker.touch()
    return SCREENSHOTS


@pytest.fixture(scope="session")
def context(browser):
    """One browser context for the session; any request that leaves file:// is aborted.

    (Every request is also recorded on its page's Visit, so one to outside the
    site is reported even though it never reaches the network.)"""
    ctx = browser.new_context(viewport=browsing.DESKTOP)
    ctx.set_default_timeout(15_000)
    ctx.route(lambda url: not url.startswith("file:"), lambda route: route.abort())
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def site_page(context):
    """``site_page(path, root)``: the page, opened once per session and shared by tests.

    Loading plotly.min.js takes seconds, so tests that only read a page or
    interact without changing what others check (hover, sort, a filter that is
    cleared again) share one loaded copy.  Everything the browser reports stays
    on the Visit, so a later test also sees a problem an earlier one caused."""
    cache: dict[Path, browsing.Visit] = {}

    def _open(path: Path, root: Path) -> browsing.Visit:
        key = path.resolve()
        if key not in cache:
            cache[key] = browsing.open_page(context, path, root)
        # a page in the background gets no animation frames, and Playwright's
        # clicks wait for them
        cache[key].page.bring_to_front()
        return cache[key]

    yield _open
    for result in cache.values():
        result.close()


@pytest.fixture
def visit(context):
    """``visit(path, root, viewport=...)``: a fresh page for this test only (closed after it)."""
    visits: list[browsing.Visit] = []

    def _visit(path: Path, root: Path, **kwargs) -> browsing.Visit:
        result = browsing.open_page(context, path, root, **kwargs)
        visits.append(result)
        return result

    yield _visit
    for result in visits:
        result.close()
