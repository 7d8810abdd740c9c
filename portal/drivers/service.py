"""Drivers of a carrier: the only door to the chauffeurs table (their positions: locations.py;
their licence categories: licences.py, `licences_of` and `set_licences` re-exported here)."""

from __future__ import annotations

import re
import secrets
import uuid
from dataclasses import dataclass
from decimal import Decimal
from functools import partial

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError

from portal.accounts.credentials import MIN_PASSWORD_LENGTH, hash_password
from portal.audit import service as audit
from portal.audit.service import SYSTEM, Actor
from portal.audit.switching import Switchable, switch_off, switch_on
from portal.drivers.licences import licences_of, set_licences  # noqa: F401 (the planner's door)
from portal.drivers.models import Driver
from portal.drivers.rules import check_fields, clean_fields, contract_fields, flush_unique
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db
from portal.hooks import Hook
from portal.tenancy import lookup

EDITABLE = ("naam", "email", "telefoon", "taal", "contracturen", "personeelsnummer")
UNCHANGED = object()  # update_driver: leave this field as it is


def new_user_token() -> str:
    """A driver's public, URL-safe identifier: random, never a secret."""
    return secrets.token_urlsafe(18)


# --- profile ---------------------------------------------------------------------------


def create_driver(
    *,
    carrier_id: uuid.UUID,
    naam: str,
    email: str | None = None,
    password: str | None = None,
    telefoon: str | None = None,
    taal: str | None = None,
    contracturen: Decimal | str | None = None,
    personeelsnummer: str | None = None,
    actor: Actor = SYSTEM,
) -> Driver:
    """A new driver; the email, when given, is unique within the carrier; contract hours
    0 to 60 per week in whole minutes (None: the carrier's rule set's)."""
    values = clean_fields(naam, email, telefoon, taal) | contract_fields(
        contracturen, personeelsnummer
    )
    if password is not None and len(password) < MIN_PASSWORD_LENGTH:
        raise ValidationFailed(
            [
                {
                    "field": "password",
                    "code": "password_too_short",
                    "message": f"at least {MIN_PASSWORD_LENGTH} characters",
                }
            ]
        )
    check_fields(carrier_id, values)
    driver = Driver(
        transporteur_id=carrier_id,
        password_hash=hash_password(password) if password else None,
        user_token=new_user_token(),
        **values,
    )
    db.session.add(driver)
    flush_unique()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="driver",
        entity_id=driver.id,
        action="created",
        changes={name: [None, values[name]] for name in EDITABLE if values[name] is not None},
    )
    return driver


def update_driver(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    naam: str,
    email: str | None,
    telefoon: str | None,
    taal: str | None,
    actor: Actor,
    contracturen=UNCHANGED,
    personeelsnummer=UNCHANGED,
) -> Driver:
    """Change a driver's name, email, phone number, language, contract hours and payroll
    number (those two stay when not given); the trail keeps the old values."""
    driver = get_driver(carrier_id=carrier_id, driver_id=driver_id)
    values = clean_fields(naam, email, telefoon, taal) | contract_fields(
        driver.contracturen if contracturen is UNCHANGED else contracturen,
        driver.personeelsnummer if personeelsnummer is UNCHANGED else personeelsnummer,
    )
    check_fields(carrier_id, values, driver_id=driver.id)
    changes = {
        name: [getattr(driver, name), values[name]]
        for name in EDITABLE
        if getattr(driver, name) != values[name]
    }
    if not changes:
        return driver
    for name, (_old, new) in changes.items():
        setattr(driver, name, new)
    flush_unique()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="driver",
        entity_id=driver.id,
        action="updated",
        changes=changes,
    )
    return driver


def get_driver(*, carrier_id: uuid.UUID, driver_id: uuid.UUID) -> Driver:
    """The carrier's driver; NotFound when absent or another carrier's."""
    driver = db.session.scalar(
        select(Driver).where(Driver.transporteur_id == carrier_id, Driver.id == driver_id)
    )
    if driver is None:
        raise NotFound("driver not found")
    return driver


def get_driver_by_token(*, carrier_id: uuid.UUID, user_token: str) -> Driver:
    """The carrier's driver with this user_token; NotFound otherwise."""
    driver = find_by_token(carrier_id=carrier_id, user_token=user_token)
    if driver is None:
        raise NotFound("no driver with this user_token")
    return driver


