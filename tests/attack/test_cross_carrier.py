"""Cross-carrier, black-box: with carrier A's planner session, API key and driver token,
every route of the portal and the API is called with carrier B's ids (in the path, and
every id field of the body naming B's objects), and every API operation on A's own
objects with bodies that name B's. Carrier B's rows are read before and after by the
owner: nothing of B changed. No answer carries B's data (its name, its driver's email or
user_token where the request did not send it). Never a server error.

And row-level security alone: the same sweep on PostgreSQL with the application's carrier
filter taken out of every statement it sends (`carrier_filter_off`), so that only the
policies stand between A and B."""

from __future__ import annotations

import hashlib
import re
import uuid
from contextlib import contextmanager

import pytest
from conftest import PG_AVAILABLE
from factories import bearer, create_api_key, create_user, driver_token, login
from sqlalchemy import Uuid, bindparam, create_engine, event, text
from test_isolation import SWEEP_EXEMPT, populate, route_values

from portal import reads
from portal.errors import NotFound
from portal.extensions import db
from portal.models import TENANT_TABLES
from portal.tasks import service as tasks
from portal.tenancy import activate

# The application's carrier filter as the services write it and SQLAlchemy sends it to
# psycopg: `[table.]transporteur_id = %(param)s[::UUID]` in a WHERE, AND or ON (or just after an
# opening parenthesis). The carrier's own id in a SET or VALUES is not a filter.
CARRIER_FILTER = re.compile(
    r"(\b(?:WHERE|AND|ON)\s+|\()(?:\w+\.)?transporteur_id\s*=\s*%\(\w+\)s(?:::\w+)?"
)


@contextmanager
def carrier_filter_off(app):
    """Every statement the app sends, through the ORM or the pipelined reads, with its
    carrier conditions replaced by TRUE: test-only, PostgreSQL only. Yields the count of
    statements it changed."""
    changed = {"statements": 0}

    def strip(sql: str) -> str:
        stripped, count = CARRIER_FILTER.subn(r"\1TRUE", sql)
        changed["statements"] += bool(count)
        return stripped

    def on_execute(conn, cursor, statement, parameters, context, executemany):
        return strip(statement), parameters

    def on_read(sent: list) -> None:
        sent[:] = [(strip(sql), params) for sql, params in sent]

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", on_execute, retval=True)
    reads.listeners.append(on_read)
    try:
        yield changed
    finally:
        reads.listeners.remove(on_read)
        event.remove(engine, "before_cursor_execute", on_execute)


def snapshot(app, carrier_id) -> dict[str, str]:
    """Per table, a digest of B's rows as the owner reads them (row-level security does not
    hide them from the owner; on SQLite there is none)."""
    admin_url = app.config.get("DATABASE_ADMIN_URL")
    with app.app_context():
        engine = create_engine(admin_url) if admin_url else db.engine
        digests = {}
        with engine.connect() as connection:
            for table in sorted({*TENANT_TABLES, "transporteurs"}):
                column = "id" if table == "transporteurs" else "transporteur_id"
                statement = text(f"SELECT * FROM {table} WHERE {column} = :c").bindparams(
                    bindparam("c", type_=Uuid)
                )
                rows = connection.execute(statement, {"c": carrier_id}).all()
                digest = hashlib.sha256(repr(sorted(map(repr, rows))).encode()).hexdigest()
                digests[table] = f"{len(rows)}:{digest[:16]}"
        if admin_url:
            engine.dispose()
    return digests


def test_carrier_a_reaches_nothing_of_carrier_b_by_any_route(app, client, backend):
    tried, statuses, changed = sweep(app, client)
    print(
        f"\ncross-carrier sweep ({backend}): {tried} requests as A's admin, key and driver "
        f"with B's ids; statuses {dict(sorted(statuses.items()))}; B's rows changed: "
        f"{len(changed)}; B's data in answers: 0"
    )
    assert changed == {}


