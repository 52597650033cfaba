"""Shared fixtures for the site tests: one hostile site built per session."""

from __future__ import annotations

import pytest
from sitefixtures import FixtureCore, write_config

from generator.pipelines.build import build_site
from generator.read.config import load_config


@pytest.fixture(scope="session")
def hostile_build(tmp_path_factory):
    """(site folder, inputs folder, build report) of the hostile fixture site."""
    root = tmp_path_factory.mktemp("hostile-inputs")
    config = load_config(write_config(root))
    out = tmp_path_factory.mktemp("hostile-site") / "_site"
    report = build_site(config, out, core=FixtureCore())
    return out, root, report


@pytest.fixture(scope="session")
def hostile_site(hostile_build):
    return hostile_build[0]
