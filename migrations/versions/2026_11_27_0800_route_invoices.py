"""Tasks name their customer and a loading and an unloading place; billing lines their
customer and whether they were priced by hand; export batches a customer; invoices
(facturen) per customer and batch, with row-level security; the carrier's invoicing details

Revision ID: c0d1c0de0250
Revises: c0d1c0de0240
Create Date: 2026-11-27 08:00:00

Each place on a task is a copy of the address as planned (from the customer's place when
one is chosen): a place changed later leaves planned and billed work as it was.
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0250"
down_revision = "c0d1c0de0240"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"


def upgrade():
    op.create_table(
        "facturen",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("export_id", sa.Uuid(), nullable=False),
        sa.Column("klant_id", sa.Uuid(), nullable=False),
        sa.Column("nummer", sa.String(length=20), nullable=False),
        sa.Column("datum", sa.Date(), nullable=False),
        sa.Column("vervaldatum", sa.Date(), nullable=False),
        sa.Column("regels", sa.Integer(), nullable=False),
        sa.Column("bedrag", sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column("btw_bedrag", sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "export_id"],
            ["facturatie_exports.transporteur_id", "facturatie_exports.id"],
            name=op.f("fk_facturen_facturatie_exports"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "klant_id"],
            ["klanten.transporteur_id", "klanten.id"],
            name=op.f("fk_facturen_klanten"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f("fk_facturen_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_facturen")),
        sa.UniqueConstraint(
            "transporteur_id",
            "export_id",
            "klant_id",
            name=op.f("uq_facturen_transporteur_id_export_id_klant_id"),
        ),
        sa.UniqueConstraint(
            "transporteur_id", "nummer", name=op.f("uq_facturen_transporteur_id_nummer")
        ),
    )
    with op.batch_alter_table("facturatie_exports", schema=None) as batch_op:
        batch_op.add_column(sa.Column("klant_id", sa.Uuid(), nullable=True))

    with op.batch_alter_table("facturatieregels", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("handmatig", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.add_column(sa.Column("klant_id", sa.Uuid(), nullable=True))
        batch_op.create_index(
            "ix_facturatieregels_klant",
            ["transporteur_id", "klant_id", "afgerond_op"],
            unique=False,
        )

    with op.batch_alter_table("taken", schema=None) as batch_op:
        batch_op.add_column(sa.Column("klant_id", sa.Uuid(), nullable=True))
        batch_op.add_column(sa.Column("laadlocatie_id", sa.Uuid(), nullable=True))
        batch_op.add_column(sa.Column("laad_naam", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("laad_adres", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("laad_postcode", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("laad_stad", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("laad_land", sa.String(length=2), nullable=True))
        batch_op.add_column(sa.Column("laad_lat", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("laad_lng", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("loslocatie_id", sa.Uuid(), nullable=True))
        batch_op.add_column(sa.Column("los_naam", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("los_adres", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("los_postcode", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("los_stad", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("los_land", sa.String(length=2), nullable=True))
        batch_op.add_column(sa.Column("los_lat", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("los_lng", sa.Float(), nullable=True))
        batch_op.create_index(
            "ix_taken_klant", ["transporteur_id", "klant_id", "gepland_op"], unique=False
        )
        batch_op.create_index(
            "ix_taken_laadlocatie", ["transporteur_id", "laadlocatie_id"], unique=False
        )
        batch_op.create_index(
            "ix_taken_loslocatie", ["transporteur_id", "loslocatie_id"], unique=False
        )
        batch_op.create_foreign_key(
            "fk_taken_laadlocatie",
            "klant_locaties",
            ["transporteur_id", "laadlocatie_id"],
            ["transporteur_id", "id"],
        )
        batch_op.create_foreign_key(
            "fk_taken_loslocatie",
            "klant_locaties",
            ["transporteur_id", "loslocatie_id"],
            ["transporteur_id", "id"],
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_taken_klanten"),
            "klanten",
            ["transporteur_id", "klant_id"],
            ["transporteur_id", "id"],
        )
        batch_op.create_check_constraint("laad_locatie", "(laad_lat IS NULL) = (laad_lng IS NULL)")
        batch_op.create_check_constraint("los_locatie", "(los_lat IS NULL) = (los_lng IS NULL)")

    with op.batch_alter_table("transporteurs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("btw_nummer", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("kvk_nummer", sa.String(length=8), nullable=True))
        batch_op.add_column(sa.Column("iban", sa.String(length=34), nullable=True))
        batch_op.add_column(sa.Column("factuur_email", sa.String(length=254), nullable=True))
        batch_op.add_column(
            sa.Column("betaaltermijn_dagen", sa.Integer(), server_default="30", nullable=False)
        )

    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE facturen ENABLE ROW LEVEL SECURITY")
        op.execute("ALTER TABLE facturen FORCE ROW LEVEL SECURITY")
        op.execute(
            "CREATE POLICY carrier_isolation ON facturen "
            f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
        )


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP POLICY IF EXISTS carrier_isolation ON facturen")
    with op.batch_alter_table("transporteurs", schema=None) as batch_op:
        batch_op.drop_column("betaaltermijn_dagen")
        batch_op.drop_column("factuur_email")
        batch_op.drop_column("iban")
        batch_op.drop_column("kvk_nummer")
        batch_op.drop_column("btw_nummer")

    with op.batch_alter_table("taken", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_taken_los_locatie"), type_="check")
        batch_op.drop_constraint(batch_op.f("ck_taken_laad_locatie"), type_="check")
        batch_op.drop_constraint(batch_op.f("fk_taken_klanten"), type_="foreignkey")
        batch_op.drop_constraint("fk_taken_loslocatie", type_="foreignkey")
        batch_op.drop_constraint("fk_taken_laadlocatie", type_="foreignkey")
        batch_op.drop_index("ix_taken_loslocatie")
        batch_op.drop_index("ix_taken_laadlocatie")
        batch_op.drop_index("ix_taken_klant")
        batch_op.drop_column("los_lng")
        batch_op.drop_column("los_lat")
        batch_op.drop_column("los_land")
        batch_op.drop_column("los_stad")
        batch_op.drop_column("los_postcode")
        batch_op.drop_column("los_adres")
        batch_op.drop_column("los_naam")
        batch_op.drop_column("loslocatie_id")
        batch_op.drop_column("laad_lng")
        batch_op.drop_column("laad_lat")
        batch_op.drop_column("laad_land")
        batch_op.drop_column("laad_stad")
        batch_op.drop_column("laad_postcode")
        batch_op.drop_column("laad_adres")
        batch_op.drop_column("laad_naam")
        batch_op.drop_column("laadlocatie_id")
        batch_op.drop_column("klant_id")

    with op.batch_alter_table("facturatieregels", schema=None) as batch_op:
        batch_op.drop_index("ix_facturatieregels_klant")
        batch_op.drop_column("klant_id")
        batch_op.drop_column("handmatig")

    with op.batch_alter_table("facturatie_exports", schema=None) as batch_op:
        batch_op.drop_column("klant_id")

    op.drop_table("facturen")
