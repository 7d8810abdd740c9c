"""A carrier's pay rule sets (cao_regelsets): the stored sets, oldest first, as cao.Regelset;
the CAO preset when the carrier has none yet."""

from __future__ import annotations

import uuid
from datetime import date

from sqlalchemy import select

from portal.extensions import db
from portal.hours import cao
from portal.hours.pay_models import RuleSet

# The preset's first day when a carrier keeps no rule set: a Monday before any carrier's data.
PRESET_FROM = date(2000, 1, 3)


def stored(*, carrier_id: uuid.UUID) -> list[RuleSet]:
    """The carrier's stored rule sets, oldest first: one query."""
    return list(
        db.session.scalars(
            select(RuleSet)
            .where(RuleSet.transporteur_id == carrier_id)
            .order_by(RuleSet.geldig_vanaf)
        )
    )


def rule_sets(*, carrier_id: uuid.UUID) -> list[cao.Regelset]:
    """The carrier's rule sets as the computation takes them, oldest first; the CAO preset
    from long ago when it keeps none."""
    rows = stored(carrier_id=carrier_id)
    if not rows:
        return [cao.cao_preset(PRESET_FROM)]
    return [cao.regelset_uit_json(row.regels) for row in rows]
