"""Row-level security: each tenant table admits only the rows of the transaction's carrier.

Revision ID: a7c3e1f00002
Revises: 5dbca32d54b3
Create Date: 2026-11-22 00:13:00

The app sets `app.transporteur_id` per transaction (set_config(..., true)); after a commit it
reads back as '' rather than NULL, hence NULLIF. FORCE makes the policies hold for the tables'
owner too. The credential tables also admit SELECT while `app.auth_lookup` is on: signing in
finds a user by email or a key by its hash before the carrier is known (see tenancy.py).
PostgreSQL only; SQLite has no row-level security.
"""

from alembic import op

revision = "a7c3e1f00002"
down_revision = "5dbca32d54b3"
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
TENANT_TABLES = (
    "gebruikers",
    "chauffeurs",
    "voertuigen",
    "api_keys",
    "refresh_tokens",
    "activation_codes",
    "activity_questionnaires",
    "taken",
    "answer_sessions",
    "answers",
    "idempotency_records",
    "audit_log",
)
CREDENTIAL_TABLES = ("gebruikers", "chauffeurs", "api_keys", "refresh_tokens", "activation_codes")


def _enable(table: str, column: str) -> None:
    op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
    op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
    op.execute(
        f"CREATE POLICY carrier_isolation ON {table} "
        f"USING ({column} = {CARRIER}) WITH CHECK ({column} = {CARRIER})"
    )


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    _enable("transporteurs", "id")
    for table in TENANT_TABLES:
        _enable(table, "transporteur_id")
    for table in CREDENTIAL_TABLES:
        op.execute(
            f"CREATE POLICY auth_lookup ON {table} FOR SELECT "
            "USING (current_setting('app.auth_lookup', true) = 'on')"
        )


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in CREDENTIAL_TABLES:
        op.execute(f"DROP POLICY auth_lookup ON {table}")
    for table in ("transporteurs", *TENANT_TABLES):
        op.execute(f"DROP POLICY carrier_isolation ON {table}")
        op.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
        op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
