"""Tariffs (tarieven): the carrier's default price per activity type and each customer's
own, valid from a day on, with row-level security

Revision ID: c0d1c0de0230
Revises: c0d1c0de0220
Create Date: 2026-11-26 10:00:00

Amounts are exact decimals (NUMERIC); one tariff per owner, activity type and first day
(two partial unique indexes, since the carrier's default has no customer).
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0230"
down_revision = "c0d1c0de0220"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"


def upgrade():
    op.create_table(
        "tarieven",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("klant_id", sa.Uuid(), nullable=True),
        sa.Column("activity_type", sa.String(length=40), nullable=False),
        sa.Column("geldig_vanaf", sa.Date(), nullable=False),
        sa.Column("grondslag", sa.String(length=10), nullable=False),
        sa.Column("eenheid", sa.String(length=20), nullable=True),
        sa.Column("prijs", sa.Numeric(precision=12, scale=4), nullable=False),
        sa.Column("minimum", sa.Numeric(precision=12, scale=2), nullable=True),
        sa.Column("wachttijd_vrij_minuten", sa.Integer(), nullable=False),
        sa.Column("wachttijd_per_uur", sa.Numeric(precision=12, scale=2), nullable=True),
        sa.Column("weekend_toeslag_procent", sa.Numeric(precision=5, scale=2), nullable=True),
        sa.Column("btw_procent", sa.Numeric(precision=5, scale=2), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "grondslag IN ('eenheid', 'vracht', 'uur', 'km')", name=op.f("ck_tarieven_grondslag")
        ),
        sa.CheckConstraint("btw_procent >= 0 AND btw_procent <= 100", name=op.f("ck_tarieven_btw")),
        sa.CheckConstraint("minimum IS NULL OR minimum >= 0", name=op.f("ck_tarieven_minimum")),
        sa.CheckConstraint("prijs >= 0", name=op.f("ck_tarieven_prijs")),
        sa.CheckConstraint("wachttijd_vrij_minuten >= 0", name=op.f("ck_tarieven_wachttijd_vrij")),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "klant_id"],
            ["klanten.transporteur_id", "klanten.id"],
            name=op.f("fk_tarieven_klanten"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f("fk_tarieven_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_tarieven")),
    )
    with op.batch_alter_table("tarieven", schema=None) as batch_op:
        batch_op.create_index(
            "uq_tarieven_klant",
            ["transporteur_id", "klant_id", "activity_type", "geldig_vanaf"],
            unique=True,
            postgresql_where=sa.text("klant_id IS NOT NULL"),
            sqlite_where=sa.text("klant_id IS NOT NULL"),
        )
        batch_op.create_index(
            "uq_tarieven_standaard",
            ["transporteur_id", "activity_type", "geldig_vanaf"],
            unique=True,
            postgresql_where=sa.text("klant_id IS NULL"),
            sqlite_where=sa.text("klant_id IS NULL"),
        )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE tarieven ENABLE ROW LEVEL SECURITY")
        op.execute("ALTER TABLE tarieven FORCE ROW LEVEL SECURITY")
        op.execute(
            "CREATE POLICY carrier_isolation ON tarieven "
            f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
        )


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP POLICY IF EXISTS carrier_isolation ON tarieven")
    with op.batch_alter_table("tarieven", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_tarieven_standaard",
            postgresql_where=sa.text("klant_id IS NULL"),
            sqlite_where=sa.text("klant_id IS NULL"),
        )
        batch_op.drop_index(
            "uq_tarieven_klant",
            postgresql_where=sa.text("klant_id IS NOT NULL"),
            sqlite_where=sa.text("klant_id IS NOT NULL"),
        )

    op.drop_table("tarieven")
