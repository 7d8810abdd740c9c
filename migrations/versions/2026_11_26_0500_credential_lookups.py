"""Credential look-ups through the owner's functions: the app role sees no other carrier's row

Revision ID: c0d1c0de0180
Revises: c0d1c0de0170
Create Date: 2026-11-26 12:50:00

Signing in finds a user by email, a key or token by its hash, before the carrier is known;
the message worker finds the carriers with messages due. Until now the credential tables
(and `berichten`) admitted SELECT of every carrier's rows while a transaction setting
(`app.auth_lookup`, `app.outbox_dispatch`) was on, and the app role could switch that on
itself: one `set_config` and its own SQL read every carrier's users, drivers and keys.

Now those policies are gone. Each look-up is a SECURITY DEFINER function owned by the role
that runs this migration (the owner), which returns only what the look-up needs (the
carrier and the row's id of an exact match, or the carriers with messages due), with a
policy that lets only that role read the rows in question. The app then reads the row
itself, as that carrier, under row-level security. The app role gets EXECUTE on the
functions from `flask grant-app-role` (run it again after this migration).
"""
from alembic import op


# revision identifiers, used by Alembic.
revision = 'c0d1c0de0180'
down_revision = 'c0d1c0de0170'
branch_labels = None
depends_on = None

CREDENTIAL_TABLES = ("gebruikers", "chauffeurs", "api_keys", "refresh_tokens", "activation_codes")

# name, arguments, returns, body
FUNCTIONS = (
    (
        "rijplan_gebruikers_met_email",
        "p_email text",
        "TABLE(transporteur_id uuid, id uuid)",
        "SELECT transporteur_id, id FROM gebruikers WHERE email = p_email AND actief LIMIT 5",
    ),
    (
        "rijplan_gebruiker_met_link",
        "p_hash text",
        "TABLE(transporteur_id uuid, id uuid)",
        "SELECT transporteur_id, id FROM gebruikers WHERE link_hash = p_hash LIMIT 1",
    ),
    (
        "rijplan_chauffeurs_met_email",
        "p_email text",
        "TABLE(transporteur_id uuid, id uuid)",
        "SELECT transporteur_id, id FROM chauffeurs WHERE email = p_email AND actief LIMIT 5",
    ),
    (
        "rijplan_chauffeur_met_user_token",
        "p_token text",
        "TABLE(transporteur_id uuid, id uuid)",
        "SELECT transporteur_id, id FROM chauffeurs WHERE user_token = p_token LIMIT 1",
    ),
    (
        "rijplan_api_key",
        "p_hash text",
        "TABLE(transporteur_id uuid, id uuid)",
        "SELECT transporteur_id, id FROM api_keys WHERE key_hash = p_hash LIMIT 1",
    ),
    (
        "rijplan_refresh_token",
        "p_hash text",
        "TABLE(transporteur_id uuid, id uuid)",
        "SELECT transporteur_id, id FROM refresh_tokens WHERE token_hash = p_hash LIMIT 1",
    ),
    (
        "rijplan_activatiecode",
        "p_hash text",
        "TABLE(transporteur_id uuid, id uuid)",
        "SELECT transporteur_id, id FROM activation_codes WHERE code_hash = p_hash LIMIT 1",
    ),
    (
        "rijplan_berichten_te_versturen",
        "p_now timestamptz, p_limit integer",
        "TABLE(transporteur_id uuid)",
        "SELECT transporteur_id FROM berichten WHERE status = 'queued' "
        "AND volgende_poging_op <= p_now GROUP BY transporteur_id "
        "ORDER BY min(volgende_poging_op) LIMIT p_limit",
    ),
)


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in CREDENTIAL_TABLES:
        op.execute(f"DROP POLICY IF EXISTS auth_lookup ON {table}")
    op.execute("DROP POLICY IF EXISTS outbox_dispatch ON berichten")
    for table in (*CREDENTIAL_TABLES, "berichten"):
        # Only for the owner (this migration's role), whose functions below read them.
        op.execute(f"CREATE POLICY owner_lookup ON {table} FOR SELECT TO CURRENT_USER USING (true)")
    for name, arguments, returns, body in FUNCTIONS:
        op.execute(
            f"CREATE FUNCTION {name}({arguments}) RETURNS {returns} "
            "LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp "
            f"AS $$ {body} $$"
        )
        op.execute(f"REVOKE ALL ON FUNCTION {name}({_types(arguments)}) FROM PUBLIC")


def _types(arguments: str) -> str:
    return ", ".join(part.split()[1] for part in arguments.split(", "))


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    for name, arguments, _returns, _body in FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS {name}({_types(arguments)})")
    for table in (*CREDENTIAL_TABLES, "berichten"):
        op.execute(f"DROP POLICY IF EXISTS owner_lookup ON {table}")
    for table in CREDENTIAL_TABLES:
        op.execute(
            f"CREATE POLICY auth_lookup ON {table} FOR SELECT "
            "USING (current_setting('app.auth_lookup', true) = 'on')"
        )
    op.execute(
        "CREATE POLICY outbox_dispatch ON berichten FOR SELECT "
        "USING (current_setting('app.outbox_dispatch', true) = 'on' AND status = 'queued')"
    )
