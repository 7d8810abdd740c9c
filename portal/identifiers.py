"""Business identifiers an e-invoice names a party by, checked as their schemes define them:
the Dutch Chamber of Commerce number (KvK), the GS1 Global Location Number (GLN) and a Peppol
participant id. A shared leaf: customers check them when saved, billing when it writes UBL."""

from __future__ import annotations

import re

# The Electronic Address Scheme codes Peppol BIS Billing 3.0 accepts (rule PEPPOL-EN16931-CL008)
EAS_SCHEMES = frozenset((
    "0002", "0007", "0009", "0037", "0060", "0088", "0096", "0097", "0106", "0130", "0135",
    "0142", "0151", "0183", "0184", "0188", "0190", "0191", "0192", "0193", "0195", "0196",
    "0198", "0199", "0200", "0201", "0202", "0204", "0208", "0209", "0210", "0211", "0212",
    "0213", "0215", "0216", "0218", "0221", "0230", "9901", "9910", "9913", "9914", "9915",
    "9918", "9919", "9920", "9922", "9923", "9924", "9925", "9926", "9927", "9928", "9929",
    "9930", "9931", "9932", "9933", "9934", "9935", "9936", "9937", "9938", "9939", "9940",
    "9941", "9942", "9943", "9944", "9945", "9946", "9947", "9948", "9949", "9950", "9951",
    "9952", "9953", "9957", "9959",
))  # fmt: skip
KVK_SCHEME = "0106"  # ISO 6523 ICD: Dutch chamber of commerce (KvK)
GLN_SCHEME = "0088"  # GS1 Global Location Number
PEPPOL_ID = re.compile(r"(\d{4}):([^\s:]{1,100})")
KVK = re.compile(r"\d{8}")
DUTCH_VAT = re.compile(r"NL[0-9]{9}B[0-9]{2}")
EU_VAT = re.compile(r"[A-Z]{2}[0-9A-Z]{2,13}")


def compact(identifier: str | None) -> str | None:
    """An identifier without spaces, dots and dashes, upper case (NL 1234.56.789 B01)."""
    return re.sub(r"[\s.\-]", "", identifier).upper() if identifier else None


def kvk_valid(kvk: str | None) -> bool:
    """A KvK number is 8 digits."""
    return bool(kvk) and bool(KVK.fullmatch(kvk))


def gln_valid(gln: str | None) -> bool:
    """13 digits whose last is the GS1 check digit (PEPPOL-COMMON-R040): the others weighted
    1 and 3 from the left, the check digit making the sum a multiple of 10."""
    if not gln or not re.fullmatch(r"\d{13}", gln):
        return False
    digits = [int(c) for c in gln]
    total = sum(d * (3 if i % 2 else 1) for i, d in enumerate(digits[:12]))
    return (10 - total % 10) % 10 == digits[12]


def parse_peppol_id(value: str | None) -> tuple[str, str] | None:
    """A participant id written scheme:id (0106:12345678) as (scheme, id), when the scheme is
    one Peppol accepts; else None."""
    match = PEPPOL_ID.fullmatch((value or "").strip())
    if match and match.group(1) in EAS_SCHEMES:
        return match.group(1), match.group(2)
    return None


def normalise_vat(value: str) -> str:
    """A VAT number as stored: upper case without spaces, dots or dashes."""
    return re.sub(r"[\s.\-]", "", value).upper()


def vat_problem(value: str) -> dict | None:
    """Why value is no VAT number (a Dutch one strictly, other EU ones loosely), or None."""
    compact = normalise_vat(value)
    if compact.startswith("NL"):
        if not DUTCH_VAT.fullmatch(compact):
            return {
                "field": "btw_nummer",
                "code": "vat_dutch",
                "message": "a Dutch VAT number is NL + 9 digits + B + 2 digits",
            }
        return None
    if not EU_VAT.fullmatch(compact):
        return {
            "field": "btw_nummer",
            "code": "vat_format",
            "message": "a country code and 2 to 13 letters or digits",
        }
    return None
