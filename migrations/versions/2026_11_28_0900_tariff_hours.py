"""Tariffs per hour round the recorded time, and every tariff names its VAT category;
billing lines carry the hours billed and the VAT category they are priced under

Revision ID: c0d1c0de0290
Revises: c0d1c0de0280
Create Date: 2026-11-28 09:00:00

Tariffs gain `afronding_minuten` (1, 5, 6, 10, 15, 30 or 60; existing tariffs 1: billed to
the minute, as before) and `minimum_minuten` (0), and the EN 16931 VAT category `btw_categorie`
with its exemption reason. Existing tariffs at a rate above 0 % become S (standard rated);
those at 0 % become Z (zero rated), the one category at 0 % that needs no reason: a planner
who meant reverse charge (AE), exempt (E) or not subject (O) changes it and names the reason.

Billing lines gain `btw_categorie` and `btw_vrijstellingsreden` (filled as a line is priced:
priced lines get their tariff's category now, S when priced by hand above 0 %, Z at 0 %), and
for hourly lines the recorded minutes, their source and the billed hours (filled when the
line is priced again). Activities get an index on their task, which an hourly line reads.
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0290"
down_revision = "c0d1c0de0280"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("tarieven", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("btw_categorie", sa.String(length=2), server_default="S", nullable=False)
        )
        batch_op.add_column(
            sa.Column("btw_vrijstellingsreden", sa.String(length=300), nullable=True)
        )
        batch_op.add_column(
            sa.Column("afronding_minuten", sa.Integer(), server_default="1", nullable=False)
        )
        batch_op.add_column(
            sa.Column("minimum_minuten", sa.Integer(), server_default="0", nullable=False)
        )
    op.execute("UPDATE tarieven SET btw_categorie = 'Z' WHERE btw_procent = 0")
    with op.batch_alter_table("tarieven", schema=None) as batch_op:
        batch_op.create_check_constraint(
            "afronding", "afronding_minuten IN (1, 5, 6, 10, 15, 30, 60)"
        )
        batch_op.create_check_constraint(
            "minimum_minuten", "minimum_minuten >= 0 AND minimum_minuten <= 1440"
        )
        batch_op.create_check_constraint(
            "btw_categorie",
            "(btw_categorie = 'S' AND btw_procent > 0) "
            "OR (btw_categorie IN ('Z', 'E', 'AE', 'O') AND btw_procent = 0)",
        )
        batch_op.create_check_constraint(
            "btw_vrijstellingsreden",
            "(btw_categorie = 'S' AND btw_vrijstellingsreden IS NULL) OR btw_categorie = 'Z' "
            "OR (btw_categorie IN ('E', 'AE', 'O') AND btw_vrijstellingsreden IS NOT NULL)",
        )

    with op.batch_alter_table("facturatieregels", schema=None) as batch_op:
        batch_op.add_column(sa.Column("btw_categorie", sa.String(length=2), nullable=True))
        batch_op.add_column(
            sa.Column("btw_vrijstellingsreden", sa.String(length=300), nullable=True)
        )
        batch_op.add_column(sa.Column("gemeten_minuten", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("minuten_bron", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("uren", sa.Numeric(precision=10, scale=4), nullable=True))
        batch_op.create_check_constraint(
            "btw_categorie", "btw_categorie IS NULL OR btw_categorie IN ('S', 'Z', 'E', 'AE', 'O')"
        )
        batch_op.create_check_constraint("uren", "uren IS NULL OR uren >= 0")
    # Lines priced so far: the category their rate stands for (every tariff was S or Z).
    op.execute(
        "UPDATE facturatieregels SET btw_categorie = CASE WHEN btw_procent > 0 THEN 'S' "
        "ELSE 'Z' END WHERE bedrag IS NOT NULL AND btw_procent IS NOT NULL"
    )

    with op.batch_alter_table("activiteiten", schema=None) as batch_op:
        batch_op.create_index(
            "ix_activiteiten_taak",
            ["transporteur_id", "taak_id"],
            unique=False,
            postgresql_where=sa.text("taak_id IS NOT NULL"),
            sqlite_where=sa.text("taak_id IS NOT NULL"),
        )


def downgrade():
    with op.batch_alter_table("activiteiten", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_activiteiten_taak",
            postgresql_where=sa.text("taak_id IS NOT NULL"),
            sqlite_where=sa.text("taak_id IS NOT NULL"),
        )
    with op.batch_alter_table("facturatieregels", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_facturatieregels_uren"), type_="check")
        batch_op.drop_constraint(op.f("ck_facturatieregels_btw_categorie"), type_="check")
        batch_op.drop_column("uren")
        batch_op.drop_column("minuten_bron")
        batch_op.drop_column("gemeten_minuten")
        batch_op.drop_column("btw_vrijstellingsreden")
        batch_op.drop_column("btw_categorie")
    with op.batch_alter_table("tarieven", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_tarieven_btw_vrijstellingsreden"), type_="check")
        batch_op.drop_constraint(op.f("ck_tarieven_btw_categorie"), type_="check")
        batch_op.drop_constraint(op.f("ck_tarieven_minimum_minuten"), type_="check")
        batch_op.drop_constraint(op.f("ck_tarieven_afronding"), type_="check")
        batch_op.drop_column("minimum_minuten")
        batch_op.drop_column("afronding_minuten")
        batch_op.drop_column("btw_vrijstellingsreden")
        batch_op.drop_column("btw_categorie")