@pytest.mark.parametrize("backend", ["postgresql"])
def test_row_level_security_alone_keeps_carrier_b_out(app, client, backend):
    if not PG_AVAILABLE:
        pytest.skip("PostgreSQL does not answer")
    with carrier_filter_off(app) as stripped:
        tried, statuses, changed = sweep(app, client)
    print(
        f"\nRLS alone ({backend}): {tried} requests with the app's carrier filter out of "
        f"{stripped['statements']} statements; statuses {dict(sorted(statuses.items()))}; "
        f"B's rows changed: {len(changed)}; B's data in answers: 0"
    )
    assert stripped["statements"] > 100  # the filter really was out of the way
    assert changed == {}


@pytest.mark.parametrize("backend", ["postgresql"])
def test_with_the_filter_off_only_the_policy_decides(app, client, backend):
    """The control: with the filter out, a service asked for A's task by B's id finds it as
    soon as the transaction's carrier is B; as A it does not. So in the sweep above it was
    the policy, not a leftover condition, that kept B out."""
    if not PG_AVAILABLE:
        pytest.skip("PostgreSQL does not answer")
    own, foreign = populate(app, client, "Eigen"), populate(app, client, "Vreemd Transport")
    a, b = own["carrier"].id, foreign["carrier"].id
    task_of_b = uuid.UUID(route_values(foreign)["task_id"])

    def fetch(as_carrier):
        with app.app_context():
            activate(db.session, as_carrier)
            try:
                return tasks.get_task(carrier_id=a, task_id=task_of_b).naam
            except NotFound:
                return None
            finally:
                db.session.rollback()

    assert fetch(b) is None  # the app's own filter: A's id in the query
    with carrier_filter_off(app):
        assert fetch(a) is None  # only the policy stands, and it admits A's rows only
        assert fetch(b) == foreign["task"].naam  # the policy set to B: B's task is found


def sweep(app, client) -> tuple[int, dict, dict]:
    """Every route as A with B's ids: the requests tried, their statuses, and B's tables
    that changed. Fails at once on a server error or B's data in an answer."""
    own = populate(app, client, "Eigen")
    foreign = populate(app, client, "Vreemd Transport")
    key = create_api_key(app, own["carrier"])
    admin = create_user(app, own["carrier"], "admin")
    driver = driver_token(client, own["driver"])
    b, a = route_values(foreign), route_values(own)
    # A body naming B's objects in every id field the API and the portal take.
    body = {
        "chauffeur_id": b["driver_id"],
        "vehicle_id": b["vehicle_id"],
        "taak_id": b["task_id"],
        "transporteur_id": b["transporteur_id"],
        "activity_questionnaire_id": str(foreign["task"].id),
        "fotos": [b["file_id"]],
        "handtekeningen": [b["file_id"]],
        "scans": [b["file_id"]],
        "chauffeur": b["driver_id"],
        "voertuig": b["vehicle_id"],
    }
    secrets_of_b = ["Vreemd Transport", foreign["driver"].email]

    before = snapshot(app, foreign["carrier"].id)
    login(client, admin)
    tried, statuses = 0, {}
    for rule in app.url_map.iter_rules():
        if rule.endpoint in SWEEP_EXEMPT or rule.endpoint == "accounts.logout":
            continue
        api = rule.rule.startswith("/api/")
        for values in (b, a) if api else (b,):
            if not rule.arguments and values is a:
                continue  # the same call as with b
            path = rule.build({n: values[n] for n in rule.arguments}, append_unknown=False)[1]
            credentials = [bearer(key.key), bearer(driver)] if api else [{}]
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                for headers in credentials:
                    # The API reads JSON; the portal's forms read form fields.
                    sent = {"json": body} if api else {"data": body}
                    response = client.open(path, method=method, headers=headers, **sent)
                    tried += 1
                    statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                    assert response.status_code < 500, f"{method} {path}: {response.status_code}"
                    answer = response.get_data()  # bytes: exports and downloads too
                    for secret in secrets_of_b:
                        assert secret.encode() not in answer, f"{method} {path}: {secret!r}"
                    if b["user_token"] not in path:
                        leaked = b["user_token"].encode() in answer
                        assert not leaked, f"{method} {path}: B's user_token"
    after = snapshot(app, foreign["carrier"].id)
    assert int(before["taken"].split(":")[0]) >= 1  # the snapshot does see B's rows
    return tried, statuses, {t: (before[t], after[t]) for t in before if before[t] != after[t]}
