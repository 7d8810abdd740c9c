"""Planning proposals made by the solver

Revision ID: c0d1c0de0350
Revises: c0d1c0de0345
Create Date: 2026-11-29 01:00:00
"""

from __future__ import annotations

# revision identifiers, used by Alembic.
revision = "c0d1c0de0350"
down_revision = "c0d1c0de0345"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
