"""Admin section: user invitations and password links, API key last use, carrier home base

A user's one open password link (invitation or reset) lives on `gebruikers` as a SHA-256 with
its kind and expiry; `gebruikers` already admits the sign-in lookup (`auth_lookup`), which is
how an anonymous visitor's link finds its user. `api_keys.laatst_gebruikt_op` is written at
most once a minute. The carrier's home base address is kept for route planning later.

Revision ID: c0d1c0de0100
Revises: b6d1c0de0340
Create Date: 2026-11-24 18:20:00
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c0d1c0de0100'
down_revision = 'b6d1c0de0340'
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"


def upgrade():
    with op.batch_alter_table('gebruikers', schema=None) as batch_op:
        batch_op.add_column(sa.Column('link_hash', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('link_soort', sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column('link_verloopt_op', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_unique_constraint(batch_op.f('uq_gebruikers_link_hash'), ['link_hash'])
        batch_op.create_check_constraint(
            op.f('ck_gebruikers_link'),
            "link_hash IS NULL OR (link_soort IN ('uitnodiging', 'herstel') "
            "AND link_verloopt_op IS NOT NULL)",
        )

    with op.batch_alter_table('api_keys', schema=None) as batch_op:
        batch_op.add_column(sa.Column('laatst_gebruikt_op', sa.DateTime(timezone=True), nullable=True))

    with op.batch_alter_table('transporteurs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('thuisbasis_straat', sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column('thuisbasis_postcode', sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column('thuisbasis_plaats', sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column('thuisbasis_land', sa.String(length=2), nullable=True))
        batch_op.add_column(sa.Column('thuisbasis_lat', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('thuisbasis_lng', sa.Float(), nullable=True))
        batch_op.create_check_constraint(
            op.f('ck_transporteurs_thuisbasis_coordinaten'), '(thuisbasis_lat IS NULL) = (thuisbasis_lng IS NULL)'
        )
        batch_op.create_check_constraint(op.f('ck_transporteurs_thuisbasis_lat'), 'thuisbasis_lat BETWEEN -90 AND 90')
        batch_op.create_check_constraint(op.f('ck_transporteurs_thuisbasis_lng'), 'thuisbasis_lng BETWEEN -180 AND 180')

    # Scopes are now enforced on every operation, and two read scopes are new. A key made
    # with every scope (the default) keeps every scope; a narrowed key stays as narrow.
    _rescope(OLD_DEFAULT_SCOPES, NEW_DEFAULT_SCOPES)


OLD_DEFAULT_SCOPES = (
    "tasks:read tasks:write vehicles:read vehicles:write messages:read messages:write "
    "tacho:read tacho:write hours:read hours:write"
)
NEW_DEFAULT_SCOPES = (
    "tasks:read tasks:write questionnaires:read drivers:read vehicles:read vehicles:write "
    "messages:read messages:write tacho:read tacho:write hours:read hours:write"
)


def _rescope(old, new):
    """Rewrite every key holding exactly `old`; the owner is held by FORCE'd row-level
    security too, so it is lifted for this one statement."""
    postgres = op.get_bind().dialect.name == "postgresql"
    if postgres:
        op.execute("ALTER TABLE api_keys NO FORCE ROW LEVEL SECURITY")
    op.execute(
        sa.text("UPDATE api_keys SET scopes = :new WHERE scopes = :old").bindparams(old=old, new=new)
    )
    if postgres:
        op.execute("ALTER TABLE api_keys FORCE ROW LEVEL SECURITY")


def downgrade():
    _rescope(NEW_DEFAULT_SCOPES, OLD_DEFAULT_SCOPES)

    with op.batch_alter_table('transporteurs', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_transporteurs_thuisbasis_lng'), type_='check')
        batch_op.drop_constraint(op.f('ck_transporteurs_thuisbasis_lat'), type_='check')
        batch_op.drop_constraint(op.f('ck_transporteurs_thuisbasis_coordinaten'), type_='check')
        batch_op.drop_column('thuisbasis_lng')
        batch_op.drop_column('thuisbasis_lat')
        batch_op.drop_column('thuisbasis_land')
        batch_op.drop_column('thuisbasis_plaats')
        batch_op.drop_column('thuisbasis_postcode')
        batch_op.drop_column('thuisbasis_straat')

    with op.batch_alter_table('api_keys', schema=None) as batch_op:
        batch_op.drop_column('laatst_gebruikt_op')

    with op.batch_alter_table('gebruikers', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_gebruikers_link'), type_='check')
        batch_op.drop_constraint(batch_op.f('uq_gebruikers_link_hash'), type_='unique')
        batch_op.drop_column('link_verloopt_op')
        batch_op.drop_column('link_soort')
        batch_op.drop_column('link_hash')
