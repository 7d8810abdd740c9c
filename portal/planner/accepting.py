"""Accepting a proposal, entirely or per task, in one unit of work: nothing is written unless
every accepted task is as it was when the proposal was solved, and the independent checker
(portal.planner.checks) finds that the accepted assignments, with the work planned now,
break no hard rule. Then each task gets its driver and vehicle (tasks' own service: its
audit entry, events and hooks) and the proposal an audit entry naming what was accepted."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.extensions import db
from portal.planner import checks
from portal.planner.gather import gather
from portal.planner.models import FINISHED, ProposalLine
from portal.planner.problem import Assignment
from portal.planner.service import get_proposal, lines_of
from portal.tasks import service as tasks
from portal.types import utcnow


def _chosen(lines: list[ProposalLine], task_ids: Iterable[uuid.UUID] | None) -> list:
    open_lines = [ln for ln in lines if ln.chauffeur_id is not None and not ln.geaccepteerd_op]
    if task_ids is None:
        return open_lines
    wanted = set(task_ids)
    by_task = {ln.taak_id: ln for ln in open_lines}
    unknown = sorted(str(t) for t in wanted - set(by_task))
    if unknown:
        raise ValidationFailed(
            [{"field": "taken", "code": "taak_niet_in_voorstel", "message":
              "These tasks have no open proposed assignment: " + ", ".join(unknown),
              "taken": unknown}]
        )  # fmt: skip
    return [by_task[t] for t in wanted]


def _changed(carrier_id: uuid.UUID, chosen: list[ProposalLine]) -> list[str]:
    """The tasks that changed since the proposal was solved (locked while we look)."""
    changed = []
    for line in sorted(chosen, key=lambda ln: ln.taak_id):
        try:
            task = tasks.get_task(carrier_id=carrier_id, task_id=line.taak_id, lock=True)
        except NotFound:
            changed.append(str(line.taak_id))
            continue
        if task.versie != line.taak_versie or task.chauffeur_id is not None:
            changed.append(str(line.taak_id))
    return changed


def _broken(carrier_id: uuid.UUID, proposal, chosen: list[ProposalLine], now) -> list[str]:
    """The tasks whose accepted assignment would break a hard rule as things stand now."""
    found = gather(
        carrier_id=carrier_id,
        van=proposal.van,
        tot=proposal.tot,
        now=now,
        task_ids={ln.taak_id for ln in chosen},
    )
    combos = {v: k for k, v in found.combination_vehicles.items()}
    assignments, missing = [], []
    for line in chosen:
        combo = combos.get((line.voertuig_id, line.getrokken_id))
        if combo is None or line.taak_id not in found.tasks:
            missing.append(str(line.taak_id))
            continue
        assignments.append(Assignment(line.taak_id, line.chauffeur_id, combo))
    drivers = {d.id for d in found.problem.drivers}
    missing += [str(a.task_id) for a in assignments if a.driver_id not in drivers]
    assignments = [a for a in assignments if a.driver_id in drivers]
    violations = checks.new_violations(found.problem, assignments)
    broken = {str(v.task_id) for v in violations if v.task_id is not None}
    by_driver = {v.driver_id for v in violations if v.task_id is None}
    broken |= {str(a.task_id) for a in assignments if a.driver_id in by_driver}
    return sorted(set(missing) | broken)


def accept(
    *,
    carrier_id: uuid.UUID,
    proposal_id: uuid.UUID,
    actor: Actor,
    task_ids: Iterable[uuid.UUID] | None = None,
    now: datetime | None = None,
) -> list[ProposalLine]:
    """Accept the proposal's open assignments (all, or of task_ids): the lines accepted.
    Conflict `taken_gewijzigd` naming the tasks changed since, or `regels_geschonden`
    naming those that would now break a rule; then nothing is written."""
    proposal = get_proposal(carrier_id=carrier_id, proposal_id=proposal_id, lock=True)
    if proposal.status not in FINISHED or proposal.status == "failed":
        raise Conflict("The proposal is not ready.", code="voorstel_niet_klaar",
                       status_now=proposal.status)  # fmt: skip
    chosen = _chosen(lines_of(carrier_id=carrier_id, proposal_id=proposal_id), task_ids)
    changed = _changed(carrier_id, chosen)
    if changed:
        raise Conflict("Tasks changed since the proposal was made: " + ", ".join(changed),
                       code="taken_gewijzigd", taken=changed)  # fmt: skip
    now = now or utcnow()
    broken = _broken(carrier_id, proposal, chosen, now)
    if broken:
        raise Conflict("Accepting would now break a planning rule for: " + ", ".join(broken),
                       code="regels_geschonden", taken=broken)  # fmt: skip
    for line in chosen:
        tasks.update_task(
            carrier_id=carrier_id,
            task_id=line.taak_id,
            data={"chauffeur_id": line.chauffeur_id, "vehicle_id": line.voertuig_id},
            actor=actor,
            expected_version=line.taak_versie,
        )
        line.geaccepteerd_op = now
    db.session.flush()
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="planvoorstel",
        entity_id=proposal.id,
        action="accepted",
        changes={"taken": sorted(str(ln.taak_id) for ln in chosen)},
    )
    return chosen
