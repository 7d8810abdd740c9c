"""Vehicles and vehicle sessions (issue 5)

Revision ID: b5d1c0de0310
Revises: b5d1c0de0300
Create Date: 2026-11-22 03:00:00

"""
from alembic import op  # noqa: F401
import sqlalchemy as sa  # noqa: F401


# revision identifiers, used by Alembic.
revision = 'b5d1c0de0310'
down_revision = 'b5d1c0de0300'
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
