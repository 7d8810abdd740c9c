"""Task templates and recurring series

Revision ID: c0d1c0de0340
Revises: c0d1c0de0335
Create Date: 2026-11-29 01:00:00

A template (taak_sjablonen) keeps what a repeated run of a task keeps; a series
(taak_reeksen) makes tasks from a template by a recurrence rule; an occurrence
(reeks_voorkomens) is one date of the rule, unique per series, so two planning runs at the
same time make it once. Row-level security on all three, as on every tenant table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0340"
down_revision = "c0d1c0de0335"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
TABLES = ("taak_sjablonen", "taak_reeksen", "reeks_voorkomens")


def _carrier_key(table: str) -> list:
    return [
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
    ]


def _carrier_constraints(table: str) -> list:
    return [
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f(f"fk_{table}_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f(f"pk_{table}")),
    ]


def _templates() -> None:
    op.create_table(
        "taak_sjablonen",
        *_carrier_key("taak_sjablonen"),
        sa.Column("naam", sa.String(length=200), nullable=False),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("klant_id", sa.Uuid(), nullable=True),
        sa.Column("duur_min", sa.Integer(), nullable=True),
        sa.Column("capaciteiten", sa.JSON(), nullable=False),
        sa.Column("velden", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "duur_min IS NULL OR (duur_min > 0 AND duur_min <= 1440)",
            name=op.f("ck_taak_sjablonen_duur_min"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "klant_id"],
            ["klanten.transporteur_id", "klanten.id"],
            name=op.f("fk_taak_sjablonen_klanten"),
        ),
        *_carrier_constraints("taak_sjablonen"),
        sa.UniqueConstraint(
            "transporteur_id", "naam", name=op.f("uq_taak_sjablonen_transporteur_id_naam")
        ),
    )


def _series() -> None:
    op.create_table(
        "taak_reeksen",
        *_carrier_key("taak_reeksen"),
        sa.Column("sjabloon_id", sa.Uuid(), nullable=False),
        sa.Column("naam", sa.String(length=200), nullable=False),
        sa.Column("patroon", sa.String(length=20), nullable=False),
        sa.Column("weekdagen", sa.String(length=20), nullable=False),
        sa.Column("om_weken", sa.Integer(), nullable=False),
        sa.Column("startdatum", sa.Date(), nullable=False),
        sa.Column("einddatum", sa.Date(), nullable=True),
        sa.Column("tijd", sa.Time(), nullable=False),
        sa.Column("chauffeur_id", sa.Uuid(), nullable=True),
        sa.Column("vehicle_id", sa.Uuid(), nullable=True),
        sa.Column("feestdagen", sa.String(length=20), nullable=False),
        sa.Column("beeindigd_op", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("versie", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "patroon IN ('wekelijks', 'eerste_werkdag')", name=op.f("ck_taak_reeksen_patroon")
        ),
        sa.CheckConstraint(
            "feestdagen IN ('overslaan', 'volgende_werkdag')",
            name=op.f("ck_taak_reeksen_feestdagen"),
        ),
        sa.CheckConstraint("om_weken BETWEEN 1 AND 52", name=op.f("ck_taak_reeksen_om_weken")),
        sa.CheckConstraint(
            "einddatum IS NULL OR einddatum >= startdatum", name=op.f("ck_taak_reeksen_einddatum")
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "sjabloon_id"],
            ["taak_sjablonen.transporteur_id", "taak_sjablonen.id"],
            name=op.f("fk_taak_reeksen_taak_sjablonen"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"],
            ["chauffeurs.transporteur_id", "chauffeurs.id"],
            name=op.f("fk_taak_reeksen_chauffeurs"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "vehicle_id"],
            ["voertuigen.transporteur_id", "voertuigen.id"],
            name=op.f("fk_taak_reeksen_voertuigen"),
        ),
        *_carrier_constraints("taak_reeksen"),
    )
    with op.batch_alter_table("taak_reeksen", schema=None) as batch_op:
        batch_op.create_index(
            "ix_taak_reeksen_sjabloon", ["transporteur_id", "sjabloon_id"], unique=False
        )


def _occurrences() -> None:
    op.create_table(
        "reeks_voorkomens",
        *_carrier_key("reeks_voorkomens"),
        sa.Column("reeks_id", sa.Uuid(), nullable=False),
        sa.Column("datum", sa.Date(), nullable=False),
        sa.Column("gepland_datum", sa.Date(), nullable=True),
        sa.Column("feestdag", sa.String(length=100), nullable=True),
        sa.Column("taak_id", sa.Uuid(), nullable=True),
        sa.Column("stand", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "stand IN ('volgt', 'gewijzigd', 'overgeslagen', 'verwijderd')",
            name=op.f("ck_reeks_voorkomens_stand"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "reeks_id"],
            ["taak_reeksen.transporteur_id", "taak_reeksen.id"],
            name=op.f("fk_reeks_voorkomens_taak_reeksen"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "taak_id"],
            ["taken.transporteur_id", "taken.id"],
            name=op.f("fk_reeks_voorkomens_taken"),
        ),
        *_carrier_constraints("reeks_voorkomens"),
        sa.UniqueConstraint(
            "transporteur_id",
            "reeks_id",
            "datum",
            name=op.f("uq_reeks_voorkomens_transporteur_id_reeks_id_datum"),
        ),
    )
    with op.batch_alter_table("reeks_voorkomens", schema=None) as batch_op:
        batch_op.create_index(
            "ix_reeks_voorkomens_taak", ["transporteur_id", "taak_id"], unique=False
        )


def upgrade():
    _templates()
    _series()
    _occurrences()
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
            op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
            op.execute(
                f"CREATE POLICY carrier_isolation ON {table} "
                f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
            )


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"DROP POLICY IF EXISTS carrier_isolation ON {table}")
    with op.batch_alter_table("reeks_voorkomens", schema=None) as batch_op:
        batch_op.drop_index("ix_reeks_voorkomens_taak")
    op.drop_table("reeks_voorkomens")
    with op.batch_alter_table("taak_reeksen", schema=None) as batch_op:
        batch_op.drop_index("ix_taak_reeksen_sjabloon")
    op.drop_table("taak_reeksen")
    op.drop_table("taak_sjablonen")
