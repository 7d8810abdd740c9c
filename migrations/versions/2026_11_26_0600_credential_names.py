"""Credentials' moments named as every other moment: verloopt_op, ingetrokken_op, gebruikt_op

Revision ID: c0d1c0de0190
Revises: c0d1c0de0180
Create Date: 2026-11-26 19:30:00

The refresh tokens, activation codes and idempotency records said `expires_at`, `revoked_at`,
`rotated_at` and `used_at` where the rest of the schema says `verloopt_op` and
`ingetrokken_op` (docs/glossary.md). The columns never leave the server; only their names
change.
"""
from alembic import op


# revision identifiers, used by Alembic.
revision = 'c0d1c0de0190'
down_revision = 'c0d1c0de0180'
branch_labels = None
depends_on = None

RENAMES = [
    ("refresh_tokens", "expires_at", "verloopt_op"),
    ("refresh_tokens", "rotated_at", "geroteerd_op"),
    ("refresh_tokens", "revoked_at", "ingetrokken_op"),
    ("activation_codes", "expires_at", "verloopt_op"),
    ("activation_codes", "used_at", "gebruikt_op"),
    ("idempotency_records", "expires_at", "verloopt_op"),
]


def upgrade():
    for table, old, new in RENAMES:
        op.execute(f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")


def downgrade():
    for table, old, new in reversed(RENAMES):
        op.execute(f"ALTER TABLE {table} RENAME COLUMN {new} TO {old}")
