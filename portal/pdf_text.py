"""Text and pages for PDFs drawn with the built-in fonts (Helvetica, Courier; Latin-1 only):
nothing of the machine goes into the file, so the same content gives the same bytes
everywhere. Used by the proof of delivery and by invoices."""

from __future__ import annotations

import unicodedata

from fpdf import FPDF

FOLD = str.maketrans(
    {
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2026": "...",
        "\u20ac": "EUR",
        "\u2022": "-",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2192": "->",
        "\u2265": ">=",
        "\u2264": "<=",
    }
)


def latin1(text: object) -> str:
    """Text the built-in fonts can draw: typographic signs folded, accents kept, anything
    else outside Latin-1 decomposed or replaced by '?'."""
    value = str(text).translate(FOLD)
    value = "".join(
        ch
        if ord(ch) < 256
        else unicodedata.normalize("NFKD", ch).encode("latin-1", "ignore").decode("latin-1") or "?"
        for ch in value
    )
    return value


INK = (33, 37, 41)
MUTED = (108, 117, 125)
RULE = (206, 212, 218)
ACCENT = (22, 93, 140)
WIDTH = 180  # A4 less 15 mm margins


class A4Document(FPDF):
    """An A4 page with 15 mm margins and a footer line: a text on the left, page n/N."""

    def __init__(self, footer_text: str):
        super().__init__(orientation="P", unit="mm", format="A4")
        self.footer_text = footer_text
        self.set_margins(15, 15, 15)
        self.set_auto_page_break(True, margin=18)

    def footer(self):
        self.set_y(-12)
        self.set_font("Helvetica", "", 7.5)
        self.set_text_color(*MUTED)
        self.cell(WIDTH * 0.8, 5, latin1(self.footer_text))
        self.cell(WIDTH * 0.2, 5, f"{self.page_no()}/{{nb}}", align="R")
