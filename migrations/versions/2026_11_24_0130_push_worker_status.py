"""Messages: what the portal needs to tell whether the push worker runs

Revision ID: c0d1c0de0130
Revises: c0d1c0de0120
Create Date: 2026-11-24 18:20:00

push_worker_status holds when the outbox worker last polled (a heartbeat). It is not a
tenant table: the worker serves every carrier and the row names none, so it carries no
transporteur_id and no row-level security; the app role reads and writes it (grant-app-role
grants every table).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c0d1c0de0130'
down_revision = 'c0d1c0de0120'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('push_worker_status',
    sa.Column('naam', sa.String(length=40), nullable=False),
    sa.Column('laatst_actief_op', sa.DateTime(timezone=True), nullable=False),
    sa.Column('interval_seconden', sa.Float(), nullable=True),
    sa.PrimaryKeyConstraint('naam', name=op.f('pk_push_worker_status'))
    )


def downgrade():
    op.drop_table('push_worker_status')
