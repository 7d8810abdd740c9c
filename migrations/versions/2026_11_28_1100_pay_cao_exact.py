"""Placeholder (issue 29, parts 1-3): pay rules exact to the CAO

Revision ID: c0d1c0de0310
Revises: c0d1c0de0300
Create Date: 2026-11-28 11:00:00
"""

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

# revision identifiers, used by Alembic.
revision = "c0d1c0de0310"
down_revision = "c0d1c0de0300"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
