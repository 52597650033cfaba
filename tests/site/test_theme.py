"""``theme_dir:``: the user's templates and assets first on the loader path (issue 27), read safely."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "history"))

from histkit import START, build, write_build  # noqa: E402

from generator.render.env import default_templates_dir  # noqa: E402


def _with_theme(root: Path, theme: Path) -> None:
    config = write_build(root, START)
    config.write_text(config.read_text(encoding="utf-8") + f"theme_dir: {theme.name}\n", encoding="utf-8")


def test_a_theme_overrides_a_template_and_the_css_and_autoescape_stays_on(tmp_path: Path) -> None:
    theme = tmp_path / "my-theme"
    (theme / "assets").mkdir(parents=True)
    base = (default_templates_dir() / "base.html").read_text(encoding="utf-8")
    assert "</body>" in base
    (theme / "base.html").write_text(base.replace("</body>", "<p class=\"house\">{{ '<b>' }}</p>\n</body>"))
    (theme / "assets" / "site.css").write_text("body { color: rebeccapurple; }\n", encoding="utf-8")
    _with_theme(tmp_path, theme)
    code, _, err = build(tmp_path)
    assert code == 0, err
    page = (tmp_path / "out" / "comparisons" / "a" / "index.html").read_text(encoding="utf-8")
    index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    for html in (page, index):
        assert '<p class="house">&lt;b&gt;</p>' in html  # the theme's template, still autoescaped
    assert (tmp_path / "out" / "assets" / "site.css").read_text(encoding="utf-8") == "body { color: rebeccapurple; }\n"
    assert "my-theme" not in page and "evalsite-theme-" not in page  # no local path leaks


def test_without_a_theme_the_site_is_unchanged_and_a_theme_of_no_files_changes_nothing(tmp_path: Path) -> None:
    write_build(tmp_path, START)
    assert build(tmp_path)[0] == 0
    plain = {p.relative_to(tmp_path / "out"): p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    (tmp_path / "empty-theme").mkdir()
    _with_theme(tmp_path, tmp_path / "empty-theme")
    assert build(tmp_path)[0] == 0
    themed = {p.relative_to(tmp_path / "out"): p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    assert themed.keys() == plain.keys()
    assert [k for k in plain if plain[k] != themed[k] and k.name != ".evalsite-site"] == []


def test_a_link_in_the_theme_is_refused_in_one_line(tmp_path: Path) -> None:
    theme = tmp_path / "linked"
    theme.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("do not publish\n", encoding="utf-8")
    (theme / "base.html").symlink_to(secret)
    _with_theme(tmp_path, theme)
    code, _, err = build(tmp_path)
    assert code == 2 and err.count("\n") == 1 and "theme_dir: 'base.html' is a symbolic link" in err
    assert not (tmp_path / "out").exists()


def test_a_missing_theme_folder_is_a_config_error(tmp_path: Path) -> None:
    _with_theme(tmp_path, tmp_path / "nowhere")
    code, _, err = build(tmp_path)
    assert code == 2 and "theme_dir" in err and "'nowhere' is not an existing folder" in err
