"""Placeholder (issue 29, parts 4-5): issued invoices and credit notes

Revision ID: c0d1c0de0300
Revises: c0d1c0de0290
Create Date: 2026-11-28 10:00:00
"""

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

# revision identifiers, used by Alembic.
revision = "c0d1c0de0300"
down_revision = "c0d1c0de0290"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
