"""Pay: the carrier's rule sets (cao_regelsets), corrections of recorded hours with the
driver's answer (uren_correcties), payroll exports and the weeks they carried, a driver's
contract hours and the carrier's payroll export columns; row-level security on the new tables

Revision ID: c0d1c0de0260
Revises: c0d1c0de0250
Create Date: 2026-11-27 12:00:00
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0260"
down_revision = "c0d1c0de0250"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
TABLES = ("cao_regelsets", "uren_correcties", "loon_exports", "loon_export_weken")


def upgrade():
    op.create_table(
        "cao_regelsets",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("geldig_vanaf", sa.Date(), nullable=False),
        sa.Column("regels", sa.JSON(), nullable=False),
        sa.Column("gemaakt_door", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f("fk_cao_regelsets_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_cao_regelsets")),
        sa.UniqueConstraint(
            "transporteur_id",
            "geldig_vanaf",
            name=op.f("uq_cao_regelsets_transporteur_id_geldig_vanaf"),
        ),
    )
    op.create_table(
        "loon_exports",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("van", sa.Date(), nullable=False),
        sa.Column("tot", sa.Date(), nullable=False),
        sa.Column("weken", sa.Integer(), nullable=False),
        sa.Column("opnieuw", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("kolommen", sa.JSON(), nullable=False),
        sa.Column("gemaakt_door", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f("fk_loon_exports_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_loon_exports")),
    )
    op.create_table(
        "loon_export_weken",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("export_id", sa.Uuid(), nullable=False),
        sa.Column("chauffeur_id", sa.Uuid(), nullable=False),
        sa.Column("jaar", sa.Integer(), nullable=False),
        sa.Column("week", sa.Integer(), nullable=False),
        sa.Column("cijfers", sa.JSON(), nullable=False),
        sa.CheckConstraint("week >= 1 AND week <= 53", name=op.f("ck_loon_export_weken_week")),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"],
            ["chauffeurs.transporteur_id", "chauffeurs.id"],
            name=op.f("fk_loon_export_weken_chauffeurs"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "export_id"],
            ["loon_exports.transporteur_id", "loon_exports.id"],
            name=op.f("fk_loon_export_weken_loon_exports"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"],
            ["transporteurs.id"],
            name=op.f("fk_loon_export_weken_transporteurs"),
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_loon_export_weken")),
    )
    with op.batch_alter_table("loon_export_weken", schema=None) as batch_op:
        batch_op.create_index(
            "ix_loon_export_weken_export", ["transporteur_id", "export_id"], unique=False
        )
        batch_op.create_index(
            "ix_loon_export_weken_week",
            ["transporteur_id", "chauffeur_id", "jaar", "week"],
            unique=False,
        )

    op.create_table(
        "uren_correcties",
        sa.Column("transporteur_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("chauffeur_id", sa.Uuid(), nullable=False),
        sa.Column("jaar", sa.Integer(), nullable=False),
        sa.Column("week", sa.Integer(), nullable=False),
        sa.Column("activiteit_id", sa.Uuid(), nullable=False),
        sa.Column("oud", sa.JSON(), nullable=False),
        sa.Column("nieuw", sa.JSON(), nullable=False),
        sa.Column("reden", sa.Text(), nullable=False),
        sa.Column("door", sa.String(length=254), nullable=False),
        sa.Column("gemaakt_op", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reactie", sa.String(length=20), nullable=True),
        sa.Column("reactie_tekst", sa.Text(), nullable=True),
        sa.Column("reactie_op", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "reactie IS NULL OR reactie IN ('akkoord', 'opmerking')",
            name=op.f("ck_uren_correcties_reactie"),
        ),
        sa.CheckConstraint("week >= 1 AND week <= 53", name=op.f("ck_uren_correcties_week")),
        sa.ForeignKeyConstraint(
            ["transporteur_id", "chauffeur_id"],
            ["chauffeurs.transporteur_id", "chauffeurs.id"],
            name=op.f("fk_uren_correcties_chauffeurs"),
        ),
        sa.ForeignKeyConstraint(
            ["transporteur_id"], ["transporteurs.id"], name=op.f("fk_uren_correcties_transporteurs")
        ),
        sa.PrimaryKeyConstraint("transporteur_id", "id", name=op.f("pk_uren_correcties")),
    )
    with op.batch_alter_table("uren_correcties", schema=None) as batch_op:
        batch_op.create_index(
            "ix_uren_correcties_week",
            ["transporteur_id", "chauffeur_id", "jaar", "week"],
            unique=False,
        )

    with op.batch_alter_table("chauffeurs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("contracturen", sa.Numeric(precision=4, scale=2), nullable=True)
        )
        batch_op.add_column(sa.Column("personeelsnummer", sa.String(length=30), nullable=True))
        batch_op.create_check_constraint("contracturen", "contracturen >= 0 AND contracturen <= 60")

    with op.batch_alter_table("transporteurs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("loon_kolommen", sa.JSON(), nullable=True))

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
    with op.batch_alter_table("transporteurs", schema=None) as batch_op:
        batch_op.drop_column("loon_kolommen")

    with op.batch_alter_table("chauffeurs", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_chauffeurs_contracturen"), type_="check")
        batch_op.drop_column("personeelsnummer")
        batch_op.drop_column("contracturen")

    with op.batch_alter_table("uren_correcties", schema=None) as batch_op:
        batch_op.drop_index("ix_uren_correcties_week")

    op.drop_table("uren_correcties")
    with op.batch_alter_table("loon_export_weken", schema=None) as batch_op:
        batch_op.drop_index("ix_loon_export_weken_week")
        batch_op.drop_index("ix_loon_export_weken_export")

    op.drop_table("loon_export_weken")
    op.drop_table("loon_exports")
    op.drop_table("cao_regelsets")
