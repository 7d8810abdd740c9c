"""Change notices: PostgreSQL names the carrier whose polled rows changed

Revision ID: c0d1c0de0160
Revises: c0d1c0de0150
Create Date: 2026-11-26 12:40:00

A worker answers an unchanged poll from what it confirmed earlier, until it hears that the
carrier's rows changed. Triggers on the tables a poll's answer depends on (tasks, drivers,
questionnaire revisions, the carrier itself) send `NOTIFY rijplan_wijziging` with the
carrier's id, once per statement and carrier, whichever code path wrote (a service, a bulk
statement, an operator's SQL). PostgreSQL delivers notifications when the transaction
commits and not at all when it rolls back. SQLite has no notifications: nothing to do there.
"""
from alembic import op


# revision identifiers, used by Alembic.
revision = 'c0d1c0de0160'
down_revision = 'c0d1c0de0150'
branch_labels = None
depends_on = None

CHANNEL = "rijplan_wijziging"
TABLES = ("taken", "chauffeurs", "activity_questionnaires")
EVENTS = {"INSERT": "new_rows", "UPDATE": "new_rows", "DELETE": "old_rows"}


def _function(name: str, column: str, rows: str) -> str:
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', carrier::text)
    FROM (SELECT DISTINCT {column} AS carrier FROM {rows}) AS changed;
    RETURN NULL;
END
$$"""


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    # Statement-level triggers with transition tables: one notice per carrier and
    # statement, also for a bulk insert of a million rows. (A trigger with a transition
    # table has one event, hence one per event; an UPDATE never moves a row to another
    # carrier, so its new rows name them all.)
    for column, suffix in (("transporteur_id", ""), ("id", "_transporteur")):
        for rows in ("new_rows", "old_rows"):
            op.execute(_function(f"rijplan_meld_wijziging{suffix}_{rows}", column, rows))
    for table, suffix in [(t, "") for t in TABLES] + [("transporteurs", "_transporteur")]:
        for event, rows in EVENTS.items():
            referencing = "NEW TABLE AS new_rows" if rows == "new_rows" else "OLD TABLE AS old_rows"
            op.execute(
                f"CREATE TRIGGER meld_wijziging_{event.lower()} AFTER {event} ON {table} "
                f"REFERENCING {referencing} FOR EACH STATEMENT "
                f"EXECUTE FUNCTION rijplan_meld_wijziging{suffix}_{rows}()"
            )


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in (*TABLES, "transporteurs"):
        for event in EVENTS:
            op.execute(f"DROP TRIGGER IF EXISTS meld_wijziging_{event.lower()} ON {table}")
    for suffix in ("", "_transporteur"):
        for rows in ("new_rows", "old_rows"):
            op.execute(f"DROP FUNCTION IF EXISTS rijplan_meld_wijziging{suffix}_{rows}()")
