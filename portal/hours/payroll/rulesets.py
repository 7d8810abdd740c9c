"""A carrier's pay rule sets (cao_regelsets): the stored sets, oldest first, as cao.PayRules;
the CAO preset when the carrier has none yet; adding, changing and deleting a set.

A set holds from its `geldig_vanaf` (a Monday) until the next set's date. Approved weeks are
paid as computed: a change that would compute an approved week with other rules (a set
changed or deleted, or a new one starting on or before that week) is refused with the code
`regelset_week_goedgekeurd`; the planner adds a set from a Monday after that week instead.
Only what the computation reads counts as a change: a new name or source text never does.
"""

from __future__ import annotations

import dataclasses
import uuid
from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from portal.audit import service as audit
from portal.audit.service import Actor
from portal.errors import Conflict, NotFound, ValidationFailed
from portal.extensions import db
from portal.hours import cao
from portal.hours.models import WeekApproval
from portal.hours.pay_models import RuleSet
from portal.hours.totals import IsoWeek

# The preset's first day when a carrier keeps no rule set: a Monday before any carrier's data.
PRESET_FROM = date(2000, 1, 3)


class RuleSetLocked(Conflict):
    """A change that would alter an approved week's pay; `params` names the first such week
    (`week`) and the first Monday a new set may start from (`vanaf`)."""

    def __init__(self, action: str, week: IsoWeek, vanaf: date):
        super().__init__(
            f"week {week.label} is approved and computed with these rules: add a rule set "
            f"from {vanaf.isoformat()} or later instead",
            code="regelset_week_goedgekeurd",
        )
        self.code = "regelset_week_goedgekeurd"
        self.params = {"actie": action, "week": week, "vanaf": vanaf}


def stored(*, carrier_id: uuid.UUID) -> list[RuleSet]:
    """The carrier's stored rule sets, oldest first: one query."""
    return list(
        db.session.scalars(
            select(RuleSet)
            .where(RuleSet.transporteur_id == carrier_id)
            .order_by(RuleSet.geldig_vanaf)
        )
    )


def rule_sets(*, carrier_id: uuid.UUID) -> list[cao.PayRules]:
    """The carrier's rule sets as the computation takes them, oldest first. Before the
    carrier's first own set (or without one) the CAO preset holds, so weeks before it keep
    their figures."""
    rows = stored(carrier_id=carrier_id)
    sets = [cao.pay_rules_from_json(row.regels) for row in rows]
    if not rows or rows[0].geldig_vanaf > PRESET_FROM:
        sets.insert(0, cao.cao_preset(PRESET_FROM))
    return sets


def as_rules(row: RuleSet) -> cao.PayRules:
    """A stored rule set as the computation reads it."""
    return cao.pay_rules_from_json(row.regels)


def get_rule_set(*, carrier_id: uuid.UUID, rule_set_id: uuid.UUID) -> RuleSet:
    """The carrier's rule set; NotFound when absent or another carrier's."""
    row = db.session.scalar(
        select(RuleSet).where(RuleSet.transporteur_id == carrier_id, RuleSet.id == rule_set_id)
    )
    if row is None:
        raise NotFound("rule set not found")
    return row


def holding(rows: list[RuleSet], day: date) -> RuleSet | None:
    """Which of rows (oldest first) holds on day; None when none does (the preset holds)."""
    found = None
    for row in rows:
        if row.geldig_vanaf <= day:
            found = row
    return found


def template(*, carrier_id: uuid.UUID) -> tuple[RuleSet | None, cao.PayRules]:
    """What a new set starts from: the newest stored set (and its row), else the preset."""
    rows = stored(carrier_id=carrier_id)
    if rows:
        return rows[-1], as_rules(rows[-1])
    return None, cao.cao_preset(PRESET_FROM)


def next_monday(day: date) -> date:
    """The first Monday after day."""
    return day + timedelta(days=7 - day.weekday())


# --- checks --------------------------------------------------------------------------------


def _check(rules: cao.PayRules) -> dict:
    """The rule set's JSON; ValidationFailed with every problem (code, field, params) if not
    valid."""
    problems = cao.validate_pay_rules(rules)
    if problems:
        raise ValidationFailed(
            [
                {"field": p.veld, "code": p.code, "message": p.code, "params": p.params}
                for p in problems
            ]
        )
    return cao.pay_rules_to_json(rules)


def _duplicate(day: date) -> ValidationFailed:
    return ValidationFailed(
        [
            {
                "field": "geldig_vanaf",
                "code": "geldig_vanaf_dubbel",
                "message": "there is a rule set from this day already",
                "params": {"geldig_vanaf": day.isoformat()},
            }
        ]
    )


def _computed(regels: dict) -> cao.PayRules:
    """What of a stored set the computation reads (amounts compared as numbers: 0 is 0.00)."""
    rules = cao.pay_rules_from_json(regels)
    return dataclasses.replace(rules, geldig_vanaf=PRESET_FROM, naam="", bron="")


def _governing(history: list[tuple[date, dict]], monday: date) -> cao.PayRules:
    """What computes the week of monday under a history ((date, JSON), oldest first)."""
    found = None
    for day, regels in history:
        if day <= monday:
            found = regels
    if found is None:
        found = cao.pay_rules_to_json(cao.cao_preset(PRESET_FROM))
    return _computed(found)


