"""Planning proposals made by the solver

Revision ID: c0d1c0de0350
Revises: c0d1c0de0345
Create Date: 2026-11-29 01:00:00

A proposal (planvoorstellen) for a period's unassigned tasks waits for the worker (status
queued, volgende_poging_op; a running one whose worker died is due again when its lease
ends), is solved outside the request and keeps its lines
(planvoorstel_regels): each task's version when solved, its driver and vehicle then, and the
proposal (a driver and combination, or the rule that stopped it). Both tables have
row-level security; the worker finds the carriers with proposals due through the owner's
SECURITY DEFINER function rijplan_planvoorstellen_te_maken (run `flask grant-app-role`
again after this migration).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0350"
down_revision = "c0d1c0de0345"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
TABLES = ("planvoorstellen", "planvoorstel_regels")
DUE = "rijplan_planvoorstellen_te_maken"


def upgrade():
    op.create_table(
        "planvoorstellen",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("van", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tot", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seconden", sa.Integer(), nullable=False),
        sa.Column("aangemaakt_door", sa.String(length=200), nullable=False),
        sa.Column("aangemaakt_door_type", sa.String(length=16), nullable=False),
        sa.Column("aangemaakt_door_id", sa.Uuid(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("volgende_poging_op", sa.DateTime(timezone=True), nullable=True),
        sa.Column("claim_id", sa.Uuid(), nullable=True),
        sa.Column("pogingen", sa.Integer(), nullable=False),
        sa.Column("gestart_op", sa.DateTime(timezone=True), nullable=True),
        sa.Column("klaar_op", sa.DateTime(timezone=True), nullable=True),
        sa.Column("fout", sa.Text(), nullable=True),
        sa.Column("geplaatst", sa.Integer(), nullable=True),
        sa.Column("niet_geplaatst", sa.Integer(), nullable=True),
        sa.Column("lege_km", sa.Float(), nullable=True),
        sa.Column("spreiding_min", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'timed_out', 'failed')",
            name=op.f("ck_planvoorstellen_status"),
        ),
        sa.CheckConstraint("tot > van", name=op.f("ck_planvoorstellen_periode")),
        sa.CheckConstraint("seconden BETWEEN 1 AND 600", name=op.f("ck_planvoorstellen_seconden")),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f("fk_planvoorstellen_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_planvoorstellen")),
    )
    with op.batch_alter_table("planvoorstellen", schema=None) as batch_op:
        batch_op.create_index(
            "ix_planvoorstellen_wachtrij", ["status", "volgende_poging_op"], unique=False
        )
        batch_op.create_index(
            "ix_planvoorstellen_aangemaakt", ["transporteur_id", "created_at"], unique=False
        )

    op.create_table(
        "planvoorstel_regels",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("voorstel_id", sa.Uuid(), nullable=False),
        sa.Column("taak_id", sa.Uuid(), nullable=False),
        sa.Column("taak_versie", sa.Integer(), nullable=False),
        sa.Column("chauffeur_id_was", sa.Uuid(), nullable=True),
        sa.Column("voertuig_id_was", sa.Uuid(), nullable=True),
        sa.Column("chauffeur_id", sa.Uuid(), nullable=True),
        sa.Column("voertuig_id", sa.Uuid(), nullable=True),
        sa.Column("getrokken_id", sa.Uuid(), nullable=True),
        sa.Column("regel", sa.String(length=40), nullable=True),
        sa.Column("waarschuwingen", sa.String(length=300), nullable=True),
        sa.Column("lege_km", sa.Float(), nullable=True),
        sa.Column("geaccepteerd_op", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "(chauffeur_id IS NULL) = (regel IS NOT NULL)",
            name=op.f("ck_planvoorstel_regels_geplaatst_of_regel"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "voorstel_id"],
            ["planvoorstellen.transporteur_id", "planvoorstellen.id"],
            name="fk_planvoorstel_regels_voorstel",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "taak_id"],
            ["taken.transporteur_id", "taken.id"],
            name="fk_planvoorstel_regels_taak",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"],
            ["transporteurs.id"],
            name=op.f("fk_planvoorstel_regels_transporteurs"),
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_planvoorstel_regels")),
        sa.UniqueConstraint(
            "transporteur_id",
            "voorstel_id",
            "taak_id",
            name=op.f("uq_planvoorstel_regels_transporteur_id_voorstel_id_taak_id"),
        ),
    )
    with op.batch_alter_table("planvoorstel_regels", schema=None) as batch_op:
        batch_op.create_index(
            "ix_planvoorstel_regels_taak", ["transporteur_id", "taak_id"], unique=False
        )

    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
            op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
            op.execute(
                f"CREATE POLICY carrier_isolation ON {table} "
                f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
            )
        # Only for the owner (this migration's role), whose function below reads it.
        op.execute(
            "CREATE POLICY owner_lookup ON planvoorstellen FOR SELECT TO CURRENT_USER "
            "USING (true)"
        )
        op.execute(
            f"CREATE FUNCTION {DUE}(p_now timestamptz, p_limit integer) "
            "RETURNS TABLE(transporteur_id uuid) "
            "LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp "
            "AS $$ SELECT transporteur_id FROM planvoorstellen "
            "WHERE status IN ('queued', 'running') "
            "AND volgende_poging_op <= p_now GROUP BY transporteur_id "
            "ORDER BY min(volgende_poging_op) LIMIT p_limit $$"
        )
        op.execute(f"REVOKE ALL ON FUNCTION {DUE}(timestamptz, integer) FROM PUBLIC")


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP FUNCTION IF EXISTS {DUE}(timestamptz, integer)")
        op.execute("DROP POLICY IF EXISTS owner_lookup ON planvoorstellen")
        for table in TABLES:
            op.execute(f"DROP POLICY IF EXISTS carrier_isolation ON {table}")
    with op.batch_alter_table("planvoorstel_regels", schema=None) as batch_op:
        batch_op.drop_index("ix_planvoorstel_regels_taak")
    op.drop_table("planvoorstel_regels")
    with op.batch_alter_table("planvoorstellen", schema=None) as batch_op:
        batch_op.drop_index("ix_planvoorstellen_aangemaakt")
        batch_op.drop_index("ix_planvoorstellen_wachtrij")
    op.drop_table("planvoorstellen")
