"""Planning checks: a task's expected duration (duur_min) and what the conflict checks need

`duur_min` is nullable (empty: the activity type's default) and bounded to one day. Two
indexes serve the checks: a vehicle's tasks by time, and the carrier's tasks by VDM number.

Revision ID: c0d1c0de0110
Revises: c0d1c0de0100
Create Date: 2026-11-24 18:20:00
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c0d1c0de0110'
down_revision = 'c0d1c0de0100'
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"


def upgrade():
    with op.batch_alter_table('taken', schema=None) as batch_op:
        batch_op.add_column(sa.Column('duur_min', sa.Integer(), nullable=True))
        batch_op.create_check_constraint(
            op.f('ck_taken_duur_min'), 'duur_min IS NULL OR (duur_min > 0 AND duur_min <= 1440)'
        )
        batch_op.create_index(
            'ix_taken_voertuig_gepland',
            ['transporteur_id', 'vehicle_id', 'gepland_op'],
            unique=False,
        )
        batch_op.create_index('ix_taken_vdm', ['transporteur_id', 'vdm_nummer'], unique=False)


def downgrade():
    with op.batch_alter_table('taken', schema=None) as batch_op:
        batch_op.drop_index('ix_taken_vdm')
        batch_op.drop_index('ix_taken_voertuig_gepland')
        batch_op.drop_constraint(op.f('ck_taken_duur_min'), type_='check')
        batch_op.drop_column('duur_min')
