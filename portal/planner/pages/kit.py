"""The planner pages' blueprint and what they share: the words of the rules and warnings,
a proposal's lines as the diff shows them (task, current -> proposed driver and
combination, reasons, warnings, why not placed)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from flask import Blueprint
from flask_babel import format_date
from flask_babel import lazy_gettext as _l

from portal.drivers import service as drivers
from portal.fleet import service as fleet
from portal.planner import service
from portal.tasks.listing import TaskFilters, list_tasks
from portal.web.kit import current_carrier_id, current_zone

bp = Blueprint("planner", __name__)
EN_DASH = "\u2013"

RULE_WORDS = {
    "overlap": _l("overlapt met een andere taak van de chauffeur"),
    "voertuig_bezet": _l("geen passend voertuig vrij"),
    "rijtijd_dag": _l("rijtijd van de dag op (9 uur)"),
    "rijtijd_week": _l("rijtijd van de week op (56 uur)"),
    "rijtijd_twee_weken": _l("rijtijd van twee weken op (90 uur)"),
    "dagrust": _l("dagelijkse rust (11 uur) komt in gevaar"),
    "weekrust": _l("wekelijkse rust is dan verplicht"),
    "capaciteiten": _l("geen combinatie met de nodige uitrusting"),
    "rijbewijs": _l("rijbewijs dekt de combinatie niet"),
    "openingstijden": _l("de locatie is dan gesloten"),
    "geen_combinatie": _l("geen combinatie beschikbaar die dag"),
}
WARNING_WORDS = {
    "geen_rijtijdgegevens": _l("geen kaart- of urengegevens: rijtijd niet te controleren"),
    "weekrust_onbekend": _l("laatste weekrust onbekend"),
    "rijbewijzen_onbekend": _l("rijbewijzen van de chauffeur onbekend"),
    "rijbewijs_combinatie_onbekend": _l("welk rijbewijs de combinatie vraagt is onbekend"),
    "openingstijden_onbekend": _l("openingstijden niet te lezen"),
}
STATUS_WORDS = {
    "queued": _l("In de wachtrij"),
    "running": _l("Wordt berekend"),
    "done": _l("Klaar"),
    "timed_out": _l("Klaar (tijdslimiet bereikt: het beste gevonden voorstel)"),
    "failed": _l("Mislukt"),
}


def period_text(proposal) -> str:
    """The proposal's days as people read them: "ma 7 dec", an en dash, "zo 13 dec 2026"."""
    zone = current_zone()
    first = proposal.van.astimezone(zone).date()
    last = (proposal.tot - timedelta(seconds=1)).astimezone(zone).date()
    if first == last:
        return format_date(first, "EEE d MMM y")
    return f"{format_date(first, 'EEE d MMM')} {EN_DASH} {format_date(last, 'EEE d MMM y')}"


@dataclass(frozen=True)
class DiffLine:
    line: object  # ProposalLine
    task: object  # Task row (None: deleted meanwhile)
    driver_was: str | None
    vehicle_was: str | None
    driver: str | None
    vehicle: str | None
    warnings: list[str]


def diff_lines(proposal_id: uuid.UUID) -> list[DiffLine]:
    """The proposal's lines with the names people read: a fixed number of queries."""
    carrier_id = current_carrier_id()
    lines = service.lines_of(carrier_id=carrier_id, proposal_id=proposal_id)
    ids = {ln.taak_id for ln in lines}
    proposal = service.get_proposal(carrier_id=carrier_id, proposal_id=proposal_id)
    found = list_tasks(
        carrier_id=carrier_id,
        filters=TaskFilters(van=proposal.van, tot=proposal.tot, limit=5000),
        with_definitions=False,
    )
    rows = {t.id: t for t in found.tasks if t.id in ids}
    people = drivers.names_by_id(
        carrier_id=carrier_id,
        driver_ids={i for ln in lines for i in (ln.chauffeur_id, ln.chauffeur_id_was) if i},
    )
    plates = fleet.plates_by_id(
        carrier_id=carrier_id,
        vehicle_ids={
            i for ln in lines for i in (ln.voertuig_id, ln.getrokken_id, ln.voertuig_id_was) if i
        },
    )

    def combo(motor, towed):
        if motor is None:
            return None
        if towed is None:
            return plates.get(motor)
        return f"{plates.get(motor, '?')} + {plates.get(towed, '?')}"

    found_lines = [
        DiffLine(
            ln,
            rows.get(ln.taak_id),
            people.get(ln.chauffeur_id_was),
            plates.get(ln.voertuig_id_was),
            people.get(ln.chauffeur_id),
            combo(ln.voertuig_id, ln.getrokken_id),
            [str(WARNING_WORDS.get(w, w)) for w in (ln.waarschuwingen or "").split(",") if w],
        )
        for ln in lines
    ]
    return sorted(
        found_lines, key=lambda d: (d.task.gepland_op if d.task else proposal.tot, d.task is None)
    )