def find_by_token(*, carrier_id: uuid.UUID, user_token: str) -> Driver | None:
    """The carrier's driver with this user_token, or None."""
    return db.session.scalar(
        select(Driver).where(Driver.transporteur_id == carrier_id, Driver.user_token == user_token)
    )


# --- driver card -----------------------------------------------------------------------

CARD_NUMBER = re.compile(r"^[A-Z0-9]{13,16}$")


def clean_card_number(value: str | None) -> str | None:
    """A card number as the card records it: letters and digits, upper case, without the
    spaces people type; None when blank."""
    text = "".join((value or "").split()).upper()
    return text or None


def find_by_card(*, carrier_id: uuid.UUID, kaartnummer: str) -> Driver | None:
    """The carrier's driver whose driver card this is, or None. A card number read from a
    download (16 characters: 14, then replacement and renewal index) also finds a driver
    whose number was typed without its two indexes."""
    number = clean_card_number(kaartnummer)
    if not number:
        return None
    candidates = {number, number[:14]} if len(number) == 16 else {number}
    rows = list(
        db.session.scalars(
            select(Driver)
            .where(Driver.transporteur_id == carrier_id, Driver.kaartnummer.in_(candidates))
            .order_by(func.length(Driver.kaartnummer).desc())
        )
    )
    return rows[0] if rows else None


def set_card_number(
    *, carrier_id: uuid.UUID, driver_id: uuid.UUID, kaartnummer: str | None, actor: Actor
) -> Driver:
    """Give (or clear) the driver's card number: 13 to 16 letters and digits, unique within
    the carrier; the trail keeps the old one."""
    driver = get_driver(carrier_id=carrier_id, driver_id=driver_id)
    number = clean_card_number(kaartnummer)
    if number is not None and not CARD_NUMBER.match(number):
        raise ValidationFailed(
            [
                {
                    "field": "kaartnummer",
                    "message": "13 to 16 letters and digits",
                    "code": "card_number_format",
                }
            ]
        )
    if number == driver.kaartnummer:
        return driver
    if number is not None:
        other = db.session.scalar(
            select(Driver.naam).where(
                Driver.transporteur_id == carrier_id,
                Driver.kaartnummer == number,
                Driver.id != driver.id,
            )
        )
        if other is not None:
            raise ValidationFailed(
                [
                    {
                        "field": "kaartnummer",
                        "message": f"already the card of {other}",
                        "code": "card_number_taken",
                        "naam": other,
                    }
                ]
            )
    changes = {"kaartnummer": [driver.kaartnummer, number]}
    driver.kaartnummer = number
    try:
        with db.session.begin_nested():
            db.session.flush()
    except IntegrityError:
        raise ValidationFailed(
            [{"field": "kaartnummer", "code": "card_number_taken", "message": "already in use"}]
        ) from None
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="driver",
        entity_id=driver.id,
        action="updated",
        changes=changes,
    )
    return driver


def list_drivers(*, carrier_id: uuid.UUID, active_only: bool = True) -> list[Driver]:
    """Every driver of the carrier (the active ones by default), by name."""
    stmt = (
        select(Driver)
        .where(Driver.transporteur_id == carrier_id)
        .order_by(func.lower(Driver.naam), Driver.id)
    )
    if active_only:
        stmt = stmt.where(Driver.actief)
    return list(db.session.scalars(stmt))


@dataclass(frozen=True)
class DriverFilters:
    """A search over drivers: text in name, email or phone number, and active or not."""

    q: str | None = None
    actief: bool | None = True  # None: both
    limit: int = 100
    offset: int = 0


