"""An invoice or a credit note as a PDF for people (fpdf2, built-in fonts): the same content as
its UBL document, made and stored with it at issue, so a customer without Peppol gets both by
e-mail and both say the same. Pure (no Flask, no database) and deterministic: the creation
date is the issue date and nothing of the machine goes in. Labels are Dutch with English
beside them: the carrier's customers abroad read the same file."""

from __future__ import annotations

from datetime import UTC, datetime, time
from decimal import Decimal

from fpdf.enums import XPos, YPos

from portal.billing import ubl
from portal.billing.pricing import cents
from portal.identifiers import compact
from portal.pdf_text import ACCENT, INK, MUTED, RULE, WIDTH, A4Document, latin1

CATEGORY_TEXT = {
    "S": "",
    "Z": "0% (nultarief / zero rated)",
    "E": "vrijgesteld / exempt",
    "AE": "btw verlegd / reverse charge",
    "O": "niet onderworpen aan btw / not subject to VAT",
}
COLUMNS = (  # label, width, align
    ("Datum / Date", 22, "L"),
    ("Omschrijving / Description", 70, "L"),
    ("Aantal / Qty", 22, "R"),
    ("Prijs / Price", 22, "R"),
    ("Btw / VAT", 18, "R"),
    ("Bedrag / Amount", 26, "R"),
)


def _money(amount: Decimal, currency: str = "EUR") -> str:
    """1234.5 as "EUR 1.234,50" (Dutch separators; the euro sign is not Latin-1)."""
    value = f"{cents(amount):,.2f}".replace(",", "_").replace(".", ",").replace("_", ".")
    return f"{currency} {value}"


def _number(value: Decimal | None) -> str:
    if value is None:
        return ""
    text = "0" if value == 0 else f"{value.normalize():f}"
    return text.replace(".", ",")


def _day(value) -> str:
    return value.strftime("%d-%m-%Y") if value else ""


