"""Cross-carrier, black-box: with carrier A's planner session, API key and driver token,
every route of the portal and the API is called with carrier B's ids (in the path, and
every id field of the body naming B's objects), and every API operation on A's own
objects with bodies that name B's. Carrier B's rows are read before and after by the
owner: nothing of B changed. No answer carries B's data (its name, its driver's email or
user_token where the request did not send it). Never a server error."""

from __future__ import annotations

import hashlib

from conftest import bearer, create_api_key, create_user, driver_token, login
from sqlalchemy import Uuid, bindparam, create_engine, text
from test_isolation import SWEEP_EXEMPT, populate, route_values

from portal.extensions import db
from portal.models import TENANT_TABLES


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

    changed = {t: (before[t], after[t]) for t in before if before[t] != after[t]}
    print(
        f"\ncross-carrier sweep ({backend}): {tried} requests as A's admin, key and driver "
        f"with B's ids; statuses {dict(sorted(statuses.items()))}; B's rows changed: "
        f"{len(changed)} of {len(before)} tables; B's data in answers: 0"
    )
    assert changed == {}
