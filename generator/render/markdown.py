"""Markdown for untrusted text (task instructions): safe by construction.

- ``html=False``: raw HTML in the source is shown as text, never as markup.
- Links are kept only for ``http``, ``https`` and ``mailto``; every other
  scheme (``javascript:``, ``data:``, ``file:``, ``vbscript:`` ...) and every
  relative link (it would point at nothing inside the site) is left as the
  literal source text.  External links get ``rel="nofollow noopener noreferrer"``.
- Images are never loaded (they could track readers or break the page's
  Content-Security-Policy): an image becomes a link to it, or plain alt text.
- Headings are shifted down two levels so the instruction nests under the
  page's own ``h2`` section; task-list boxes become text marks.
- Inputs over ``MAX_CHARS`` are cut at that size with a visible notice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markupsafe import Markup, escape

__all__ = ["MAX_CHARS", "is_safe_url", "render_markdown"]

MAX_CHARS = 200_000
_ALLOWED_URL = re.compile(r"^(?:https?://|mailto:)", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_REL = "nofollow noopener noreferrer"


def is_safe_url(url: str) -> bool:
    """Only absolute http(s) and mailto URLs become links."""
    return bool(_ALLOWED_URL.match(_CONTROL.sub("", url)))


def _link_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    token.attrSet("rel", _REL)
    token.attrSet("class", "external")
    return self.renderToken(tokens, idx, options, env)


def _image(self: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env) or "image"
    src = token.attrGet("src") or ""
    label = escape(f"image: {alt}")
    if is_safe_url(str(src)):
        return f'<a href="{escape(src)}" rel="{_REL}" class="external">[{label}]</a>'
    return f"[{label}]"


def _list_item_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    result = self.renderToken(tokens, idx, options, env)
    if token.meta and "checked" in token.meta:
        mark = "☑" if token.meta["checked"] else "☐"
        state = "done" if token.meta["checked"] else "not done"
        result += f'<span class="task-mark" title="{state}">{mark}</span> '
    return result


def _shift_headings(state: Any) -> None:
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            level = min(6, int(token.tag[1]) + 2)
            token.tag = f"h{level}"


def _table_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    return '<div class="table-wrap">' + self.renderToken(tokens, idx, options, env)


def _table_close(self: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>"


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("gfm-like2", {"html": False, "linkify": False, "typographer": False})
    md.validateLink = is_safe_url  # type: ignore[method-assign]
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("image", _image)
    md.add_render_rule("list_item_open", _list_item_open)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    md.core.ruler.push("evalsite_shift_headings", _shift_headings)
    return md


def render_markdown(source: str, *, max_chars: int = MAX_CHARS) -> Markup:
    """Render untrusted Markdown to HTML that is safe to embed in a page."""
    truncated = len(source) > max_chars
    html = _parser().render(source[:max_chars] if truncated else source)
    if truncated:
        html += (
            '<p class="notice warning">Truncated: only the first '
            f"{max_chars:,} of {len(source):,} characters are shown.</p>\n"
        )
    return Markup(html)
