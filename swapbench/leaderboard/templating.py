"""The board's jinja2 environments (templates in templates/), in which every interpolated value is escaped
unless the template asks for it raw: a model name, a revision or a training source from a submission is data on
the page, never markup.

HTML (index.html) is autoescaped, after each value is made plain text (core/display.py: control and
bidirectional characters dropped, one line). Markdown (README.md) has no autoescape of its own in jinja2: its
`finalize` makes each value a literal Markdown cell (markdown_cell), so that a value cannot open a link, a code
span, an HTML tag or a new table cell. In either, `|safe` is how a template asks for a value raw (the plot's
SVG, which matplotlib escaped), and only text the board itself makes is given so; in Markdown `|code` makes a
value a code span and `|code_block` puts it inside a fenced block, each safe for its place.
"""

from __future__ import annotations

import html
from functools import cache
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from ..core.display import markdown_cell, markdown_code, plain_text, submitted

TEMPLATES = "templates"


def _markdown_value(value: object) -> str:
    """Every `{{ }}` of a Markdown template: empty for None, raw for what was marked safe, else a literal cell."""
    if value is None:
        return ""
    return str(value) if isinstance(value, Markup) else markdown_cell(value)


def _html_value(value: object) -> Markup:
    """Every `{{ }}` of an HTML template: empty for None, raw for what was marked safe, else plain text escaped
    for an element or a quoted attribute (html.escape: &, <, >, " and '; autoescape would do the same)."""
    if value is None:
        return Markup("")
    return value if isinstance(value, Markup) else Markup(html.escape(plain_text(value)))


def _url(value: object) -> Markup:
    """A relative link to a board file, percent-encoded: nothing in it can end the link or start another."""
    return Markup(quote(plain_text(value), safe="/"))


def _environment(finalize, autoescape: bool) -> Environment:
    environment = Environment(
        loader=PackageLoader("swapbench.leaderboard", TEMPLATES),
        autoescape=autoescape,
        finalize=finalize,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters.update(submitted=submitted, url=_url)
    return environment


@cache
def markdown_environment() -> Environment:
    environment = _environment(_markdown_value, autoescape=False)
    environment.filters.update(
        code=lambda value: Markup(markdown_code(value)), code_block=lambda value: Markup(plain_text(value))
    )  # one line: cannot close a fence
    return environment


@cache
def html_environment() -> Environment:
    return _environment(_html_value, autoescape=True)


def render_markdown(template: str, **context) -> str:
    return markdown_environment().get_template(template).render(**context)


def render_html_template(template: str, **context) -> str:
    return html_environment().get_template(template).render(**context)
