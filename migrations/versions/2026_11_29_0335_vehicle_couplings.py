"""Couplings of a towed vehicle to a motorised one

Revision ID: c0d1c0de0335
Revises: c0d1c0de0330
Create Date: 2026-11-29 01:00:00
"""

from __future__ import annotations

# revision identifiers, used by Alembic.
revision = "c0d1c0de0335"
down_revision = "c0d1c0de0330"
branch_labels = None
depends_on = None


def upgrade():
    pass


def downgrade():
    pass
