"""Settings shared by every test: the Hypothesis profile (``tests/support/hypo.py``), and the example
sites built once per run for every test that reads them (``tests/support/shared.py``)."""

from __future__ import annotations

import pytest

import tests.support.hypo  # noqa: F401  (registers and loads the profile)
from tests.support.shared import Built, bare_example_config, built_once, example_config


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The bundled example site as ``make site`` builds it, trend pages included (read only)."""
    return built_once(tmp_path_factory, "example", example_config)


@pytest.fixture(scope="session")
def bare_example_site(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The bundled example site without its history (read only)."""
    return built_once(tmp_path_factory, "bare-example", bare_example_config)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files holding a test marked ``slow`` run first (their order kept, and the order within each file),
    so that under ``make test-fast`` (one file per worker at a time, ``--no-loadscope-reorder``) no
    worker starts a long file while the other runs out of work."""
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow)
