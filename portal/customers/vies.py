"""A VAT number checked in VIES, the EU's VAT Information Exchange System (its REST service,
`check-vat-number`): whether the number is valid today and for whom. An invoice with reverse
charge (btw verlegd) keeps the last answer and its date, or says it was not checked.

The service is often slow or down (a member state's register answers MS_UNAVAILABLE); then
`Unavailable` is raised and nothing is stored: the customer keeps its last answer. The address
comes from the configuration (VIES_URL; tests point it at a server on loopback).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import requests
from flask import current_app

from portal import countries

logger = logging.getLogger(__name__)

UNAVAILABLE = {
    "MS_UNAVAILABLE",
    "SERVICE_UNAVAILABLE",
    "TIMEOUT",
    "MS_MAX_CONCURRENT_REQ",
    "GLOBAL_MAX_CONCURRENT_REQ",
    "SERVER_BUSY",
}


class Unavailable(Exception):
    """VIES did not answer (or answered that it cannot now)."""


@dataclass(frozen=True)
class Answer:
    geldig: bool
    naam: str | None
    referentie: str | None  # VIES's consultation number, when it gives one


def check(vat_number: str) -> Answer:
    """Ask VIES about a compact VAT number (DE123456789, EL..., XI...)."""
    prefix, number = vat_number[:2].upper(), vat_number[2:]
    if prefix not in countries.EU_MEMBER_STATES and prefix not in ("EL", "XI"):
        raise ValueError(f"VIES knows EU VAT numbers only, not {prefix}")
    url = current_app.config["VIES_URL"]
    try:
        response = requests.post(
            url,
            json={"countryCode": prefix, "vatNumber": number},
            timeout=current_app.config["VIES_TIMEOUT"],
            headers={"Accept": "application/json"},
        )
    except requests.RequestException as error:
        logger.info("VIES did not answer: %s", error)
        raise Unavailable(str(error)) from error
    if response.status_code >= 500 or response.status_code == 429:
        raise Unavailable(f"HTTP {response.status_code}")
    try:
        data = response.json()
    except ValueError as error:
        raise Unavailable("not JSON") from error
    if not isinstance(data, dict):
        raise Unavailable("unexpected answer")
    wrappers = data.get("errorWrappers") or []
    codes = {str(w.get("error")) for w in wrappers if isinstance(w, dict)}
    codes.add(str(data.get("userError") or ""))
    if codes & UNAVAILABLE or (response.status_code >= 400 and "valid" not in data):
        raise Unavailable(", ".join(sorted(c for c in codes if c)) or "refused")
    valid = data.get("valid", data.get("isValid"))
    if not isinstance(valid, bool):
        raise Unavailable("no answer on validity")
    name = data.get("name")
    name = None if not isinstance(name, str) or name.strip() in ("", "---") else name.strip()
    reference = data.get("requestIdentifier") or None
    return Answer(geldig=valid, naam=name[:200] if name else None, referentie=reference)
