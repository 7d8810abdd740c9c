"""Placeholder (issue 29, part 8): tachograph days in recorded order

Revision ID: c0d1c0de0320
Revises: c0d1c0de0310
Create Date: 2026-11-28 12:00:00
"""

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

# revision identifiers, used by Alembic.
revision = "c0d1c0de0320"
down_revision = "c0d1c0de0310"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
