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