def _refuse_approved(
    carrier_id: uuid.UUID,
    before: list[tuple[date, dict]],
    after: list[tuple[date, dict]],
    action: str,
) -> None:
    """RuleSetLocked when an approved week would be computed with other rules after the change
    than before it: one query over the approvals from the first date the change touches."""
    changed = sorted(
        {d for d, r in before if (d, r) not in after}
        | {d for d, r in after if (d, r) not in before}
    )
    if not changed:
        return
    first = IsoWeek.of(changed[0])
    weeks = sorted(
        {
            IsoWeek(jaar, week)
            for jaar, week in db.session.execute(
                select(WeekApproval.jaar, WeekApproval.week).where(
                    WeekApproval.transporteur_id == carrier_id,
                    WeekApproval.heropend_op.is_(None),
                    WeekApproval.jaar * 100 + WeekApproval.week >= first.key,
                )
            )
        },
        key=lambda w: w.key,
    )
    hit = [w for w in weeks if _governing(before, w.monday) != _governing(after, w.monday)]
    if hit:
        raise RuleSetLocked(action, hit[0], hit[-1].monday + timedelta(days=7))


def _history(carrier_id: uuid.UUID) -> tuple[list[RuleSet], list[tuple[date, dict]]]:
    rows = stored(carrier_id=carrier_id)
    return rows, [(row.geldig_vanaf, row.regels) for row in rows]


def _flush_or_duplicate(change, day: date) -> None:
    """change() in a savepoint: a second set on the same day (a race) is the field error."""
    try:
        with db.session.begin_nested():
            change()
            db.session.flush()
    except IntegrityError:
        raise _duplicate(day) from None


# --- changes -------------------------------------------------------------------------------


def create_rule_set(*, carrier_id: uuid.UUID, rules: cao.PayRules, actor: Actor) -> RuleSet:
    """A new rule set from rules.geldig_vanaf; ValidationFailed when it is not valid or a set
    starts that day already, RuleSetLocked when it would change an approved week."""
    regels = _check(rules)
    rows, before = _history(carrier_id)
    if any(row.geldig_vanaf == rules.geldig_vanaf for row in rows):
        raise _duplicate(rules.geldig_vanaf)
    after = sorted([*before, (rules.geldig_vanaf, regels)], key=lambda pair: pair[0])
    _refuse_approved(carrier_id, before, after, "aanmaken")
    row = RuleSet(
        transporteur_id=carrier_id,
        geldig_vanaf=rules.geldig_vanaf,
        regels=regels,
        gemaakt_door=actor.label,
    )
    _flush_or_duplicate(lambda: db.session.add(row), rules.geldig_vanaf)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="regelset",
        entity_id=row.id,
        action="created",
        changes={"geldig_vanaf": [None, row.geldig_vanaf], "regels": [None, regels]},
    )
    return row


def update_rule_set(
    *, carrier_id: uuid.UUID, rule_set_id: uuid.UUID, rules: cao.PayRules, actor: Actor
) -> RuleSet:
    """Change a rule set (its date too) under create_rule_set's rules; the trail keeps the
    values before and after of what changed."""
    row = get_rule_set(carrier_id=carrier_id, rule_set_id=rule_set_id)
    regels = _check(rules)
    if regels == row.regels:
        return row
    rows, before = _history(carrier_id)
    if any(r.geldig_vanaf == rules.geldig_vanaf and r.id != row.id for r in rows):
        raise _duplicate(rules.geldig_vanaf)
    after = sorted(
        [(r.geldig_vanaf, r.regels) for r in rows if r.id != row.id]
        + [(rules.geldig_vanaf, regels)],
        key=lambda pair: pair[0],
    )
    _refuse_approved(carrier_id, before, after, "wijzigen")
    old = row.regels
    changes = {
        name: [old.get(name), value] for name, value in regels.items() if old.get(name) != value
    }

    def change():
        row.geldig_vanaf = rules.geldig_vanaf
        row.regels = regels

    _flush_or_duplicate(change, rules.geldig_vanaf)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="regelset",
        entity_id=row.id,
        action="updated",
        changes=changes,
    )
    return row


def check_delete(*, carrier_id: uuid.UUID, rule_set_id: uuid.UUID) -> RuleSet:
    """The rule set when it may be deleted; RuleSetLocked when deleting it would change an
    approved week (the set before it, or the preset, would compute that week)."""
    row = get_rule_set(carrier_id=carrier_id, rule_set_id=rule_set_id)
    rows, before = _history(carrier_id)
    after = [(r.geldig_vanaf, r.regels) for r in rows if r.id != row.id]
    _refuse_approved(carrier_id, before, after, "verwijderen")
    return row


def delete_rule_set(*, carrier_id: uuid.UUID, rule_set_id: uuid.UUID, actor: Actor) -> None:
    """Delete a rule set: the set before it holds on (the preset after the last one);
    RuleSetLocked when that would change an approved week."""
    row = check_delete(carrier_id=carrier_id, rule_set_id=rule_set_id)
    audit.record(
        carrier_id=carrier_id,
        actor=actor,
        entity="regelset",
        entity_id=row.id,
        action="deleted",
        changes={"geldig_vanaf": [row.geldig_vanaf, None], "regels": [row.regels, None]},
    )
    db.session.delete(row)
    db.session.flush()
