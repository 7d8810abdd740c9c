"""A VAT number checked in VIES, the EU's VAT Information Exchange System (its REST service,
`check-vat-number`): whether the number is valid today and for whom. An invoice with reverse
charge (btw verlegd) keeps the last answer and its date, or says it was not checked.

`check_customer` asks about a customer's number and keeps the answer on the customer (with
service.py a door to klanten). The service is often slow or down (a member state's register
answers MS_UNAVAILABLE); then `Unavailable` is raised and nothing is stored: the customer keeps
its last answer. The address comes from the configuration (VIES_URL; tests point it at a
server on loopback).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

import requests
from flask import current_app

from portal import countries
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.customers import service
from portal.customers.models import Customer
from portal.customers.rules import error
from portal.errors import ValidationFailed
from portal.extensions import db
from portal.types import utcnow

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


def check_customer(*, carrier_id: uuid.UUID, customer_id: uuid.UUID, actor: Actor) -> Customer:
    """Ask VIES whether the customer's VAT number is valid and keep the answer and its time
    (audited). ValidationFailed when there is no EU VAT number to ask about;
    vies.Unavailable when VIES does not answer (the last answer stays)."""
    customer = service.get_customer(carrier_id=carrier_id, customer_id=customer_id)
    number = customer.btw_nummer
    if not number:
        raise ValidationFailed([error("btw_nummer", "required", "no VAT number to check")])
    try:
        answer = check(number)
    except ValueError:
        raise ValidationFailed(
            [error("btw_nummer", "vies_not_eu", "VIES knows EU VAT numbers only")]
        ) from None
    before = [customer.vies_status, customer.vies_btw_nummer]
    customer.vies_btw_nummer = number
    customer.vies_status = "geldig" if answer.geldig else "ongeldig"
    customer.vies_naam = answer.naam
    customer.vies_gecontroleerd_op = utcnow()
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="customer",
        entity_id=customer.id,
        action="vies_checked",
        changes={
            "vies_status": [before[0], customer.vies_status],
            "vies_btw_nummer": [before[1], number],
            **({"vies_referentie": [None, answer.referentie]} if answer.referentie else {}),
        },
    )
    return customer
