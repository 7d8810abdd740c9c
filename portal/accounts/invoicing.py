"""The carrier's invoicing details, the seller on its e-invoices (UBL): checked and compacted
as stored. Apart from management.py (the settings' door) for the IBAN registry's table and
check; the VAT number follows the rule customers share (portal.identifiers)."""

from __future__ import annotations

import re

from email_validator import EmailNotValidError, validate_email

from portal.identifiers import normalise_vat, vat_problem

# The length of each country's IBAN (the SWIFT IBAN registry, ISO 13616)
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32,
    "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
    "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23,
    "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}  # fmt: skip
IBAN_SHAPE = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]+")
KVK = re.compile(r"[0-9]{8}")


def compact_iban(value: str) -> str:
    """An IBAN as stored: upper case, without spaces (NL91 ABNA 0417 1643 00 as typed)."""
    return re.sub(r"\s", "", value).upper()


# Each of iban_problem's answers as the stable code of its error.
IBAN_CODES = {
    "not an IBAN": "iban_format",
    "unknown IBAN country": "iban_country",
    "wrong length for its country": "iban_length",
    "check digits do not match": "iban_check",
}


def iban_problem(iban: str) -> str | None:
    """Why a compact IBAN is none (its shape, its country's length, its check digits)."""
    if not IBAN_SHAPE.fullmatch(iban):
        return "not an IBAN"
    if iban[:2] not in IBAN_LENGTHS:
        return "unknown IBAN country"
    if len(iban) != IBAN_LENGTHS[iban[:2]]:
        return "wrong length for its country"
    if int("".join(str(int(c, 36)) for c in iban[4:] + iban[:4])) % 97 != 1:
        return "check digits do not match"
    return None


def clean(
    *,
    btw_nummer: str | None,
    kvk_nummer: str | None,
    iban: str | None,
    factuur_email: str | None,
    betaaltermijn_dagen: int,
    errors: list[dict],
) -> dict:
    """The invoicing details checked and compacted as stored; problems go to errors."""
    btw = (btw_nummer or "").strip() or None
    if btw:
        problem = vat_problem(btw)
        btw = normalise_vat(btw)
        if problem:
            errors.append(problem)
    kvk = re.sub(r"\s", "", kvk_nummer or "") or None
    if kvk and not KVK.fullmatch(kvk):
        errors.append({"field": "kvk_nummer", "code": "kvk_format", "message": "8 digits"})
    iban = compact_iban(iban or "") or None
    if iban:
        problem = iban_problem(iban)
        if problem:
            errors.append({"field": "iban", "code": IBAN_CODES[problem], "message": problem})
    email = (factuur_email or "").strip() or None
    if email:
        try:
            email = validate_email(email, check_deliverability=False).normalized
        except EmailNotValidError:
            errors.append(
                {
                    "field": "factuur_email",
                    "code": "email_invalid",
                    "message": "not an email address",
                }
            )
    days = betaaltermijn_dagen
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= 365:
        errors.append(
            {
                "field": "betaaltermijn_dagen",
                "code": "out_of_range",
                "message": "between 1 and 365 days",
            }
        )
    return {
        "btw_nummer": btw,
        "kvk_nummer": kvk,
        "iban": iban,
        "factuur_email": email,
        "betaaltermijn_dagen": days,
    }
