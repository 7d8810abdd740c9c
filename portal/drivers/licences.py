"""A driver's driving licence categories: which they hold, each with its expiry date when
known; what a category also allows by Directive 2006/126/EC; and what the planner asks
(`licences_of`). The only door to the rijbewijscategorieen table (docs/eu561-scope.md, 4).

Unknown and none are one answer: a driver without a category on record has an empty set, and
so has a driver whose categories have all expired. The planner treats an empty set as "this
driver may drive nothing we know of" (a rule that cannot be decided is not met) and says
that no licence is recorded.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import date

from sqlalchemy import delete, select

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.drivers.models import RIJBEWIJS_CATEGORIEEN, Driver, DriverLicence
from portal.errors import NotFound, ValidationFailed
from portal.extensions import db

FIELD = "rijbewijs_categorieen"
FIRST_EXPIRY, LAST_EXPIRY = date(2000, 1, 1), date(2099, 12, 31)

# What holding a category also allows, by Directive 2006/126/EC Art. 6: a licence for C1, C,
# D1 or D is issued only to a holder of B, one for BE, C1E, CE, D1E or DE only to a holder of
# B, C1, C, D1 or D respectively (Art. 6(1)), so the bigger category's holder holds the
# smaller; C1E, CE, D1E and DE are valid for BE, CE for C1E and DE for D1E, every category
# for AM (Art. 6(2)); C and D also for C1 and D1, A for A2 and A1, A2 for A1. T (the
# Netherlands' own tractor category) follows from no other category: it counts only when
# recorded.
COVERS: dict[str, frozenset[str]] = {
    "A": frozenset({"A2", "A1"}),
    "A2": frozenset({"A1"}),
    "BE": frozenset({"B"}),
    "C1": frozenset({"B"}),
    "C": frozenset({"C1", "B"}),
    "C1E": frozenset({"C1", "BE", "B"}),
    "CE": frozenset({"C", "C1", "C1E", "BE", "B"}),
    "D1": frozenset({"B"}),
    "D": frozenset({"D1", "B"}),
    "D1E": frozenset({"D1", "BE", "B"}),
    "DE": frozenset({"D", "D1", "D1E", "BE", "B"}),
}
# A category that can only be issued to a holder of another (Art. 6(1)): ticking it without
# that one is a mistake on the form, named at the field.
NEEDS = {
    "BE": "B",
    "C1": "B",
    "C": "B",
    "D1": "B",
    "D": "B",
    "C1E": "C1",
    "CE": "C",
    "D1E": "D1",
    "DE": "D",
}


def covered(categories: Iterable[str]) -> frozenset[str]:
    """The categories held, with every category they also allow (COVERS and AM)."""
    held = set(categories)
    for category in list(held):
        held |= COVERS.get(category, frozenset())
    if held:
        held.add("AM")
    return frozenset(held)


def may_drive(held: frozenset[str], needed: str) -> bool:
    """Whether a driver holding `held` (as licences_of gives it) may drive what needs
    `needed`; a need no category names (fleet.rules.LICENCE_UNKNOWN) is never met."""
    return needed in held


def check_licences(values: Mapping[str, date | None]) -> dict[str, date | None]:
    """Categories with their expiry dates (None: not known), checked: known categories, each
    with what it needs (Art. 6(1)), dates within 2000-2099; ValidationFailed with codes
    rijbewijs_categorie_onbekend, rijbewijs_vereist, rijbewijs_geldig_tot_ongeldig."""
    errors = []
    unknown = sorted(str(c) for c in values if c not in RIJBEWIJS_CATEGORIEEN)
    if unknown:
        errors.append(
            {
                "field": FIELD,
                "code": "rijbewijs_categorie_onbekend",
                "message": f"unknown categories {', '.join(unknown)}; "
                f"one of {', '.join(RIJBEWIJS_CATEGORIEEN)}",
                "params": {"categorieen": ", ".join(unknown)},
            }
        )
    for category in RIJBEWIJS_CATEGORIEEN:
        if category in values and NEEDS.get(category) and NEEDS[category] not in values:
            errors.append(
                {
                    "field": FIELD,
                    "code": "rijbewijs_vereist",
                    "message": f"{category} is issued only to a holder of {NEEDS[category]}",
                    "params": {"categorie": category, "vereist": NEEDS[category]},
                }
            )
        expiry = values.get(category)
        if expiry is not None and not FIRST_EXPIRY <= expiry <= LAST_EXPIRY:
            errors.append(
                {
                    "field": f"geldig_tot_{category}",
                    "code": "rijbewijs_geldig_tot_ongeldig",
                    "message": "a date from 2000 to 2099",
                    "params": {"categorie": category},
                }
            )
    if errors:
        raise ValidationFailed(errors)
    return {c: values[c] for c in RIJBEWIJS_CATEGORIEEN if c in values}


def recorded_licences(
    *, carrier_id: uuid.UUID, driver_ids: Iterable[uuid.UUID]
) -> dict[uuid.UUID, dict[str, date | None]]:
    """The categories on record per driver, in the licence's order, with their expiry: one
    query; every asked driver is in the answer (an empty dict: none recorded)."""
    ids = {i for i in driver_ids if i is not None}
    out: dict[uuid.UUID, dict[str, date | None]] = {i: {} for i in ids}
    if not ids:
        return out
    rows = db.session.execute(
        select(DriverLicence.chauffeur_id, DriverLicence.categorie, DriverLicence.geldig_tot).where(
            DriverLicence.transporteur_id == carrier_id, DriverLicence.chauffeur_id.in_(ids)
        )
    )
    order = {c: i for i, c in enumerate(RIJBEWIJS_CATEGORIEEN)}
    for row in sorted(rows, key=lambda r: order.get(r.categorie, 99)):
        out[row.chauffeur_id][row.categorie] = row.geldig_tot
    return out


def licences_of(
    *, carrier_id: uuid.UUID, driver_ids: Iterable[uuid.UUID], on: date | None = None
) -> dict[uuid.UUID, frozenset[str]]:
    """What each driver may drive: the categories on record (valid on `on` when given: an
    expiry date before it drops the category) with what they also allow (COVERS). Every
    asked driver is in the answer; an empty set means none recorded or none valid, and the
    planner treats that as not met. One query."""
    out = {}
    for driver_id, categories in recorded_licences(
        carrier_id=carrier_id, driver_ids=driver_ids
    ).items():
        valid = [
            c for c, expiry in categories.items() if on is None or expiry is None or expiry >= on
        ]
        out[driver_id] = covered(valid)
    return out


def set_licences(
    *,
    carrier_id: uuid.UUID,
    driver_id: uuid.UUID,
    categorieen: Mapping[str, date | None],
    actor: Actor,
) -> dict[str, date | None]:
    """Replace a driver's categories (with their expiry dates) by these, checked
    (check_licences); the trail keeps the old and the new. Flushes."""
    exists = db.session.scalar(
        select(Driver.id).where(Driver.transporteur_id == carrier_id, Driver.id == driver_id)
    )
    if exists is None:
        raise NotFound("driver")
    new = check_licences(categorieen)
    old = recorded_licences(carrier_id=carrier_id, driver_ids={driver_id})[driver_id]
    if old == new:
        return new
    db.session.execute(
        delete(DriverLicence).where(
            DriverLicence.transporteur_id == carrier_id, DriverLicence.chauffeur_id == driver_id
        )
    )
    db.session.add_all(
        DriverLicence(
            transporteur_id=carrier_id, chauffeur_id=driver_id, categorie=c, geldig_tot=expiry
        )
        for c, expiry in new.items()
    )
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="driver",
        entity_id=driver_id,
        action="updated",
        changes={FIELD: [_text(old), _text(new)]},
    )
    return new


def _text(categories: Mapping[str, date | None]) -> str | None:
    """Categories as the trail shows them: "B, CE (tot 2031-04-01)"."""
    if not categories:
        return None
    return ", ".join(
        f"{c} (tot {expiry.isoformat()})" if expiry else c for c, expiry in categories.items()
    )
