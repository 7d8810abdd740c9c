"""Billing follows completion: what a billing line needs when every completion makes one

Every completion now makes its billing line, with the planned quantity until the driver
reports the actual work. `gemeld_op` says when that report came (POST afronding); empty, the
line holds the planned quantity, and the billing page says so. Existing lines were all made
by such a report, so they take their creation time.

Revision ID: c0d1c0de0120
Revises: c0d1c0de0110
Create Date: 2026-11-24 18:20:00
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c0d1c0de0120'
down_revision = 'c0d1c0de0110'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('facturatieregels', schema=None) as batch_op:
        batch_op.add_column(sa.Column('gemeld_op', sa.DateTime(timezone=True), nullable=True))
    # The owner runs migrations; FORCE ROW LEVEL SECURITY would hide every row from it, so
    # the policy is lifted for this one statement (inside the migration's transaction).
    bind = op.get_bind()
    if bind.dialect.name == 'postgresql':
        op.execute('ALTER TABLE facturatieregels NO FORCE ROW LEVEL SECURITY')
    op.execute('UPDATE facturatieregels SET gemeld_op = created_at')
    if bind.dialect.name == 'postgresql':
        op.execute('ALTER TABLE facturatieregels FORCE ROW LEVEL SECURITY')


def downgrade():
    with op.batch_alter_table('facturatieregels', schema=None) as batch_op:
        batch_op.drop_column('gemeld_op')
