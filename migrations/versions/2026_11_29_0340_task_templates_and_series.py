"""Task templates and recurring series

Revision ID: c0d1c0de0340
Revises: c0d1c0de0335
Create Date: 2026-11-29 01:00:00
"""

from __future__ import annotations

# revision identifiers, used by Alembic.
revision = "c0d1c0de0340"
down_revision = "c0d1c0de0335"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
