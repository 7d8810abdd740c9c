"""What an e-invoice needs and lacks, as codes for the caller to word: EN 16931's rules (the
VAT categories' BR-S/Z/E/AE/O, BR-CO-25, the code lists BR-CL-04 and BR-CL-14), the Dutch
rules of Peppol BIS 3.0 (NL-R-002..007) and Peppol's own (R010, R020, R110/R111, CL008,
COMMON-R040); and what keeps a document that can be made from going over Peppol."""

from __future__ import annotations

import re

from portal import countries
from portal.billing.pricing import HUNDRED
from portal.billing.ubl_model import (
    CATEGORIES,
    ZERO_RATED,
    Invoice,
    Party,
    _clean,
    category,
    endpoint_id,
    totals,
)
from portal.identifiers import compact as _compact
from portal.identifiers import gln_valid, parse_peppol_id


def problems(invoice: Invoice) -> tuple[str, ...]:
    """Codes for what the document needs and lacks (EN 16931, the Dutch rules, the law);
    empty when it can be made."""
    found: list[str] = []
    lines = invoice.regels
    if not lines:
        found.append("no_lines")
    if not _clean(invoice.nummer):
        found.append("no_number")
    if not _clean(invoice.koper_referentie):
        found.append("no_buyer_reference")
    if not countries.is_currency((invoice.valuta or "").upper()):
        found.append("currency_invalid")  # BR-CL-04, ISO 4217
    start, end = invoice.periode_van, invoice.periode_tot
    if start and end and start > end:
        found.append("period_reversed")
    if any((start and line.datum < start) or (end and line.datum > end) for line in lines):
        found.append("line_outside_period")  # PEPPOL-EN16931-R110/R111
    if invoice.is_creditnota and not invoice.gecrediteerd:
        found.append("no_invoice_reference")  # NL-R-001
    net, vat = totals(lines)
    if (
        not invoice.is_creditnota
        and net + vat > 0
        and not invoice.vervaldatum
        and not _clean(invoice.betaalvoorwaarden)
    ):
        found.append("no_due_date")  # BR-CO-25
    if any(not _clean(line.naam) for line in lines):
        found.append("line_no_name")
    found += _category_problems(invoice)
    for role, party in (("seller", invoice.verkoper), ("buyer", invoice.koper)):
        found += [f"{role}_{code}" for code in _party_problems(party, seller=role == "seller")]
    seller = invoice.verkoper
    if (seller.land or "").upper() == "NL":
        if not _compact(seller.kvk_nummer):
            found.append("seller_no_kvk")  # NL-R-003
        if not invoice.is_creditnota and not _compact(invoice.iban):
            found.append("seller_no_iban")  # NL-R-007: a way to pay
    if _compact(invoice.iban) and not _iban_valid(_compact(invoice.iban)):
        found.append("seller_iban_invalid")
    return tuple(dict.fromkeys(found))


def peppol_problems(invoice: Invoice) -> tuple[str, ...]:
    """What keeps a document that can be made from going over Peppol (it goes by e-mail)."""
    found = []
    if endpoint_id(invoice.koper) is None:
        found.append("buyer_no_endpoint")  # PEPPOL-EN16931-R010
    dutch = (invoice.verkoper.land or "").upper() == (invoice.koper.land or "").upper() == "NL"
    if dutch and not _compact(invoice.koper.kvk_nummer):
        found.append("buyer_no_kvk")  # NL-R-005
    return tuple(found)


def _category_problems(invoice: Invoice) -> list[str]:
    found = []
    cats = {category(line) for line in invoice.regels}
    for line in invoice.regels:
        cat, rate = category(line), line.btw_procent
        if cat not in CATEGORIES:
            found.append("line_vat_category_invalid")
        elif cat == "S" and not (rate is not None and 0 < rate <= HUNDRED):
            found.append("line_vat_invalid")  # BR-S-05
        elif cat in ZERO_RATED and rate not in (None, 0):
            found.append("line_vat_not_zero")  # BR-Z-05, BR-E-05, BR-AE-05
        elif cat == "Z" and not _clean(line.btw_vrijstellingsreden):
            found.append("line_zero_no_evidence")
        elif cat == "E" and not _clean(line.btw_vrijstellingsreden):
            found.append("line_exempt_no_reason")  # BR-E-10
    if "O" in cats and len(cats) > 1:
        found.append("not_subject_mixed")  # BR-O-11..14
    if cats - {"O"} and not _compact(invoice.verkoper.btw_nummer):
        found.append("seller_no_vat")  # BR-S-02, BR-Z-02, BR-E-02, BR-AE-02
    if "AE" in cats and not _compact(invoice.koper.btw_nummer):
        found.append("buyer_no_vat_reverse_charge")  # BR-AE-02
    return found


def _party_problems(party: Party, *, seller: bool) -> list[str]:
    found = []
    if not _clean(party.naam):
        found.append("no_name")
    if not countries.is_country((party.land or "").upper()):
        found.append("no_country")  # BR-CL-14
    if seller and endpoint_id(party, seller=True) is None:
        found.append("no_endpoint")  # PEPPOL-EN16931-R020
    if party.peppol_id and parse_peppol_id(party.peppol_id) is None:
        found.append("peppol_id_invalid")  # PEPPOL-EN16931-CL008
    kvk = _compact(party.kvk_nummer)
    if kvk and not re.fullmatch(r"\d{8}", kvk):
        found.append("kvk_invalid")
    if _compact(party.gln) and not gln_valid(_compact(party.gln)):
        found.append("gln_invalid")  # PEPPOL-COMMON-R040
    vat = _compact(party.btw_nummer)
    if vat and not re.fullmatch(r"[A-Z]{2}[0-9A-Z+*]{2,13}", vat):
        found.append("vat_invalid")  # BR-CO-09: a country prefix
    dutch = (party.land or "").upper() == "NL"
    if dutch and not all(_clean(v) for v in (party.adres, party.postcode, party.stad)):
        found.append("address_incomplete")  # NL-R-002, NL-R-004
    return found


def _iban_valid(iban: str) -> bool:
    """Whether iban is shaped like one and its check digits hold (ISO 13616, mod 97)."""
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", iban):
        return False
    return int("".join(str(int(c, 36)) for c in iban[4:] + iban[:4])) % 97 == 1
