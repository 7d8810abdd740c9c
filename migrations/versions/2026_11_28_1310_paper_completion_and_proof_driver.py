"""A task completed on a paper delivery note; how the proof of delivery names the driver

Revision ID: c0d1c0de0310
Revises: c0d1c0de0300
Create Date: 2026-11-28 13:10:00

- `taken` gain `papieren_bon_id` (the scan of the paper delivery note a planner completed the
  task with, one of the carrier's files) and `papieren_bon_reden` (why the driver could not
  fill it in); both or neither. Reopening the task clears them.
- `transporteurs` gain `bewijs_chauffeur`: how a shipper's proof of delivery names who
  delivered, by first name (the default) or by initials; never the full name.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0310"
down_revision = "c0d1c0de0300"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("taken", schema=None) as batch_op:
        batch_op.add_column(sa.Column("papieren_bon_id", sa.Uuid(), nullable=True))
        batch_op.add_column(sa.Column("papieren_bon_reden", sa.Text(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_taken_bestanden"),
            "bestanden",
            ["transporteur_id", "papieren_bon_id"],
            ["transporteur_id", "id"],
        )
        batch_op.create_check_constraint(
            "papieren_bon", "(papieren_bon_id IS NULL) = (papieren_bon_reden IS NULL)"
        )
    with op.batch_alter_table("transporteurs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "bewijs_chauffeur",
                sa.String(length=12),
                server_default="voornaam",
                nullable=False,
            )
        )
        batch_op.create_check_constraint(
            "bewijs_chauffeur", "bewijs_chauffeur IN ('voornaam', 'initialen')"
        )


def downgrade():
    with op.batch_alter_table("transporteurs", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_transporteurs_bewijs_chauffeur"), type_="check")
        batch_op.drop_column("bewijs_chauffeur")
    with op.batch_alter_table("taken", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_taken_papieren_bon"), type_="check")
        batch_op.drop_constraint(batch_op.f("fk_taken_bestanden"), type_="foreignkey")
        batch_op.drop_column("papieren_bon_reden")
        batch_op.drop_column("papieren_bon_id")
