"""Placeholder (issue 29, part 7): tariffs priced from recorded time

Revision ID: c0d1c0de0290
Revises: c0d1c0de0280
Create Date: 2026-11-28 09:00:00
"""

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

# revision identifiers, used by Alembic.
revision = "c0d1c0de0290"
down_revision = "c0d1c0de0280"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
