"""The carrier's payroll export columns (transporteurs.loon_kolommen): per category its header
name, its wage component code in the carrier's payroll package and whether it is exported,
and whether the header row carries the names or the codes. Which categories there are and
their default names are the hours domain's (portal/hours/payroll.py); this is the door to
where they are kept, checked and audited."""

from __future__ import annotations

import logging
import uuid

from sqlalchemy import select

from portal.accounts.models import Carrier
from portal.accounts.service import get_carrier
from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db

logger = logging.getLogger(__name__)

HEADERS = ("naam", "code")  # what the header row carries
MAX_KEY = 120  # a category key: "normaal", "onregelmatig:avond", ...
MAX_NAME = 60
MAX_CODE = 20
MAX_COLUMNS = 60


def _empty() -> dict:
    return {"kop": "naam", "kolommen": {}}


def payroll_columns(*, carrier_id: uuid.UUID) -> dict:
    """The stored settings as {"kop": "naam"|"code", "kolommen": {key: {naam, code, mee}}};
    categories never saved are absent (their defaults hold)."""
    stored = get_carrier(carrier_id=carrier_id).loon_kolommen
    if not isinstance(stored, dict):
        return _empty()
    kop = stored.get("kop") if stored.get("kop") in HEADERS else "naam"
    kolommen = {}
    for key, value in (stored.get("kolommen") or {}).items():
        if isinstance(key, str) and isinstance(value, dict):
            kolommen[key] = {
                "naam": str(value.get("naam") or ""),
                "code": str(value.get("code") or ""),
                "mee": bool(value.get("mee", True)),
            }
    return {"kop": kop, "kolommen": kolommen}


def _clean(data: dict, errors: list[dict]) -> dict:
    kop = data.get("kop")
    if kop not in HEADERS:
        errors.append({"field": "kop", "message": "naam or code"})
    given = data.get("kolommen")
    if not isinstance(given, dict) or len(given) > MAX_COLUMNS:
        errors.append({"field": "kolommen", "message": f"an object of at most {MAX_COLUMNS}"})
        return {"kop": kop, "kolommen": {}}
    kolommen: dict[str, dict] = {}
    for key, value in given.items():
        if not isinstance(key, str) or not key or len(key) > MAX_KEY or not isinstance(value, dict):
            errors.append({"field": "kolommen", "message": f"not a column: {str(key)[:MAX_KEY]}"})
            continue
        naam = " ".join(str(value.get("naam") or "").split())
        code = str(value.get("code") or "").strip()
        if not naam:
            errors.append({"field": f"{key}.naam", "message": "required"})
        elif len(naam) > MAX_NAME:
            errors.append({"field": f"{key}.naam", "message": f"at most {MAX_NAME} characters"})
        if len(code) > MAX_CODE:
            errors.append({"field": f"{key}.code", "message": f"at most {MAX_CODE} characters"})
        kolommen[key] = {"naam": naam, "code": code, "mee": bool(value.get("mee"))}
    # The payroll package matches columns by their header: two the same would be ambiguous.
    for part in ("code", "naam"):
        seen: dict[str, str] = {}
        for key, column in kolommen.items():
            text = column[part].casefold()
            if not column["mee"] or not text:
                continue
            if text in seen:
                errors.append({"field": f"{key}.{part}", "message": "duplicate"})
            else:
                seen[text] = key
    return {"kop": kop, "kolommen": kolommen}


def set_payroll_columns(*, carrier_id: uuid.UUID, data: dict, actor: Actor) -> dict:
    """Save the settings (the shape payroll_columns answers); ValidationFailed with every
    problem at its field ("<key>.naam", "<key>.code", "kop"). Audited when they change."""
    carrier = get_carrier(carrier_id=carrier_id)
    errors: list[dict] = []
    cleaned = _clean(data, errors)
    if errors:
        raise ValidationFailed(errors)
    before = carrier.loon_kolommen
    if before != cleaned:
        carrier.loon_kolommen = cleaned
        db.session.flush()
        audit.record(
            carrier_id=carrier_id,
            actor=actor,
            entity="carrier",
            entity_id=carrier_id,
            action="payroll_columns_updated",
            changes={"loon_kolommen": [before, cleaned]},
        )
        logger.info("payroll columns of %s changed by %s", carrier_id, actor.label)
    return cleaned


def lock_for_payroll_export(*, carrier_id: uuid.UUID) -> None:
    """Hold the carrier's row until the transaction ends, so two payroll exports of the same
    carrier run one after the other (the second sees the weeks the first exported)."""
    found = db.session.scalar(select(Carrier.id).where(Carrier.id == carrier_id).with_for_update())
    if found is None:
        raise NotFound("carrier not found")
