"""Webhook messages as Discord draws them (its dark theme, its embed layout), from the JSON a receiver got: enough to
look at what a channel would show. Only the markdown herotable writes is drawn (bold, italics, strike-through and
backslash escapes)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

_ESCAPED = re.compile(r"\\([\\*_~`|<>\[\]()#-])")
_PLACEHOLDER = "\x00{}\x00"


def markdown(text: str) -> str:
    """Discord's markdown, as far as herotable uses it, to HTML; escaped characters stay as typed."""
    kept: list[str] = []

    def keep(m: re.Match[str]) -> str:
        kept.append(m.group(1))
        return _PLACEHOLDER.format(len(kept) - 1)

    text = html.escape(_ESCAPED.sub(keep, text))
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    text = re.sub(r"~~(.+?)~~", r"<s>\1</s>", text, flags=re.S)
    text = re.sub(r"\*(.+?)\*", r"<em>\1</em>", text)
    text = re.sub("\x00(\\d+)\x00", lambda m: html.escape(kept[int(m.group(1))]), text)
    return text.replace("\n", "<br>")


def _embed(e: dict[str, Any]) -> str:
    colour = f"#{int(e.get('color', 0x202225)):06x}"
    parts = []
    if "author" in e:
        parts.append(f'<div class="author">{html.escape(e["author"]["name"])}</div>')
    title = html.escape(e.get("title", ""))
    if e.get("url"):
        title = f'<a href="{html.escape(e["url"])}">{title}</a>'
    parts.append(f'<div class="title">{title}</div>')
    if e.get("description"):
        parts.append(f'<div class="description">{markdown(e["description"])}</div>')
    for f in e.get("fields", []):
        parts.append(
            f'<div class="field"><div class="name">{html.escape(f["name"])}</div>'
            f'<div class="value">{markdown(f["value"])}</div></div>'
        )
    footer = html.escape(e.get("footer", {}).get("text", ""))
    when = html.escape(e.get("timestamp", "")[:16].replace("T", " "))
    parts.append(f'<div class="footer">{footer}{" • " + when if when else ""}</div>')
    return f'<div class="embed" style="border-left-color:{colour}">{"".join(parts)}</div>'


def discord_page(messages: Sequence[dict[str, Any]]) -> str:
    """A channel holding `messages` (webhook bodies), in Discord's dark theme."""
    rows = "".join(
        '<div class="message"><div class="avatar">h</div><div class="body">'
        f'<div class="head"><span class="who">{html.escape(m.get("username", "webhook"))}</span>'
        '<span class="bot">APP</span></div>'
        f"{''.join(_embed(e) for e in m.get('embeds', []))}</div></div>"
        for m in messages
    )
    return f"""<!doctype html><html><head><meta charset="utf-8"><title># dice</title><style>
body {{ margin: 0; background: #313338; color: #dbdee1; font: 16px/1.375 "gg sans", "Noto Sans", sans-serif; }}
.channel {{ padding: 8px 0 24px; }}
.channel h1 {{ font-size: 16px; color: #f2f3f5; padding: 12px 16px; margin: 0 0 8px;
  border-bottom: 1px solid #1f2023; }}
.message {{ display: flex; gap: 16px; padding: 4px 16px 8px; }}
.avatar {{ flex: 0 0 40px; height: 40px; border-radius: 50%; background: #c0392b; color: #fff; display: grid;
  place-items: center; font-weight: 700; }}
.body {{ min-width: 0; flex: 1; }}
.who {{ color: #f2f3f5; font-weight: 500; }}
.bot {{ background: #5865f2; color: #fff; font-size: 10px; border-radius: 3px; padding: 1px 4px; margin-left: 4px;
  vertical-align: 2px; }}
.embed {{ background: #2b2d31; border-left: 4px solid; border-radius: 4px; padding: 8px 16px 16px 12px;
  max-width: 516px; margin-top: 4px; font-size: 14px; }}
.author {{ font-weight: 600; color: #f2f3f5; margin-top: 8px; }}
.title {{ font-weight: 600; font-size: 16px; margin-top: 8px; color: #f2f3f5; }}
.title a {{ color: #00a8fc; text-decoration: none; }}
.description {{ margin-top: 8px; white-space: normal; overflow-wrap: anywhere; }}
.field {{ margin-top: 8px; }} .field .name {{ font-weight: 600; color: #f2f3f5; }}
.footer {{ margin-top: 8px; font-size: 12px; color: #b5bac1; }}
</style></head><body><div class="channel"><h1># dice</h1>{rows}</div></body></html>"""
