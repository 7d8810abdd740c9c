"""Where EU 561/2006 applies (docs/eu561-scope.md): a property of the vehicle and of the
work. A vehicle whose maximum authorised speed is 40 km/h or less is out of scope (Reg.
561/2006 Art. 3(b)); an activity type the carrier carries out under a national exemption
(Art. 13(1), e.g. (c) agricultural tractors for agricultural work within 100 km) is exempt.
Such work is shown as exempt, never as an infringement, and still counts as working time.

The only door to rijtijden_vrijstellingen. The planner asks `rules_of` once and then
`ScopeRules.of(activity_type=, vehicle_ids=)` per task (or `in_scope` for one): a task out of
scope uses no EU 561 budget. The checker asks `out_of_scope_plates`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlalchemy import delete, select

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import ValidationFailed
from portal.extensions import db
from portal.fleet import service as fleet
from portal.fleet.kenteken import compact
from portal.tacho.models import VRIJSTELLING_ARTIKELEN, DrivingRulesExemption
from portal.tacho.rules.scope import ART_3_B, MAX_SPEED_OUT_OF_SCOPE

ART_3_B_SPEED = MAX_SPEED_OUT_OF_SCOPE  # km/h: a vehicle this fast or slower is out of scope


@dataclass(frozen=True)
class Scope:
    """Whether EU 561/2006 applies to a piece of work, and if not, the article why."""

    geldt: bool
    grond: str | None = None  # "3(b)" (the vehicle), "13(1)(c)" (the activity), ...


IN_SCOPE = Scope(True)


@dataclass(frozen=True)
class ScopeRules:
    """A carrier's vehicles out of scope and its exempt activity types, read once."""

    vehicles: dict[uuid.UUID, str] = field(default_factory=dict)  # vehicle id -> article
    activities: dict[str, str] = field(default_factory=dict)  # activity type -> article

    def of(
        self, *, activity_type: str | None, vehicle_ids: Iterable[uuid.UUID | None] = ()
    ) -> Scope:
        """The scope of work of this activity type in this vehicle (or combination: a
        combination goes no faster than its slowest part, so one part out of scope by its
        speed puts the whole out ⚖). The vehicle's article first, then the activity's."""
        for vehicle_id in vehicle_ids:
            if vehicle_id in self.vehicles:
                return Scope(False, self.vehicles[vehicle_id])
        if activity_type and activity_type in self.activities:
            return Scope(False, self.activities[activity_type])
        return IN_SCOPE


def _out_of_scope_vehicles(carrier_id: uuid.UUID):
    for vehicle in fleet.list_vehicles(carrier_id=carrier_id):
        speed = vehicle.max_snelheid_kmh
        if speed is not None and speed <= MAX_SPEED_OUT_OF_SCOPE:
            yield vehicle


def rules_of(*, carrier_id: uuid.UUID) -> ScopeRules:
    """The carrier's scope rules: two queries."""
    return ScopeRules(
        vehicles={v.id: ART_3_B for v in _out_of_scope_vehicles(carrier_id)},
        activities=exemptions(carrier_id=carrier_id),
    )


def in_scope(
    *,
    carrier_id: uuid.UUID,
    activity_type: str | None,
    vehicle_ids: Iterable[uuid.UUID | None] = (),
) -> Scope:
    """Whether EU 561/2006 applies to work of this activity type in these vehicles."""
    return rules_of(carrier_id=carrier_id).of(activity_type=activity_type, vehicle_ids=vehicle_ids)


def out_of_scope_work(
    *, carrier_id: uuid.UUID, work: Iterable[tuple[str | None, uuid.UUID | None]]
) -> frozenset[tuple[str | None, uuid.UUID | None]]:
    """Of planned work [(activity type, vehicle id)], the pairs out of scope: two queries."""
    rules = rules_of(carrier_id=carrier_id)
    return frozenset(
        (activity, vehicle)
        for activity, vehicle in work
        if not rules.of(activity_type=activity, vehicle_ids=[vehicle]).geldt
    )


def out_of_scope_plates(*, carrier_id: uuid.UUID) -> dict[str, str]:
    """The registrations (compact: BX12LP) of the carrier's vehicles out of scope, with the
    article: how a card's vehicle records are matched. One query."""
    return {compact(v.kenteken): ART_3_B for v in _out_of_scope_vehicles(carrier_id) if v.kenteken}


def exemptions(*, carrier_id: uuid.UUID) -> dict[str, str]:
    """The carrier's exempt activity types with the article each relies on: one query."""
    rows = db.session.execute(
        select(DrivingRulesExemption.activiteit, DrivingRulesExemption.artikel)
        .where(DrivingRulesExemption.transporteur_id == carrier_id)
        .order_by(DrivingRulesExemption.activiteit)
    )
    return {row.activiteit: row.artikel for row in rows}


def set_exemption(
    *, carrier_id: uuid.UUID, activiteit: str, artikel: str | None, actor: Actor
) -> None:
    """Mark an activity type as carried out under a national exemption (artikel one of
    VRIJSTELLING_ARTIKELEN), or in scope again (artikel None); audited. Flushes."""
    activiteit = (activiteit or "").strip()
    if not activiteit or len(activiteit) > 64:
        raise ValidationFailed(
            [{"field": "activiteit", "code": "required", "message": "an activity type"}]
        )
    if artikel is not None and artikel not in VRIJSTELLING_ARTIKELEN:
        raise ValidationFailed(
            [
                {
                    "field": "artikel",
                    "code": "choice",
                    "message": f"one of {', '.join(VRIJSTELLING_ARTIKELEN)}",
                }
            ]
        )
    old = exemptions(carrier_id=carrier_id).get(activiteit)
    if old == artikel:
        return
    db.session.execute(
        delete(DrivingRulesExemption).where(
            DrivingRulesExemption.transporteur_id == carrier_id,
            DrivingRulesExemption.activiteit == activiteit,
        )
    )
    if artikel is not None:
        db.session.add(
            DrivingRulesExemption(
                transporteur_id=carrier_id, activiteit=activiteit, artikel=artikel
            )
        )
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="carrier",
        entity_id=carrier_id,
        action="updated",
        changes={f"rijtijden_vrijstelling:{activiteit}": [old, artikel]},
    )
