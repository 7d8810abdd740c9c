"""Planning a task on a vehicle combination that lacks a capability its activity type needs
(a manure tanker for manure transport, an approved livestock vehicle for livestock): a
warning that names what is missing, never a refusal. The combination is the task's vehicle
and the towed vehicle behind it (tasks/combinations.py); what a type needs and what the
vehicles have are the fleet's (needed_capabilities, capabilities_of)."""

from __future__ import annotations

import uuid

from portal.fleet import service as fleet
from portal.tasks import combinations
from portal.tasks.conflicts import Planned, PlanningWarning

CAPABILITIES_MISSING = "capabilities_missing"


def capability_warnings(
    *, carrier_id: uuid.UUID, planned: list[Planned]
) -> list[list[PlanningWarning]]:
    """Per planned task (open, with a vehicle, of a type that needs something): a warning
    naming the capabilities neither its vehicle nor its towed vehicle has. A fixed number of
    queries, none when no task needs anything."""
    wanted = [p for p in planned if p.open and p.vehicle_id is not None and p.type]
    if not wanted:
        return [[] for _ in planned]
    needs = fleet.needed_capabilities(
        carrier_id=carrier_id, activity_types={p.type for p in wanted}
    )
    wanted = [p for p in wanted if needs.get(p.type)]
    if not wanted:
        return [[] for _ in planned]
    keyed = {id(p): p.id or uuid.uuid4() for p in wanted}  # a draft has no id yet
    towed = combinations.towed_for(carrier_id=carrier_id, tasks=[(keyed[id(p)], p) for p in wanted])
    vehicle_ids = {p.vehicle_id for p in wanted} | {v.id for v in towed.values() if v}
    has = fleet.capabilities_of(carrier_id=carrier_id, vehicle_ids=vehicle_ids)
    names = fleet.capability_names(carrier_id=carrier_id)
    chosen = {id(p) for p in wanted}
    found = []
    for p in planned:
        if id(p) not in chosen:
            found.append([])
            continue
        trailer = towed.get(keyed[id(p)])
        present = set(has.get(p.vehicle_id, {})) | set(has.get(trailer.id, {}) if trailer else ())
        missing = sorted(needs[p.type] - present)
        found.append(
            [
                PlanningWarning(
                    CAPABILITIES_MISSING,
                    {
                        "vehicle_id": p.vehicle_id,
                        "getrokken": trailer.label if trailer else None,
                        # Names as the catalogue holds them (defaults in Dutch: the
                        # template translates them).
                        "kenmerken": tuple(names.get(code, code) for code in missing),
                    },
                )
            ]
            if missing
            else []
        )
    return found
