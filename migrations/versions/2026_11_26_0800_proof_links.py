"""Proof of delivery: share links (bewijs_links), with row-level security and the owner's
look-up of a link by its token's hash

Revision ID: c0d1c0de0210
Revises: c0d1c0de0200
Create Date: 2026-11-26 08:00:00

A planner shares a completed task's proof of delivery with a shipper, who opens it without
an account. The link's token is stored as its SHA-256 only. Opening a link happens before
the carrier is known: the SECURITY DEFINER function `rijplan_bewijs_link` answers the carrier
and id of the exact hash (as the credential look-ups, migration c0d1c0de0180), and the app
then reads the link as that carrier. Run `flask grant-app-role` again after this migration
(EXECUTE on the new function).
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0210"
down_revision = "c0d1c0de0200"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
LOOKUP = "rijplan_bewijs_link"


def upgrade():
    op.create_table(
        "bewijs_links",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("taak_id", sa.Uuid(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("verloopt_op", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ingetrokken_op", sa.DateTime(timezone=True), nullable=True),
        sa.Column("aangemaakt_door", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "taak_id"],
            ["taken.transporteur_id", "taken.id"],
            name=op.f("fk_bewijs_links_taken"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f("fk_bewijs_links_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_bewijs_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_bewijs_links_token_hash")),
    )
    with op.batch_alter_table("bewijs_links", schema=None) as batch_op:
        batch_op.create_index(
            "ix_bewijs_links_taak", ["transporteur_id", "taak_id", "created_at"], unique=False
        )

    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE bewijs_links ENABLE ROW LEVEL SECURITY")
        op.execute("ALTER TABLE bewijs_links FORCE ROW LEVEL SECURITY")
        op.execute(
            "CREATE POLICY carrier_isolation ON bewijs_links "
            f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
        )
        # Only for the owner (this migration's role), whose function below reads it.
        op.execute(
            "CREATE POLICY owner_lookup ON bewijs_links FOR SELECT TO CURRENT_USER USING (true)"
        )
        op.execute(
            f"CREATE FUNCTION {LOOKUP}(p_hash text) "
            "RETURNS TABLE(transporteur_id uuid, id uuid) "
            "LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp "
            "AS $$ SELECT transporteur_id, id FROM bewijs_links "
            "WHERE token_hash = p_hash LIMIT 1 $$"
        )
        op.execute(f"REVOKE ALL ON FUNCTION {LOOKUP}(text) FROM PUBLIC")


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP FUNCTION IF EXISTS {LOOKUP}(text)")
        op.execute("DROP POLICY IF EXISTS owner_lookup ON bewijs_links")
        op.execute("DROP POLICY IF EXISTS carrier_isolation ON bewijs_links")
    with op.batch_alter_table("bewijs_links", schema=None) as batch_op:
        batch_op.drop_index("ix_bewijs_links_taak")
    op.drop_table("bewijs_links")
