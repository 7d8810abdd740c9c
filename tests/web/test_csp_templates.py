"""Every template keeps to the portal's Content-Security-Policy (script-src 'self', style-src
'self'): no inline event handler, javascript: URL, inline script or style element, style
attribute, or hx-on (htmx evaluates it, and allowEval is off). The browser would refuse each of
them, so the control it belongs to would silently do nothing.

The templates are read as HTML with their Jinja parts blanked out; a Jinja call that renders an
attribute (a WTForms field called with onchange=..., style=...) is read too."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from portal.web import CSP

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data"}
# A keyword argument that renders an attribute the policy refuses, in a Jinja call.
JINJA_ATTRIBUTE = re.compile(
    r"""[(,]\s*(on[a-z]+|style|hx_on\w*)\s*=|["'](on[a-z]+|style)["']\s*:"""
)


class Refusals(HTMLParser):
    """What the CSP would refuse in one template, with line numbers."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        line = self.getpos()[0]
        for name, value in attrs:
            if re.fullmatch(r"on[a-z]+", name):
                self.found.append(f"line {line}: <{tag} {name}=…> (inline event handler)")
            elif name == "style":
                self.found.append(f"line {line}: <{tag} style=…> (inline style)")
            elif name.startswith(("hx-on", "data-hx-on")):
                self.found.append(f"line {line}: <{tag} {name}=…> (htmx evaluates it)")
            elif name in URL_ATTRIBUTES and value and re.match(r"\s*javascript:", value, re.I):
                self.found.append(f"line {line}: <{tag} {name}=javascript:…>")
        if tag == "script" and not dict(attrs).get("src"):
            self.found.append(f"line {line}: inline <script>")
        elif tag == "style":
            self.found.append(f"line {line}: inline <style>")


def blank_jinja(source: str) -> str:
    """The template with every Jinja part replaced by spaces (lines kept)."""
    return JINJA.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)


def refusals(source: str) -> list[str]:
    parser = Refusals()
    parser.feed(blank_jinja(source))
    parser.close()
    found = parser.found
    for match in JINJA.finditer(source):
        for attribute in JINJA_ATTRIBUTE.finditer(match.group(0)):
            line = source.count("\n", 0, match.start()) + 1
            name = attribute.group(1) or attribute.group(2)
            found.append(f"line {line}: {name}= rendered by Jinja")
    return found


def test_the_policy_refuses_inline_script_and_style():
    """What this scan guards is what the policy says (were it to allow inline code, the scan
    would be guarding nothing)."""
    directives = dict(part.strip().split(" ", 1) for part in CSP.split(";") if part.strip())
    assert "'unsafe-inline'" not in directives["script-src"]
    assert "'unsafe-inline'" not in directives["style-src"]
    assert "'unsafe-eval'" not in directives["script-src"]


@pytest.mark.parametrize(
    "path",
    sorted(TEMPLATES.rglob("*.html")),
    ids=lambda path: str(path.relative_to(TEMPLATES)),
)
def test_no_template_holds_what_the_policy_refuses(path):
    assert refusals(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("snippet", "what"),
    [
        ('<select name="klant" onchange="this.form.requestSubmit()">', "onchange"),
        ('<button onClick="go()">', "onclick"),
        ('<a href=" JavaScript:void(0)">', "javascript:"),
        ('<p style="color: red">', "style"),
        ("<script>alert(1)</script>", "<script>"),
        ("<style>p { color: red }</style>", "<style>"),
        ('<div hx-on:click="go()">', "hx-on"),
        ('{{ form.klant(onchange="this.form.submit()") }}', "onchange"),
        ('{{ f(**{"style": "width: 2rem"}) }}', "style"),
        ('<div {% if x %}style="{{ y }}"{% endif %}>', "style"),
    ],
)
def test_the_scan_finds_each_kind(snippet, what):
    assert refusals(snippet), f"{what} not found in {snippet!r}"


def test_the_scan_leaves_allowed_markup_alone():
    allowed = (
        "<script src=\"{{ url_for('static', filename='js/portal.js') }}\" defer></script>"
        '<select data-submit-on-change data-onchange="x"><option>a</option></select>'
        '<a href="/javascript-tips">JavaScript</a><p class="muted">style= onchange=</p>'
        '{{ form.naam(autocomplete="off", **{"aria-invalid": "true"}) }}'
    )
    assert refusals(allowed) == []
