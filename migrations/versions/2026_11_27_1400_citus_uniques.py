"""Credential and share-link hashes unique per carrier, with an index of their own: the
schema is Citus-ready without exceptions

Revision ID: c0d1c0de0280
Revises: c0d1c0de0270
Create Date: 2026-11-27 14:00:00

Five hashes were unique across all carriers (an API key, an invitation or reset link, an
activation code, a refresh token, a shared proof link), which a Citus table distributed by
`transporteur_id` can not enforce. Each is now unique per carrier, `(transporteur_id, hash)`,
and keeps a plain index on the hash for the look-up made before the carrier is known (the
owner's functions, c0d1c0de0180 and c0d1c0de0210).

Four are 256 random bits, which never meet. The fifth, an activation code, is typed and so
short (50 bits): the app draws a code no carrier holds, and refuses a code found twice. For
that, `rijplan_activatiecode` now answers up to two rows instead of one.

The downgrade restores the global uniques; it fails if two carriers have come to hold the
same hash meanwhile (delete the older row first).
"""

from alembic import op

# revision identifiers, used by Alembic.
revision = "c0d1c0de0280"
down_revision = "c0d1c0de0270"
branch_labels = None
depends_on = None

HASHES = (
    ("api_keys", "key_hash"),
    ("gebruikers", "link_hash"),
    ("activation_codes", "code_hash"),
    ("refresh_tokens", "token_hash"),
    ("bewijs_links", "token_hash"),
)

ACTIVATION_LOOKUP = (
    "CREATE OR REPLACE FUNCTION rijplan_activatiecode(p_hash text) "
    "RETURNS TABLE(transporteur_id uuid, id uuid) "
    "LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp "
    "AS $$ SELECT transporteur_id, id FROM activation_codes WHERE code_hash = p_hash "
    "LIMIT {limit} $$"
)


def upgrade():
    for table, column in HASHES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_constraint(f"uq_{table}_{column}", type_="unique")
            batch_op.create_unique_constraint(
                f"uq_{table}_transporteur_id_{column}", ["transporteur_id", column]
            )
            batch_op.create_index(f"ix_{table}_{column}", [column], unique=False)
    if op.get_bind().dialect.name == "postgresql":
        # CREATE OR REPLACE keeps the function's owner and grants (EXECUTE for the app role).
        op.execute(ACTIVATION_LOOKUP.format(limit=2))


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute(ACTIVATION_LOOKUP.format(limit=1))
    for table, column in reversed(HASHES):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(f"ix_{table}_{column}")
            batch_op.drop_constraint(f"uq_{table}_transporteur_id_{column}", type_="unique")
            batch_op.create_unique_constraint(f"uq_{table}_{column}", [column])
