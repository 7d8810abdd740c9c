"""Pay: the carrier's rule sets (cao_regelsets), the planner's corrections of recorded hours
with the driver's answer (uren_correcties), and payroll export batches with the weeks they
carried (loon_exports, loon_export_weken).

A rule set is stored as the JSON of `cao.pay_rules_to_json`, checked before it is saved; a
correction keeps the activity as it was and as it became, so the driver sees both.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Date,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    Uuid,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.extensions import db
from portal.tenancy import CarrierScoped
from portal.types import UTCDateTime, utcnow

REACTIES = ("akkoord", "opmerking")


class RuleSet(CarrierScoped, db.Model):
    """A carrier's pay rules from `geldig_vanaf` (a Monday) until the next set's date."""

    __tablename__ = "cao_regelsets"
    __table_args__ = (UniqueConstraint("transporteur_id", "geldig_vanaf"),)

    geldig_vanaf: Mapped[date] = mapped_column(Date)
    regels: Mapped[dict] = mapped_column(JSON)
    gemaakt_door: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class HoursCorrection(CarrierScoped, db.Model):
    """A planner's change of a driver's recorded activity, with a reason, shown to the driver
    who accepts it (`akkoord`) or comments (`opmerking`). `oud` and `nieuw` hold the activity's
    soort, begin and einde (ISO instants) before and after. `activiteit_id` is a reference
    without a foreign key, like an activity's task: the history stays."""

    __tablename__ = "uren_correcties"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        CheckConstraint("week >= 1 AND week <= 53", name="week"),
        CheckConstraint("reactie IS NULL OR reactie IN ('akkoord', 'opmerking')", name="reactie"),
        Index("ix_uren_correcties_week", "transporteur_id", "chauffeur_id", "jaar", "week"),
    )

    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    jaar: Mapped[int] = mapped_column(Integer)  # the ISO week the activity begins in
    week: Mapped[int] = mapped_column(Integer)
    activiteit_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    oud: Mapped[dict] = mapped_column(JSON)
    nieuw: Mapped[dict] = mapped_column(JSON)
    reden: Mapped[str] = mapped_column(Text)
    door: Mapped[str] = mapped_column(String(254))  # who made it, as the audit names them
    gemaakt_op: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    reactie: Mapped[str | None] = mapped_column(String(20))
    reactie_tekst: Mapped[str | None] = mapped_column(Text)
    reactie_op: Mapped[datetime | None] = mapped_column(UTCDateTime)


class PayrollExport(CarrierScoped, db.Model):
    """One payroll export of approved weeks from ISO week `van` to `tot` (their Mondays),
    kept so it can be downloaded again. `opnieuw`: it carried weeks exported before, which
    the planner chose to export again."""

    __tablename__ = "loon_exports"

    van: Mapped[date] = mapped_column(Date)
    tot: Mapped[date] = mapped_column(Date)
    weken: Mapped[int] = mapped_column(Integer)
    opnieuw: Mapped[bool] = mapped_column(default=False)
    kolommen: Mapped[dict] = mapped_column(JSON)  # the column settings it was made with
    gemaakt_door: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PayrollExportWeek(CarrierScoped, db.Model):
    """A driver's week in a payroll export, with the figures as exported (`cijfers`: the
    week's payable JSON), so a download again gives the same file."""

    __tablename__ = "loon_export_weken"
    __table_args__ = (
        ForeignKeyConstraint(
            ["transporteur_id", "export_id"], ["loon_exports.transporteur_id", "loon_exports.id"]
        ),
        ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"], ["chauffeurs.transporteur_id", "chauffeurs.id"]
        ),
        CheckConstraint("week >= 1 AND week <= 53", name="week"),
        Index("ix_loon_export_weken_week", "transporteur_id", "chauffeur_id", "jaar", "week"),
        Index("ix_loon_export_weken_export", "transporteur_id", "export_id"),
    )

    export_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    chauffeur_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    jaar: Mapped[int] = mapped_column(Integer)
    week: Mapped[int] = mapped_column(Integer)
    cijfers: Mapped[dict] = mapped_column(JSON)
