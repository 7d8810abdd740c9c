"""Billing lines carry their price: the tariff that held, the net amount, the VAT rate and
amount, or why there is no price (a code)

Revision ID: c0d1c0de0240
Revises: c0d1c0de0230
Create Date: 2026-11-26 11:00:00

Lines made before are priced when their work is reported again or their task is completed
again; until then they show "nog niet geprijsd".
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0240"
down_revision = "c0d1c0de0230"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("facturatieregels", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tarief_id", sa.Uuid(), nullable=True))
        batch_op.add_column(sa.Column("bedrag", sa.Numeric(precision=12, scale=2), nullable=True))
        batch_op.add_column(
            sa.Column("btw_procent", sa.Numeric(precision=5, scale=2), nullable=True)
        )
        batch_op.add_column(
            sa.Column("btw_bedrag", sa.Numeric(precision=12, scale=2), nullable=True)
        )
        batch_op.add_column(sa.Column("prijs_reden", sa.String(length=30), nullable=True))


def downgrade():
    with op.batch_alter_table("facturatieregels", schema=None) as batch_op:
        batch_op.drop_column("prijs_reden")
        batch_op.drop_column("btw_bedrag")
        batch_op.drop_column("btw_procent")
        batch_op.drop_column("bedrag")
        batch_op.drop_column("tarief_id")
