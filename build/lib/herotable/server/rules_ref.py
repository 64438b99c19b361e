"""The rules reference at /rules: the package's server/rules/*.md rendered to HTML (markdown-it-py, raw HTML off),
with an anchor per ruling, so a rule id anywhere on the table page is a link to the rule it names (/rules#R-LTL-9)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markupsafe import Markup

from herotable.server.presenter import listed
from herotable.table.game import game_for

RULES_DIR = Path(__file__).resolve().parent / "rules"  # package data: an installed copy shows them too
RULING = re.compile(r"\bR-[A-Z]+-\d+\b")  # R-LTL-9, R-CV-4, R-T-2: a game's own prefix too


@dataclass(frozen=True)
class Book:
    slug: str
    title: str
    html: Markup
    rulings: tuple[str, ...]


def _anchor(html: str, anchored: set[str]) -> tuple[str, list[str]]:
    """Each ruling's first mention becomes its anchor, every later one a link to it; text only, never a tag."""
    found: list[str] = []

    def link(match: re.Match[str]) -> str:
        rid = match.group(0)
        if rid in anchored:
            return f'<a href="#{rid}">{rid}</a>'
        anchored.add(rid)
        found.append(rid)
        return f'<a id="{rid}" class="ruling" href="#{rid}">{rid}</a>'

    parts = re.split(r"(<[^>]*>)", html)
    out = [p if p.startswith("<") else RULING.sub(link, p) for p in parts]
    return "".join(out), found


@functools.cache
def books() -> tuple[Book, ...]:
    """The rule books, rendered once per process. Raises FileNotFoundError naming the folder they are read from."""
    md = MarkdownIt("js-default")  # CommonMark with tables; raw HTML in the Markdown is shown as text
    anchored: set[str] = set()
    out = []
    for presenter in listed():
        if presenter.rules is None:
            continue
        name, title = f"{presenter.rules}.md", game_for(presenter.ruleset).title
        path = RULES_DIR / name
        if not path.exists():
            raise FileNotFoundError(f"the rules reference reads {path}; run the server from a herotable checkout")
        html, found = _anchor(md.render(path.read_text(encoding="utf-8")), anchored)
        found.sort(key=lambda rid: (rid.rsplit("-", 1)[0], int(rid.rsplit("-", 1)[1])))
        out.append(Book(name.removesuffix(".md"), title, Markup(html), tuple(found)))
    return tuple(out)
