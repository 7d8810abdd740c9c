"""Idempotency: a claim is a lease that ends, so a write whose worker died can be retried

Revision ID: c0d1c0de0170
Revises: c0d1c0de0160
Create Date: 2026-11-26 12:40:00

A write with an Idempotency-Key commits its claim ("running") before it acts. When the
worker died in between (a timeout, a restart), the claim stayed "running" for the record's
seven days and every retry was refused with 409 while the change never happened. A claim
now holds until `lease_until`; after that a retry takes it over and runs. Claims of before
this migration have none: they count as ended.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c0d1c0de0170'
down_revision = 'c0d1c0de0160'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('idempotency_records', schema=None) as batch_op:
        batch_op.add_column(sa.Column('lease_until', sa.DateTime(timezone=True), nullable=True))


def downgrade():
    with op.batch_alter_table('idempotency_records', schema=None) as batch_op:
        batch_op.drop_column('lease_until')
