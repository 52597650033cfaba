"""Every hardening promise keeps a regression test (issues 11 and 31).

Issue 11 closed thirteen holes; issue 31 found that five of its promises had quietly stopped
holding after speed work, because no test noticed.  This index names, for each hole, the test that
fails when the hole opens again; the test below fails when one of them is renamed or deleted, so a
refactoring cannot drop a promise's test without changing this list (and saying why in review).
Every test in ``tests/hostile/`` runs under an alarm (``conftest.py``): a hang is a failure.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]

#: hole -> the tests that fail when it opens again ("file::test function").
PROMISES: dict[str, tuple[str, ...]] = {
    # issue 11
    "11.1 no output overwrites an input": (
        "hostile/test_ledger_files.py::test_summarize_never_writes_over_its_inputs",
        "hostile/test_compare_outputs.py::test_out_inside_an_experiment_is_refused",
    ),
    "11.2 repair never trusts an unverified backup": (
        "hostile/test_ledger_files.py::test_repair_never_trusts_a_torn_backup",
    ),
    "11.3 no mode forced on a foreign file": (
        "hostile/test_ledger_files.py::test_append_through_a_link_keeps_the_shared_ledgers_mode",
    ),
    "11.4 a FIFO never hangs a command": ("hostile/test_ledger_inputs.py::test_a_fifo_input_fails_at_once",),
    "11.5 a ledger reached through a link keeps its lock": (
        "hostile/test_ledger_files.py::test_an_append_through_a_link_waits_for_the_real_files_lock",
    ),
    "11.6 page names never collide; giant numbers never sink a site": (
        "hostile/test_names_slugs.py::test_a_site_with_both_names_builds_both_task_pages",
        "hostile/test_reports_numbers.py::test_a_site_with_absurd_raw_stdout_still_builds_the_comparison",
    ),
    "11.7 one bad report never blanks a comparison": (
        "hostile/test_reports_numbers.py::test_a_report_with_unusable_values_is_a_disclosed_skip",
    ),
    "11.8 names cannot impersonate each other": (
        "hostile/test_names_display.py::test_the_site_shows_impersonators_apart",
    ),
    "11.9 the swap deletes only its own files": (
        "hostile/test_site_output.py::test_a_copied_marker_does_not_let_a_build_delete_other_files",
    ),
    "11.10 no litter; one locked read of a ledger": (
        "hostile/test_site_output.py::test_a_killed_build_leaves_a_folder_the_next_build_removes",
        "hostile/test_ledger_inputs.py::test_the_build_digest_and_summary_come_from_one_locked_read",
    ),
    "11.11 report.md carries no active markup": (
        "hostile/test_markdown_escape.py::test_a_hostile_task_name_is_inert_in_report_md",
    ),
    "11.12 every input and field has a size limit": (
        "hostile/test_ledger_inputs.py::test_an_oversized_sparse_ledger_is_refused_without_reading_it",
        "hostile/test_ledger_inputs.py::test_an_oversized_receipt_on_stdin_or_in_a_file_is_refused",
        "hostile/test_caps_fields.py::test_a_5_mb_check_name_does_not_inflate_the_pages",
    ),
    "11.13 clean one-line errors": ("hostile/test_clean_errors.py::test_hostile_config_gives_one_plain_error",),
    # issue 31
    "31.1 a FIFO as the site config fails at once": (
        "hostile/test_fifo.py::test_a_fifo_as_the_site_config_fails_at_once",
    ),
    "31.2 every untrusted name is isolated": (
        "hostile/test_names_display.py::test_every_planted_name_is_isolated_on_every_page",
    ),
    "31.3 a sparse ledger costs bounded memory": (
        "ledger/test_long_lines.py::test_a_huge_sparse_tail_is_read_in_bounded_memory",
        "ledger/test_long_lines.py::test_a_line_past_the_cap_is_too_long_and_the_rest_is_read",
    ),
    "31.4 a full stdout is worded like the other errors": (
        "hostile/test_compare_outputs.py::test_every_command_words_a_full_stdout_like_the_others",
    ),
    "31.5 a killed build is always cleaned": (
        "hostile/test_site_output.py::test_a_killed_build_is_cleaned_whatever_it_was_doing",
    ),
}


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


@pytest.mark.parametrize("hole", sorted(PROMISES))
def test_every_promise_names_tests_that_exist(hole: str) -> None:
    for reference in PROMISES[hole]:
        file, _, function = reference.partition("::")
        assert function in _functions(TESTS / file), f"{hole}: {reference} is gone"


def test_thirteen_holes_and_five_regressions_are_covered() -> None:
    assert sum(hole.startswith("11.") for hole in PROMISES) == 13
    assert sum(hole.startswith("31.") for hole in PROMISES) == 5
