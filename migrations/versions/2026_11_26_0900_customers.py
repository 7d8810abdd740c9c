"""Customers (klanten) and their loading and unloading places (klant_locaties), with
row-level security; API keys' scopes widened for the customers' two scopes

Revision ID: c0d1c0de0220
Revises: c0d1c0de0210
Create Date: 2026-11-26 09:00:00

A customer's debtor number is unique within its carrier when given (NULLs are distinct on
both databases). A place's coordinates are both or neither and in range. A key made with the
default scopes holds every scope, now longer than the 200 characters `api_keys.scopes` held.
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0220"
down_revision = "c0d1c0de0210"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
TABLES = ("klanten", "klant_locaties")


def upgrade():
    op.create_table(
        "klanten",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("naam", sa.String(length=200), nullable=False),
        sa.Column("debiteurnummer", sa.String(length=50), nullable=True),
        sa.Column("btw_nummer", sa.String(length=20), nullable=True),
        sa.Column("factuur_email", sa.String(length=254), nullable=True),
        sa.Column("opmerkingen", sa.Text(), nullable=True),
        sa.Column("actief", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f("fk_klanten_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_klanten")),
        sa.UniqueConstraint(
            "transporteur_id",
            "debiteurnummer",
            name=op.f("uq_klanten_transporteur_id_debiteurnummer"),
        ),
    )
    with op.batch_alter_table("klanten", schema=None) as batch_op:
        batch_op.create_index("ix_klanten_naam", ["transporteur_id", "naam"], unique=False)

    op.create_table(
        "klant_locaties",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("klant_id", sa.Uuid(), nullable=False),
        sa.Column("naam", sa.String(length=200), nullable=False),
        sa.Column("soort", sa.String(length=10), server_default="beide", nullable=False),
        sa.Column("adres", sa.String(length=200), nullable=True),
        sa.Column("postcode", sa.String(length=16), nullable=True),
        sa.Column("stad", sa.String(length=100), nullable=True),
        sa.Column("land", sa.String(length=2), server_default="NL", nullable=False),
        sa.Column("locatie_lat", sa.Float(), nullable=True),
        sa.Column("locatie_lng", sa.Float(), nullable=True),
        sa.Column("openingstijden", sa.String(length=500), nullable=True),
        sa.Column("contactpersoon", sa.String(length=200), nullable=True),
        sa.Column("telefoon", sa.String(length=50), nullable=True),
        sa.Column("opmerkingen", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "soort IN ('laden', 'lossen', 'beide')", name=op.f("ck_klant_locaties_soort")
        ),
        sa.CheckConstraint(
            "(locatie_lat IS NULL) = (locatie_lng IS NULL)",
            name=op.f("ck_klant_locaties_locatie_beide_of_geen"),
        ),
        sa.CheckConstraint(
            "locatie_lat IS NULL OR (locatie_lat BETWEEN -90 AND 90 "
            "AND locatie_lng BETWEEN -180 AND 180)",
            name=op.f("ck_klant_locaties_locatie_bereik"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "klant_id"],
            ["klanten.transporteur_id", "klanten.id"],
            name=op.f("fk_klant_locaties_klanten"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f("fk_klant_locaties_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_klant_locaties")),
    )
    with op.batch_alter_table("klant_locaties", schema=None) as batch_op:
        batch_op.create_index(
            "ix_klant_locaties_klant", ["transporteur_id", "klant_id"], unique=False
        )

    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.alter_column(
            "scopes",
            existing_type=sa.VARCHAR(length=200),
            type_=sa.String(length=500),
            existing_nullable=False,
        )

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
    # Keys holding the customers' scopes are longer than 200 characters: drop those scopes.
    op.execute(
        "UPDATE api_keys SET scopes = TRIM(REPLACE(REPLACE(scopes, ' customers:write', ''), "
        "' customers:read', ''))"
    )
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.alter_column(
            "scopes",
            existing_type=sa.String(length=500),
            type_=sa.VARCHAR(length=200),
            existing_nullable=False,
        )

    with op.batch_alter_table("klant_locaties", schema=None) as batch_op:
        batch_op.drop_index("ix_klant_locaties_klant")

    op.drop_table("klant_locaties")
    with op.batch_alter_table("klanten", schema=None) as batch_op:
        batch_op.drop_index("ix_klanten_naam")

    op.drop_table("klanten")
