"""Messages to drivers (berichten), their Web Push subscriptions and delivery attempts: an
outbox with row-level security, and a read-only policy for the worker to find due work

Revision ID: b5d1c0de0320
Revises: b5d1c0de0310
Create Date: 2026-11-22 03:00:00

The outbox worker must learn which carriers have queued messages before it can act as each
of them. FORCE makes the carrier policy hold for the owner too, so no ordinary role sees
across carriers; `outbox_dispatch` admits SELECT of queued rows while the transaction-local
`app.outbox_dispatch` is on (as `auth_lookup` does for sign-in). Everything else the worker
does runs in one carrier's scope.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b5d1c0de0320'
down_revision = 'b5d1c0de0310'
branch_labels = None
depends_on = None

CARRIER = "NULLIF(current_setting('app.transporteur_id', true), '')::uuid"
TABLES = ("berichten", "push_abonnementen", "bericht_pogingen")


def upgrade():
    op.create_table('berichten',
    sa.Column('transporteur_id', sa.Uuid(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('verzending_id', sa.Uuid(), nullable=False),
    sa.Column('chauffeur_id', sa.Uuid(), nullable=False),
    sa.Column('titel', sa.String(length=100), nullable=False),
    sa.Column('tekst', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('verzonden_door', sa.Uuid(), nullable=True),
    sa.Column('afzender', sa.String(length=200), nullable=False),
    sa.Column('verzonden_op', sa.DateTime(timezone=True), nullable=True),
    sa.Column('gelezen_op', sa.DateTime(timezone=True), nullable=True),
    sa.Column('fout', sa.String(length=500), nullable=True),
    sa.Column('pogingen', sa.Integer(), nullable=False),
    sa.Column('volgende_poging_op', sa.DateTime(timezone=True), nullable=True),
    sa.Column('claim_id', sa.Uuid(), nullable=True),
    sa.CheckConstraint("status IN ('queued', 'sent', 'failed', 'read')", name=op.f('ck_berichten_status')),
    sa.CheckConstraint('pogingen >= 0', name=op.f('ck_berichten_pogingen')),
    sa.ForeignKeyConstraint(['transporteur_id', 'chauffeur_id'], ['chauffeurs.transporteur_id', 'chauffeurs.id'], name=op.f('fk_berichten_chauffeurs')),
    sa.ForeignKeyConstraint(['transporteur_id', 'verzonden_door'], ['gebruikers.transporteur_id', 'gebruikers.id'], name=op.f('fk_berichten_gebruikers')),
    sa.ForeignKeyConstraint(['transporteur_id'], ['transporteurs.id'], name=op.f('fk_berichten_transporteurs')),
    sa.PrimaryKeyConstraint('transporteur_id', 'id', name=op.f('pk_berichten'))
    )
    with op.batch_alter_table('berichten', schema=None) as batch_op:
        batch_op.create_index('ix_berichten_chauffeur', ['transporteur_id', 'chauffeur_id', 'created_at'], unique=False)
        batch_op.create_index('ix_berichten_created', ['transporteur_id', 'created_at'], unique=False)
        batch_op.create_index('ix_berichten_due', ['volgende_poging_op'], unique=False, postgresql_where=sa.text("status = 'queued'"), sqlite_where=sa.text("status = 'queued'"))
        batch_op.create_index('ix_berichten_verzending', ['transporteur_id', 'verzending_id'], unique=False)

    op.create_table('push_abonnementen',
    sa.Column('transporteur_id', sa.Uuid(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('chauffeur_id', sa.Uuid(), nullable=False),
    sa.Column('endpoint', sa.String(length=1024), nullable=False),
    sa.Column('p256dh', sa.String(length=128), nullable=False),
    sa.Column('auth', sa.String(length=64), nullable=False),
    sa.Column('verloopt_op', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['transporteur_id', 'chauffeur_id'], ['chauffeurs.transporteur_id', 'chauffeurs.id'], name=op.f('fk_push_abonnementen_chauffeurs')),
    sa.ForeignKeyConstraint(['transporteur_id'], ['transporteurs.id'], name=op.f('fk_push_abonnementen_transporteurs')),
    sa.PrimaryKeyConstraint('transporteur_id', 'id', name=op.f('pk_push_abonnementen')),
    sa.UniqueConstraint('transporteur_id', 'endpoint', name=op.f('uq_push_abonnementen_transporteur_id_endpoint'))
    )
    with op.batch_alter_table('push_abonnementen', schema=None) as batch_op:
        batch_op.create_index('ix_push_abonnementen_chauffeur', ['transporteur_id', 'chauffeur_id'], unique=False)

    op.create_table('bericht_pogingen',
    sa.Column('transporteur_id', sa.Uuid(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('bericht_id', sa.Uuid(), nullable=False),
    sa.Column('poging', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('resultaat', sa.String(length=16), nullable=False),
    sa.Column('http_status', sa.Integer(), nullable=True),
    sa.Column('fout', sa.String(length=500), nullable=True),
    sa.Column('push_dienst', sa.String(length=255), nullable=True),
    sa.CheckConstraint("resultaat IN ('sent', 'retry', 'failed')", name=op.f('ck_bericht_pogingen_resultaat')),
    sa.ForeignKeyConstraint(['transporteur_id', 'bericht_id'], ['berichten.transporteur_id', 'berichten.id'], name=op.f('fk_bericht_pogingen_berichten')),
    sa.ForeignKeyConstraint(['transporteur_id'], ['transporteurs.id'], name=op.f('fk_bericht_pogingen_transporteurs')),
    sa.PrimaryKeyConstraint('transporteur_id', 'id', name=op.f('pk_bericht_pogingen'))
    )
    with op.batch_alter_table('bericht_pogingen', schema=None) as batch_op:
        batch_op.create_index('ix_bericht_pogingen_bericht', ['transporteur_id', 'bericht_id', 'poging'], unique=False)

    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
            op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
            op.execute(
                f"CREATE POLICY carrier_isolation ON {table} "
                f"USING (transporteur_id = {CARRIER}) WITH CHECK (transporteur_id = {CARRIER})"
            )
        op.execute(
            "CREATE POLICY outbox_dispatch ON berichten FOR SELECT "
            "USING (current_setting('app.outbox_dispatch', true) = 'on' AND status = 'queued')"
        )


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP POLICY outbox_dispatch ON berichten")
        for table in TABLES:
            op.execute(f"DROP POLICY carrier_isolation ON {table}")
    with op.batch_alter_table('bericht_pogingen', schema=None) as batch_op:
        batch_op.drop_index('ix_bericht_pogingen_bericht')

    op.drop_table('bericht_pogingen')
    with op.batch_alter_table('push_abonnementen', schema=None) as batch_op:
        batch_op.drop_index('ix_push_abonnementen_chauffeur')

    op.drop_table('push_abonnementen')
    with op.batch_alter_table('berichten', schema=None) as batch_op:
        batch_op.drop_index('ix_berichten_verzending')
        batch_op.drop_index('ix_berichten_due', postgresql_where=sa.text("status = 'queued'"), sqlite_where=sa.text("status = 'queued'"))
        batch_op.drop_index('ix_berichten_created')
        batch_op.drop_index('ix_berichten_chauffeur')

    op.drop_table('berichten')
