"""Webhooks: endpoints, the events outbox, deliveries and their attempts, with row-level
security, and the owner's look-up of the carriers with deliveries due

Revision ID: c0d1c0de0200
Revises: c0d1c0de0190
Create Date: 2026-11-26 07:00:00

Events are written in the transaction of the change they tell; the worker (`flask
deliver-webhooks`) first asks which carriers have deliveries due through a SECURITY DEFINER
function (as for messages, migration c0d1c0de0180), then acts in each carrier's scope.
Run `flask grant-app-role` again after this migration (EXECUTE on the new function).
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0200"
down_revision = "c0d1c0de0190"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
TABLES = ("webhook_endpoints", "webhook_gebeurtenissen", "webhook_leveringen", "webhook_pogingen")
DUE = "rijplan_webhooks_te_bezorgen"


def upgrade():
    op.create_table(
        "webhook_endpoints",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("url", sa.String(length=1024), nullable=False),
        sa.Column("omschrijving", sa.String(length=200), nullable=False),
        sa.Column("gebeurtenissen", sa.String(length=500), nullable=False),
        sa.Column("actief", sa.Boolean(), nullable=False),
        sa.Column("pauze_reden", sa.String(length=1000), nullable=True),
        sa.Column("gepauzeerd_op", sa.DateTime(timezone=True), nullable=True),
        sa.Column("geheim", sa.String(length=100), nullable=False),
        sa.Column("fouten_sinds", sa.DateTime(timezone=True), nullable=True),
        sa.Column("laatste_succes_op", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["transporteur_id"],
            ["transporteurs.id"],
            name=op.f("fk_webhook_endpoints_transporteurs"),
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_webhook_endpoints")),
    )
    with op.batch_alter_table("webhook_endpoints", schema=None) as batch_op:
        batch_op.create_index(
            "ix_webhook_endpoints_created", ["transporteur_id", "created_at"], unique=False
        )

    op.create_table(
        "webhook_gebeurtenissen",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("volgorde_sleutel", sa.Uuid(), nullable=True),
        sa.Column("volgnummer", sa.BigInteger(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["transporteur_id"],
            ["transporteurs.id"],
            name=op.f("fk_webhook_gebeurtenissen_transporteurs"),
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_webhook_gebeurtenissen")),
    )
    with op.batch_alter_table("webhook_gebeurtenissen", schema=None) as batch_op:
        batch_op.create_index(
            "ix_webhook_gebeurtenissen_created", ["transporteur_id", "created_at"], unique=False
        )

    op.create_table(
        "webhook_leveringen",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("endpoint_id", sa.Uuid(), nullable=False),
        sa.Column("gebeurtenis_id", sa.Uuid(), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("volgorde_sleutel", sa.Uuid(), nullable=True),
        sa.Column("volgnummer", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("pogingen", sa.Integer(), nullable=False),
        sa.Column("volgende_poging_op", sa.DateTime(timezone=True), nullable=True),
        sa.Column("claim_id", sa.Uuid(), nullable=True),
        sa.Column("verzonden_op", sa.DateTime(timezone=True), nullable=True),
        sa.Column("fout", sa.String(length=1000), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('queued', 'sent', 'failed')", name=op.f("ck_webhook_leveringen_status")
        ),
        sa.CheckConstraint("pogingen >= 0", name=op.f("ck_webhook_leveringen_pogingen")),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "endpoint_id"],
            ["webhook_endpoints.transporteur_id", "webhook_endpoints.id"],
            name=op.f("fk_webhook_leveringen_webhook_endpoints"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "gebeurtenis_id"],
            ["webhook_gebeurtenissen.transporteur_id", "webhook_gebeurtenissen.id"],
            name=op.f("fk_webhook_leveringen_webhook_gebeurtenissen"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"],
            ["transporteurs.id"],
            name=op.f("fk_webhook_leveringen_transporteurs"),
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_webhook_leveringen")),
    )
    with op.batch_alter_table("webhook_leveringen", schema=None) as batch_op:
        batch_op.create_index(
            "ix_webhook_leveringen_due",
            ["volgende_poging_op"],
            unique=False,
            postgresql_where=sa.text("status = 'queued'"),
            sqlite_where=sa.text("status = 'queued'"),
        )
        batch_op.create_index(
            "ix_webhook_leveringen_endpoint",
            ["transporteur_id", "endpoint_id", "created_at"],
            unique=False,
        )
        batch_op.create_index(
            "ix_webhook_leveringen_volgorde",
            ["transporteur_id", "endpoint_id", "volgorde_sleutel", "volgnummer"],
            unique=False,
            postgresql_where=sa.text("status = 'queued'"),
            sqlite_where=sa.text("status = 'queued'"),
        )

    op.create_table(
        "webhook_pogingen",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("levering_id", sa.Uuid(), nullable=False),
        sa.Column("poging", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resultaat", sa.String(length=16), nullable=False),
        sa.Column("http_status", sa.Integer(), nullable=True),
        sa.Column("duur_ms", sa.Integer(), nullable=False),
        sa.Column("antwoord", sa.Text(), nullable=True),
        sa.Column("fout", sa.String(length=1000), nullable=True),
        sa.CheckConstraint(
            "resultaat IN ('sent', 'retry', 'failed')", name=op.f("ck_webhook_pogingen_resultaat")
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "levering_id"],
            ["webhook_leveringen.transporteur_id", "webhook_leveringen.id"],
            name=op.f("fk_webhook_pogingen_webhook_leveringen"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"],
            ["transporteurs.id"],
            name=op.f("fk_webhook_pogingen_transporteurs"),
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_webhook_pogingen")),
    )
    with op.batch_alter_table("webhook_pogingen", schema=None) as batch_op:
        batch_op.create_index(
            "ix_webhook_pogingen_levering",
            ["transporteur_id", "levering_id", "poging"],
            unique=False,
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
            "CREATE POLICY owner_lookup ON webhook_leveringen FOR SELECT TO CURRENT_USER "
            "USING (true)"
        )
        op.execute(
            f"CREATE FUNCTION {DUE}(p_now timestamptz, p_limit integer) "
            "RETURNS TABLE(transporteur_id uuid) "
            "LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp "
            "AS $$ SELECT transporteur_id FROM webhook_leveringen WHERE status = 'queued' "
            "AND volgende_poging_op <= p_now GROUP BY transporteur_id "
            "ORDER BY min(volgende_poging_op) LIMIT p_limit $$"
        )
        op.execute(f"REVOKE ALL ON FUNCTION {DUE}(timestamptz, integer) FROM PUBLIC")


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP FUNCTION IF EXISTS {DUE}(timestamptz, integer)")
        op.execute("DROP POLICY IF EXISTS owner_lookup ON webhook_leveringen")
        for table in TABLES:
            op.execute(f"DROP POLICY IF EXISTS carrier_isolation ON {table}")
    with op.batch_alter_table("webhook_pogingen", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_pogingen_levering")

    op.drop_table("webhook_pogingen")
    with op.batch_alter_table("webhook_leveringen", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_webhook_leveringen_volgorde",
            postgresql_where=sa.text("status = 'queued'"),
            sqlite_where=sa.text("status = 'queued'"),
        )
        batch_op.drop_index("ix_webhook_leveringen_endpoint")
        batch_op.drop_index(
            "ix_webhook_leveringen_due",
            postgresql_where=sa.text("status = 'queued'"),
            sqlite_where=sa.text("status = 'queued'"),
        )

    op.drop_table("webhook_leveringen")
    with op.batch_alter_table("webhook_gebeurtenissen", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_gebeurtenissen_created")

    op.drop_table("webhook_gebeurtenissen")
    with op.batch_alter_table("webhook_endpoints", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_endpoints_created")

    op.drop_table("webhook_endpoints")
