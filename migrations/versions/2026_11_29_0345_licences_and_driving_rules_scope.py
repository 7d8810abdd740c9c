"""Driving licence categories and where EU 561/2006 applies

Revision ID: c0d1c0de0345
Revises: c0d1c0de0340
Create Date: 2026-11-29 01:00:00

A driver's licence categories (rijbewijscategorieen): one row per category a driver holds,
with its expiry date when known; a category once per driver. A carrier's national exemptions
from EU 561/2006 per activity type (rijtijden_vrijstellingen): the activity type and the
article of Regulation (EC) 561/2006 the exemption relies on (Art. 13(1)). A card day's
vehicle uses (tacho_dagen.voertuiggebruik): which registration from which minute to which,
so driving in a vehicle out of the regulation's scope can be told apart; null for days read
before this (the day's registrations still say it when they are all out of scope).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0345"
down_revision = "c0d1c0de0340"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
TABLES = ("rijbewijscategorieen", "rijtijden_vrijstellingen")
CATEGORIES = (
    "AM", "A1", "A2", "A", "B", "BE", "C1", "C1E", "C", "CE", "D1", "D1E", "D", "DE", "T",
)  # fmt: skip
ARTICLES = ("13(1)(b)", "13(1)(c)", "13(1)(l)", "13(1)(n)", "13(1)(p)")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def upgrade():
    op.create_table(
        "rijbewijscategorieen",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("chauffeur_id", sa.Uuid(), nullable=False),
        sa.Column("categorie", sa.String(length=4), nullable=False),
        sa.Column("geldig_tot", sa.Date(), nullable=True),
        sa.CheckConstraint(
            _in("categorie", CATEGORIES), name=op.f("ck_rijbewijscategorieen_categorie")
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"],
            ["chauffeurs.transporteur_id", "chauffeurs.id"],
            name=op.f("fk_rijbewijscategorieen_chauffeurs"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"],
            ["transporteurs.id"],
            name=op.f("fk_rijbewijscategorieen_transporteurs"),
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_rijbewijscategorieen")),
        sa.UniqueConstraint(
            "transporteur_id",
            "chauffeur_id",
            "categorie",
            name=op.f("uq_rijbewijscategorieen_transporteur_id_chauffeur_id_categorie"),
        ),
    )
    op.create_table(
        "rijtijden_vrijstellingen",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("activiteit", sa.String(length=64), nullable=False),
        sa.Column("artikel", sa.String(length=12), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            _in("artikel", ARTICLES), name=op.f("ck_rijtijden_vrijstellingen_artikel")
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"],
            ["transporteurs.id"],
            name=op.f("fk_rijtijden_vrijstellingen_transporteurs"),
        ),
        sa.PrimaryKeyConstraint(
            "transporteur_id", "id", name=op.f("pk_rijtijden_vrijstellingen")
        ),
        sa.UniqueConstraint(
            "transporteur_id",
            "activiteit",
            name=op.f("uq_rijtijden_vrijstellingen_transporteur_id_activiteit"),
        ),
    )
    with op.batch_alter_table("tacho_dagen", schema=None) as batch_op:
        batch_op.add_column(sa.Column("voertuiggebruik", sa.JSON(), nullable=True))

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
    with op.batch_alter_table("tacho_dagen", schema=None) as batch_op:
        batch_op.drop_column("voertuiggebruik")
    op.drop_table("rijtijden_vrijstellingen")
    op.drop_table("rijbewijscategorieen")
