"""Operations: audit entries carry the request id that made them, and the owner's functions
that count the outboxes' backlog across carriers for /metrics

Revision ID: c0d1c0de0270
Revises: c0d1c0de0260
Create Date: 2026-11-27 13:00:00

The counts are aggregates only (how many messages and webhook deliveries wait, how many are
due): the app role still reads no other carrier's row. Run `flask grant-app-role` again after
this migration (EXECUTE on the new functions, SELECT on alembic_version for /readyz).
"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0270"
down_revision = "c0d1c0de0260"
branch_labels = None
depends_on = None

FUNCTIONS = (
    ("rijplan_wachtrij_berichten", "berichten"),
    ("rijplan_wachtrij_webhooks", "webhook_leveringen"),
)


def upgrade():
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.add_column(sa.Column("request_id", sa.String(length=64), nullable=True))
    if op.get_bind().dialect.name != "postgresql":
        return
    for name, table in FUNCTIONS:
        # The owner reads the table through its owner_lookup policy (earlier migrations).
        op.execute(
            f"CREATE FUNCTION {name}(p_now timestamptz) RETURNS TABLE(due bigint, queued bigint) "
            "LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp "
            "AS $$ SELECT count(*) FILTER (WHERE volgende_poging_op <= p_now), count(*) "
            f"FROM {table} WHERE status = 'queued' $$"
        )
        op.execute(f"REVOKE ALL ON FUNCTION {name}(timestamptz) FROM PUBLIC")


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        for name, _table in FUNCTIONS:
            op.execute(f"DROP FUNCTION IF EXISTS {name}(timestamptz)")
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_column("request_id")