def _like(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def search_drivers(*, carrier_id: uuid.UUID, filters: DriverFilters) -> tuple[list[Driver], int]:
    """A page of drivers by name, and how many match: two queries, whatever the page size."""
    where = [Driver.transporteur_id == carrier_id]
    if filters.actief is not None:
        where.append(Driver.actief.is_(filters.actief))
    q = (filters.q or "").strip()
    if q:
        pattern = _like(q)
        matches = [
            func.lower(Driver.naam).like(pattern, escape="\\"),
            func.lower(Driver.email).like(pattern, escape="\\"),
            func.lower(Driver.telefoon).like(pattern, escape="\\"),
        ]
        digits = _digits(q)
        if len(digits) >= 3 and not q.replace(" ", "").replace("-", "").isalpha():
            # 0612 finds 06-12 34 56 78: compare the phone number without its separators.
            bare = Driver.telefoon
            for separator in (" ", "-", "(", ")", ".", "/"):
                bare = func.replace(bare, separator, "")
            matches.append(bare.like(f"%{digits}%"))
        where.append(or_(*matches))
    total = db.session.scalar(select(func.count()).select_from(Driver).where(*where)) or 0
    rows = db.session.scalars(
        select(Driver)
        .where(*where)
        .order_by(func.lower(Driver.naam), Driver.id)
        .limit(filters.limit)
        .offset(filters.offset)
    )
    return list(rows), total


def names_by_id(*, carrier_id: uuid.UUID, driver_ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    """Driver names for a page of rows, in one query."""
    ids = {i for i in driver_ids if i is not None}
    if not ids:
        return {}
    rows = db.session.execute(
        select(Driver.id, Driver.naam).where(
            Driver.transporteur_id == carrier_id, Driver.id.in_(ids)
        )
    )
    return {row.id: row.naam for row in rows}


def contract_hours(*, carrier_id: uuid.UUID, driver_ids: set[uuid.UUID]) -> dict:
    """Each driver's contract hours per week (a Decimal), for those whose contract sets
    them; the others follow the carrier's rule set. One query."""
    if not driver_ids:
        return {}
    rows = db.session.execute(
        select(Driver.id, Driver.contracturen).where(
            Driver.transporteur_id == carrier_id,
            Driver.id.in_(driver_ids),
            Driver.contracturen.is_not(None),
        )
    )
    return {row.id: row.contracturen for row in rows}


def carrier_of_user_token(user_token: str) -> uuid.UUID | None:
    """The carrier of a driver's user_token, for admin commands that are given only that."""
    found = lookup(
        db.session,
        "rijplan_chauffeur_met_user_token",
        select(Driver.transporteur_id, Driver.id).where(Driver.user_token == user_token),
        token=user_token,
    )
    return found[0][0] if found else None


def history(*, carrier_id: uuid.UUID, driver_id: uuid.UUID) -> list:
    """The driver's audit trail, oldest first."""
    return audit.entries_for(carrier_id=carrier_id, entity="driver", entity_id=driver_id)


# --- access: deactivation and the user_token -------------------------------------------
# A phone's credentials (pairing codes, tokens, signing out) are portal.drivers.tokens',
# which reads drivers through this module; never the other way round.


# What other domains do when a driver leaves (tokens: refuse them; fleet: free the vehicle;
# messages: forget the phones). Connected in portal/wiring.py, so this domain needs none of
# theirs: they read drivers, never the other way round.
deactivated = Hook(
    "drivers.deactivated",
    "A driver was deactivated: listener(carrier_id=, driver_id=, actor=), in the same "
    "transaction, before the audit entry.",
)

DRIVER = Switchable("driver")


def deactivate_driver(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, actor: Actor) -> Driver:
    """A driver who left: no sign-in, every token refused, the vehicle they drove free again,
    no more pushes to their phones (each by its domain's listener); tasks and positions stay."""
    driver = get_driver(carrier_id=carrier_id, driver_id=driver_id)
    switch_off(
        driver,
        kind=DRIVER,
        carrier_id=carrier_id,
        actor=actor,
        then=partial(deactivated, carrier_id=carrier_id, driver_id=driver.id, actor=actor),
    )
    return driver


def reactivate_driver(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, actor: Actor) -> Driver:
    """A driver back at work; the phone pairs again (old tokens stay refused)."""
    driver = get_driver(carrier_id=carrier_id, driver_id=driver_id)
    switch_on(driver, kind=DRIVER, carrier_id=carrier_id, actor=actor)
    return driver


def rotate_user_token(*, carrier_id: uuid.UUID, driver_id: uuid.UUID, actor: Actor) -> Driver:
    """A new user_token: paths with the old one answer 404 from now on."""
    driver = get_driver(carrier_id=carrier_id, driver_id=driver_id)
    driver.user_token = new_user_token()
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="driver",
        entity_id=driver.id,
        action="user_token_rotated",
    )
    return driver
