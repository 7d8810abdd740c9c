"""Couplings of a towed vehicle to a motorised one

Revision ID: c0d1c0de0335
Revises: c0d1c0de0330
Create Date: 2026-11-29 01:00:00

A coupling (koppelingen) is for a calendar day (datum) or for one task (taak_id), exactly
one of the two; uncoupling keeps the row as history (ontkoppeld_op). Partial unique indexes
hold one current day coupling per vehicle per day on either side, and one current coupling
per task. A deleted task takes its coupling with it.
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0335"
down_revision = "c0d1c0de0330"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
DAY = "ontkoppeld_op IS NULL AND datum IS NOT NULL"
TASK = "ontkoppeld_op IS NULL AND taak_id IS NOT NULL"


def upgrade():
    op.create_table(
        "koppelingen",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("trekkend_id", sa.Uuid(), nullable=False),
        sa.Column("getrokken_id", sa.Uuid(), nullable=False),
        sa.Column("datum", sa.Date(), nullable=True),
        sa.Column("taak_id", sa.Uuid(), nullable=True),
        sa.Column("bron", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("gekoppeld_door", sa.String(length=254), nullable=False),
        sa.Column("ontkoppeld_op", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ontkoppeld_door", sa.String(length=254), nullable=True),
        sa.CheckConstraint(
            "(datum IS NULL) <> (taak_id IS NULL)", name=op.f("ck_koppelingen_dag_of_taak")
        ),
        sa.CheckConstraint(
            "trekkend_id <> getrokken_id", name=op.f("ck_koppelingen_twee_voertuigen")
        ),
        sa.CheckConstraint(
            "bron IN ('planner', 'qr_scan', 'api')", name=op.f("ck_koppelingen_bron")
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "trekkend_id"],
            ["voertuigen.transporteur_id", "voertuigen.id"],
            name="fk_koppelingen_trekkend",
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "getrokken_id"],
            ["voertuigen.transporteur_id", "voertuigen.id"],
            name="fk_koppelingen_getrokken",
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "taak_id"],
            ["taken.transporteur_id", "taken.id"],
            name="fk_koppelingen_taak",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f("fk_koppelingen_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_koppelingen")),
    )
    with op.batch_alter_table("koppelingen", schema=None) as batch_op:
        for name, column in (("getrokken", "getrokken_id"), ("trekkend", "trekkend_id")):
            batch_op.create_index(
                f"uq_koppelingen_dag_{name}",
                ["transporteur_id", column, "datum"],
                unique=True,
                postgresql_where=sa.text(DAY),
                sqlite_where=sa.text(DAY),
            )
        batch_op.create_index(
            "uq_koppelingen_taak",
            ["transporteur_id", "taak_id"],
            unique=True,
            postgresql_where=sa.text(TASK),
            sqlite_where=sa.text(TASK),
        )
        batch_op.create_index(
            "ix_koppelingen_trekkend", ["transporteur_id", "trekkend_id", "created_at"]
        )
        batch_op.create_index(
            "ix_koppelingen_getrokken", ["transporteur_id", "getrokken_id", "created_at"]
        )
        batch_op.create_index("ix_koppelingen_datum", ["transporteur_id", "datum"])

    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE koppelingen ENABLE ROW LEVEL SECURITY")
        op.execute("ALTER TABLE koppelingen FORCE ROW LEVEL SECURITY")
        op.execute(
            "CREATE POLICY carrier_isolation ON koppelingen "
            f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
        )


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP POLICY IF EXISTS carrier_isolation ON koppelingen")
    with op.batch_alter_table("koppelingen", schema=None) as batch_op:
        for name in (
            "ix_koppelingen_datum",
            "ix_koppelingen_getrokken",
            "ix_koppelingen_trekkend",
            "uq_koppelingen_taak",
            "uq_koppelingen_dag_trekkend",
            "uq_koppelingen_dag_getrokken",
        ):
            batch_op.drop_index(name)
    op.drop_table("koppelingen")
