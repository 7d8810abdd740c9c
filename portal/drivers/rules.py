"""The rules of a driver's fields: name, email (unique within the carrier), phone number,
language, contract hours and payroll number, checked and cleaned for drivers.service."""

from __future__ import annotations

import uuid
from decimal import Decimal, InvalidOperation

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from portal.drivers.models import LANGUAGES, Driver
from portal.errors import ValidationFailed
from portal.extensions import db

CONTRACT_MAX = Decimal(60)


def clean_fields(
    naam: str | None, email: str | None, telefoon: str | None, taal: str | None
) -> dict:
    return {
        "naam": (naam or "").strip(),
        "email": email.strip().lower() if email and email.strip() else None,
        "telefoon": telefoon.strip() if telefoon and telefoon.strip() else None,
        "taal": taal or None,
    }


def contract_fields(contracturen, personeelsnummer) -> dict:
    """Contract hours per week (None: the carrier's rule set's) as a Decimal of 2 places, and
    the payroll number; ValidationFailed (codes contracturen_ongeldig, personeelsnummer_lang)
    when they cannot be."""
    errors, hours = [], None
    if contracturen is not None and str(contracturen).strip() != "":
        try:
            hours = Decimal(str(contracturen).strip())
        except InvalidOperation:
            hours = Decimal("NaN")
        if not hours.is_finite() or not 0 <= hours <= CONTRACT_MAX or (hours * 60) % 1:
            errors.append(
                {
                    "field": "contracturen",
                    "code": "contracturen_ongeldig",
                    "message": "0 to 60 hours per week, in whole minutes",
                }
            )
        else:
            hours = hours.quantize(Decimal("0.01"))
    number = (personeelsnummer or "").strip() or None
    if number is not None and len(number) > 30:
        errors.append(
            {
                "field": "personeelsnummer",
                "code": "personeelsnummer_lang",
                "message": "at most 30 characters",
            }
        )
    if errors:
        raise ValidationFailed(errors)
    return {"contracturen": hours, "personeelsnummer": number}


def check_fields(
    carrier_id: uuid.UUID, values: dict, *, driver_id: uuid.UUID | None = None
) -> None:
    """The rules of a driver's fields; the email is unique within the carrier. (A blank name
    and an email in use have no code yet: tests/drivers/test_service.py pins their form.)"""
    errors = []
    if not values["naam"]:
        errors.append({"field": "naam", "message": "required"})
    elif len(values["naam"]) > 200:
        errors.append({"field": "naam", "code": "too_long", "message": "at most 200 characters"})
    email = values["email"]
    if email is not None and ("@" not in email or len(email) > 254):
        errors.append(
            {"field": "email", "code": "email_invalid", "message": "not an email address"}
        )
    if values["telefoon"] is not None and len(values["telefoon"]) > 40:
        errors.append({"field": "telefoon", "code": "too_long", "message": "at most 40 characters"})
    if values["taal"] is not None and values["taal"] not in LANGUAGES:
        errors.append(
            {"field": "taal", "code": "choice", "message": f"one of {', '.join(LANGUAGES)}"}
        )
    if (
        email
        and not errors
        and email_in_use(carrier_id=carrier_id, email=email, driver_id=driver_id)
    ):
        errors.append({"field": "email", "message": "already in use"})
    if errors:
        raise ValidationFailed(errors)


def email_in_use(
    *, carrier_id: uuid.UUID, email: str | None, driver_id: uuid.UUID | None = None
) -> bool:
    """Whether another driver of the carrier has this email address."""
    email = (email or "").strip().lower()
    if not email:
        return False
    taken = select(Driver.id).where(Driver.transporteur_id == carrier_id, Driver.email == email)
    if driver_id is not None:
        taken = taken.where(Driver.id != driver_id)
    return db.session.scalar(taken.limit(1)) is not None


def flush_unique() -> None:
    """Flush; two planners saving the same email at once get the field error, not a 500."""
    try:
        with db.session.begin_nested():
            db.session.flush()
    except IntegrityError:
        raise ValidationFailed(
            [{"field": "email", "code": "email_in_use", "message": "already in use"}]
        ) from None