def render(invoice: ubl.Invoice) -> bytes:
    """The document as PDF bytes: the same bytes each time for the same document."""
    title = "Creditnota / Credit note" if invoice.is_creditnota else "Factuur / Invoice"
    seller = invoice.verkoper
    pdf = A4Document(f"{seller.naam} - {title} {invoice.nummer}")
    pdf.set_creation_date(datetime.combine(invoice.datum, time(12), tzinfo=UTC))
    pdf.set_title(latin1(f"{title} {invoice.nummer}"))
    pdf.set_author(latin1(seller.naam))
    pdf.set_creator("Rijplan")
    pdf.alias_nb_pages()
    pdf.add_page()

    pdf.set_text_color(*INK)
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(WIDTH, 7, latin1(seller.naam), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font("Helvetica", "", 9)
    pdf.set_text_color(*MUTED)
    for line in _party_lines(seller, with_ids=True, iban=invoice.iban):
        pdf.cell(WIDTH, 4.5, latin1(line), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(6)

    pdf.set_text_color(*ACCENT)
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(WIDTH, 9, latin1(f"{title} {invoice.nummer}"), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    _heading(pdf, invoice)
    _lines_table(pdf, invoice)
    _totals(pdf, invoice)
    _notes(pdf, invoice)
    return bytes(pdf.output())


def _facts(invoice: ubl.Invoice) -> list[tuple[str, str]]:
    """The document's dates, period, what it credits and the buyer's reference."""
    facts = [("Datum / Date", _day(invoice.datum))]
    if invoice.vervaldatum and not invoice.is_creditnota:
        facts.append(("Vervaldatum / Due", _day(invoice.vervaldatum)))
    if invoice.periode_van and invoice.periode_tot:
        facts.append(
            ("Periode / Period", f"{_day(invoice.periode_van)} - {_day(invoice.periode_tot)}")
        )
    if invoice.gecrediteerd:
        facts.append(
            (
                "Crediteert / Credits",
                f"{invoice.gecrediteerd.nummer} ({_day(invoice.gecrediteerd.datum)})",
            )
        )
    facts.append(("Uw referentie / Your reference", invoice.koper_referentie))
    return facts


def _heading(pdf: A4Document, invoice: ubl.Invoice) -> None:
    """The facts on the left and the buyer on the right, side by side."""
    buyer = invoice.koper
    pdf.set_text_color(*INK)
    pdf.set_font("Helvetica", "", 9.5)
    top = pdf.get_y() + 2
    pdf.set_y(top)
    for label, value in _facts(invoice):
        pdf.set_font("Helvetica", "", 8.5)
        pdf.set_text_color(*MUTED)
        pdf.cell(40, 5, latin1(label))
        pdf.set_text_color(*INK)
        pdf.set_font("Helvetica", "", 9.5)
        pdf.cell(60, 5, latin1(value), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    after_facts = pdf.get_y()
    pdf.set_xy(120, top)
    pdf.set_font("Helvetica", "B", 10)
    pdf.multi_cell(75, 5, latin1(buyer.naam), new_x=XPos.LEFT, new_y=YPos.NEXT)
    pdf.set_font("Helvetica", "", 9)
    for line in _party_lines(buyer, with_ids=True):
        pdf.set_x(120)
        pdf.multi_cell(75, 4.5, latin1(line), new_x=XPos.LEFT, new_y=YPos.NEXT)
    pdf.set_y(max(after_facts, pdf.get_y()) + 6)


def _note_texts(invoice: ubl.Invoice) -> list[str]:
    """What the VAT breakdown, the credited invoice or the payment asks to be said."""
    notes = []
    for row in ubl.vat_breakdown(invoice.regels):
        if row.categorie == "AE":
            buyer_vat = compact(invoice.koper.btw_nummer) or ""
            notes.append(f"Btw verlegd / VAT reverse charged ({buyer_vat}).")
        elif row.categorie in ("E", "O") and row.reden:
            notes.append(f"{CATEGORY_TEXT[row.categorie]}: {row.reden}")
    if invoice.is_creditnota:
        notes.append(
            f"Deze creditnota corrigeert factuur {invoice.gecrediteerd.nummer}. "
            f"This credit note corrects invoice {invoice.gecrediteerd.nummer}."
        )
        if invoice.betaalvoorwaarden:
            notes.append(invoice.betaalvoorwaarden)
    elif invoice.iban:
        notes.append(
            f"Graag betalen voor {_day(invoice.vervaldatum)} op {compact(invoice.iban)} "
            f"o.v.v. {invoice.betaalreferentie or invoice.nummer}. / Please pay by "
            f"{_day(invoice.vervaldatum)} quoting {invoice.betaalreferentie or invoice.nummer}."
        )
    return notes


def _notes(pdf: A4Document, invoice: ubl.Invoice) -> None:
    notes = _note_texts(invoice)
    if notes:
        pdf.ln(4)
        pdf.set_font("Helvetica", "", 8.5)
        pdf.set_text_color(*INK)
        for note in notes:
            pdf.multi_cell(WIDTH, 4.5, latin1(note), new_x=XPos.LMARGIN, new_y=YPos.NEXT)


def _party_lines(party: ubl.Party, *, with_ids: bool, iban: str | None = None) -> list[str]:
    lines = [party.adres or "", " ".join(p for p in (party.postcode, party.stad) if p)]
    if party.land and party.land.upper() != "NL":
        lines.append(party.land.upper())
    if with_ids:
        ids = []
        if party.kvk_nummer:
            ids.append(f"KvK {compact(party.kvk_nummer)}")
        if party.btw_nummer:
            ids.append(f"Btw/VAT {compact(party.btw_nummer)}")
        if party.gln:
            ids.append(f"GLN {party.gln}")
        if ids:
            lines.append(" - ".join(ids))
    if iban:
        lines.append(f"IBAN {compact(iban)}")
    if party.email:
        lines.append(party.email)
    return [line for line in lines if line.strip()]


def _lines_table(pdf: A4Document, invoice: ubl.Invoice) -> None:
    currency = invoice.valuta
    pdf.set_font("Helvetica", "B", 8)
    pdf.set_text_color(*MUTED)
    for label, width, align in COLUMNS:
        pdf.cell(width, 6, latin1(label), align=align)
    pdf.ln(6)
    pdf.set_draw_color(*RULE)
    pdf.line(15, pdf.get_y(), 15 + WIDTH, pdf.get_y())
    pdf.set_text_color(*INK)
    for line in invoice.regels:
        quantity, _unit, price, note = ubl.quantity_and_price(line)
        cat = ubl.category(line)
        rate = {"AE": "verlegd", "O": "n.v.t.", "E": "vrijgesteld"}.get(
            cat, f"{_number(line.btw_procent or Decimal(0))}%"
        )
        unit = line.eenheid if note is None else ""
        qty = f"{_number(quantity)} {unit or ''}".strip()
        description = line.naam
        extra = [t for t in (line.omschrijving, line.notitie, note) if t]
        y = pdf.get_y() + 1
        pdf.set_xy(15, y)
        pdf.set_font("Helvetica", "", 8.5)
        pdf.cell(22, 5, _day(line.datum))
        x_desc = pdf.get_x()
        pdf.multi_cell(70, 5, latin1(description), new_x=XPos.RIGHT, new_y=YPos.TOP)
        end_desc = pdf.get_y()
        pdf.set_xy(x_desc + 70, y)
        pdf.cell(22, 5, latin1(qty), align="R")
        pdf.cell(22, 5, latin1(_number(price)), align="R")
        pdf.cell(18, 5, latin1(rate), align="R")
        pdf.cell(26, 5, latin1(_money(line.bedrag, currency)), align="R")
        pdf.set_y(max(y + 5, end_desc))
        if extra:
            pdf.set_x(x_desc)
            pdf.set_font("Helvetica", "", 7.5)
            pdf.set_text_color(*MUTED)
            pdf.multi_cell(70, 4, latin1("; ".join(extra)), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            pdf.set_text_color(*INK)
        pdf.line(15, pdf.get_y() + 0.5, 15 + WIDTH, pdf.get_y() + 0.5)


def _totals(pdf: A4Document, invoice: ubl.Invoice) -> None:
    currency = invoice.valuta
    net, vat = ubl.totals(invoice.regels)
    pdf.ln(4)
    rows = [("Totaal zonder btw / Net", _money(net, currency))]
    for row in ubl.vat_breakdown(invoice.regels):
        label = (
            f"Btw / VAT {_number(row.procent)}% over {_money(row.grondslag, currency)}"
            if row.categorie == "S"
            else f"{CATEGORY_TEXT[row.categorie]} over {_money(row.grondslag, currency)}"
        )
        rows.append((label, _money(row.btw, currency)))
    total_label = "Te crediteren / Credited" if invoice.is_creditnota else "Te betalen / Total"
    rows.append((total_label, _money(net + vat, currency)))
    for index, (label, value) in enumerate(rows):
        last = index == len(rows) - 1
        pdf.set_font("Helvetica", "B" if last else "", 10 if last else 9)
        pdf.set_x(15 + WIDTH - 120)
        pdf.cell(90, 5.5, latin1(label), align="R")
        pdf.cell(30, 5.5, latin1(value), align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
