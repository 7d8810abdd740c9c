"""Tasks: partial indexes for the driver's poll (open tasks, tasks completed)

Revision ID: c0d1c0de0150
Revises: c0d1c0de0140
Create Date: 2026-11-26 08:40:00

The poll asks for a driver's open tasks and those completed today. With only the index on
(carrier, driver, gepland_op) the database read every task the driver ever had and filtered
them; these two partial indexes let it read the rows it returns (a BitmapOr of both).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c0d1c0de0150'
down_revision = 'c0d1c0de0140'
branch_labels = None
depends_on = None

OPEN_WHERE = "gearchiveerd_op IS NULL AND status IN ('gepland', 'ontvangen', 'gestart')"
DONE_WHERE = "gearchiveerd_op IS NULL AND status = 'afgerond'"


def upgrade():
    with op.batch_alter_table('taken', schema=None) as batch_op:
        batch_op.create_index('ix_taken_chauffeur_open', ['transporteur_id', 'chauffeur_id', 'gepland_op'], unique=False, postgresql_where=sa.text(OPEN_WHERE), sqlite_where=sa.text(OPEN_WHERE))
        batch_op.create_index('ix_taken_chauffeur_afgerond', ['transporteur_id', 'chauffeur_id', 'afgerond_op'], unique=False, postgresql_where=sa.text(DONE_WHERE), sqlite_where=sa.text(DONE_WHERE))


def downgrade():
    with op.batch_alter_table('taken', schema=None) as batch_op:
        batch_op.drop_index('ix_taken_chauffeur_afgerond')
        batch_op.drop_index('ix_taken_chauffeur_open')
