"""The admin commands: each prints its result as one JSON line."""

from __future__ import annotations

import json
import logging

import pytest
from factories import PASSWORD, bearer, questionnaire_doc


@pytest.fixture
def run(app):
    runner = app.test_cli_runner()

    def invoke(*args):
        result = runner.invoke(args=list(args))
        return result

    return invoke


def ok(result) -> dict:
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def test_a_carrier_is_set_up_from_the_command_line(app, client, run, tmp_path):
    carrier = ok(run("create-carrier", "--naam", "Van der Berg"))["id"]
    user = ok(
        run(
            "create-user",
            "--transporteur",
            carrier,
            "--email",
            "p@vdb.nl",
            "--password",
            PASSWORD,
            "--role",
            "planner",
        )
    )
    assert set(user) == {"id"}
    driver = ok(
        run(
            "create-driver",
            "--transporteur",
            carrier,
            "--naam",
            "Jan",
            "--email",
            "jan@vdb.nl",
            "--password",
            PASSWORD,
        )
    )
    assert set(driver) == {"id", "user_token"}
    vehicle = ok(run("create-vehicle", "--transporteur", carrier, "--kenteken", "bx-12-ab"))
    assert set(vehicle) == {"id"}
    key = ok(run("create-api-key", "--transporteur", carrier, "--naam", "TMS"))
    assert key["key"].startswith("rpk_") and "tacho:write" in key["scopes"]
    narrow = ok(
        run("create-api-key", "--transporteur", carrier, "--naam", "Loon", "--scopes", "hours:read")
    )
    assert narrow["scopes"] == "hours:read"
    refused = run("create-api-key", "--transporteur", carrier, "--naam", "X", "--scopes", "alles")
    assert refused.exit_code != 0 and "unknown: alles" in refused.output
    code = ok(run("create-activation-code", "--user-token", driver["user_token"]))
    assert len(code["code"]) == 10 and code["expires_at"]

    path = tmp_path / "q.json"
    path.write_text(json.dumps(questionnaire_doc()))
    imported = ok(run("import-questionnaire", "--transporteur", carrier, str(path), "--activate"))
    assert imported["questionnaire_id"] == "mest-laden" and imported["is_active"] is True
    exported = ok(run("export-questionnaire", "--transporteur", carrier, "mest-laden"))
    assert exported["questions"][0]["id"] == "gewicht"
    assert len(exported["questions"][0]) == 13

    # What the commands made works: the key creates a task, the code pairs a phone.
    response = client.post(
        f"/api/v1/users/{driver['user_token']}/taken",
        json={"type": "mest_laden", "naam": "Rit"},
        headers=bearer(key["key"]),
    )
    assert response.status_code == 201
    assert response.get_json()["vragenpad"]["questionnaire_id"] == "mest-laden"
    paired = client.post(
        "/api/v1/auth/token", json={"grant_type": "activation_code", "code": code["code"]}
    )
    assert paired.status_code == 200


def test_a_bad_questionnaire_is_refused_with_its_problems(run, tmp_path):
    carrier = ok(run("create-carrier", "--naam", "X"))["id"]
    doc = questionnaire_doc()
    doc["questions"].append({"id": "gewicht", "type": "number", "label": "Dubbel"})
    doc["questions"].append({"id": "kleur", "type": "select", "label": "Kleur"})
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    result = run("import-questionnaire", "--transporteur", carrier, str(path))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert (
        "gewicht" in result.stderr and "kleur" in result.stderr.lower()
    ) or "options" in result.stderr


def test_a_file_that_is_not_json_is_refused(run, tmp_path):
    carrier = ok(run("create-carrier", "--naam", "X"))["id"]
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    result = run("import-questionnaire", "--transporteur", carrier, str(path))
    assert result.exit_code == 1
    assert "not valid JSON" in result.stderr


def test_invalid_input_is_refused_with_a_message(run):
    carrier = ok(run("create-carrier", "--naam", "X"))["id"]
    weak = run(
        "create-user",
        "--transporteur",
        carrier,
        "--email",
        "a@b.nl",
        "--password",
        "short",
        "--role",
        "planner",
    )
    assert weak.exit_code == 1 and "password" in weak.stderr
    ok(run("create-vehicle", "--transporteur", carrier, "--kenteken", "BX-12-AB"))
    twice = run("create-vehicle", "--transporteur", carrier, "--kenteken", "bx 12 ab")
    assert twice.exit_code == 1 and "kenteken" in twice.stderr
    unknown = run(
        "create-driver", "--transporteur", "00000000-0000-4000-8000-000000000000", "--naam", "Jan"
    )
    assert unknown.exit_code == 1 and "carrier not found" in unknown.stderr
    bad_token = run("create-activation-code", "--user-token", "nope")
    assert bad_token.exit_code == 1


def test_seed_demo_creates_two_carriers_once(app, run, client):
    logins = ok(run("seed-demo"))
    assert len(logins["portal"]) == 6 and len(logins["drivers"]) == 5
    assert ok(run("seed-demo")) == logins  # a second run changes nothing
    token = client.post(
        "/api/v1/auth/token",
        json={
            "grant_type": "password",
            "username": logins["drivers"][0],
            "password": logins["password"],
        },
    ).get_json()
    tasks = client.get(
        f"/api/v1/users/{token['user_token']}/taken", headers=bearer(token["access_token"])
    ).get_json()
    assert tasks and all(t["vragenpad"] for t in tasks)
    statuses = {
        t["status"]
        for t in client.get(
            f"/api/v1/users/{token['user_token']}/taken?status=gepland,ontvangen,gestart,afgerond,"
            "geannuleerd&limit=1000",
            headers=bearer(token["access_token"]),
        ).get_json()
    }
    assert statuses == {"gepland", "ontvangen", "gestart", "afgerond", "geannuleerd"}

    # The completed demo work waits on the billing page.
    from datetime import date, timedelta

    from factories import csrf_from

    page = client.get("/login")
    client.post(
        "/login",
        data={
            "email": logins["portal"][0],
            "password": logins["password"],
            "csrf_token": csrf_from(page.get_data(as_text=True)),
        },
    )
    week = f"van={date.today() - timedelta(days=7)}&tot={date.today()}"
    billing = client.get(f"/facturatie?{week}").get_data(as_text=True)
    assert "Mest laden" in billing and "Geen regels" not in billing


def test_grant_app_role_grants_rows_but_refuses_a_role_that_bypasses_rls(app, run, backend):
    if backend != "postgresql":
        assert run("grant-app-role", "rijplan_app").exit_code == 1  # PostgreSQL only
        return
    granted = ok(run("grant-app-role", "rijplan_app_test"))
    assert "taken" in granted["tables"] and "alembic_version" not in granted["tables"]
    superuser = run("grant-app-role", "postgres")
    assert superuser.exit_code == 1 and "BYPASSRLS" in superuser.stderr
    assert run("grant-app-role", "no_such_role").exit_code == 1
    assert run("grant-app-role", 'x"; DROP TABLE taken; --').exit_code == 1


@pytest.mark.postgres_only  # row-level security exists on PostgreSQL only
def test_the_role_check_looks_at_database_url_not_at_the_admin_connection(
    app, backend, caplog, tmp_path
):
    """DATABASE_URL the app role and DATABASE_ADMIN_URL the owner: a command that works as the
    owner does not warn; the owner as DATABASE_URL does."""
    from conftest import base_config

    from portal import create_app
    from portal.extensions import db

    urls = {
        "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"],
        "DATABASE_ADMIN_URL": app.config["DATABASE_ADMIN_URL"],
    }
    warning = "DATABASE_URL connects as a role that bypasses row-level security"
    caplog.set_level(logging.WARNING, logger="portal.web")
    app_role = create_app({**base_config(tmp_path), **urls})
    created = app_role.test_cli_runner().invoke(args=["create-carrier", "--naam", "X"])
    assert ok(created)["id"]
    assert warning not in caplog.text

    owner = {**urls, "SQLALCHEMY_DATABASE_URI": urls["DATABASE_ADMIN_URL"]}
    as_owner = create_app({**base_config(tmp_path), **owner})
    assert warning in caplog.text
    for made in (app_role, as_owner):
        with made.app_context():
            db.engine.dispose()


@pytest.mark.postgres_only  # row-level security exists on PostgreSQL only
def test_seed_demo_works_under_row_level_security(app, backend, run):
    """Every carrier's rows are written while that carrier is the scope: seeding as a role
    that row-level security holds (not a superuser) succeeds, twice."""
    app.config["DATABASE_ADMIN_URL"] = app.config["SQLALCHEMY_DATABASE_URI"]  # the app role
    logins = ok(run("seed-demo"))
    assert len(logins["portal"]) == 6
    assert ok(run("seed-demo")) == logins


def test_billing_backfill_makes_the_lines_completed_work_missed(app, run, carrier, driver):
    """Tasks completed before every completion made a line get one; a dry run only lists."""
    from datetime import UTC, datetime

    from factories import create_task, in_carrier
    from sqlalchemy import select

    from portal.billing.models import BillingLine
    from portal.extensions import db

    done = datetime(2026, 11, 20, 14, 0, tzinfo=UTC)
    old = datetime(2026, 10, 1, 14, 0, tzinfo=UTC)
    missed = create_task(
        app, carrier, driver, naam="Voer Epe", status="afgerond", gestart_op=done,
        afgerond_op=done, hoeveelheid=12.5, eenheid="ton",
    )  # fmt: skip
    create_task(app, carrier, driver, naam="Oud", status="afgerond", gestart_op=old,
                afgerond_op=old)  # fmt: skip
    create_task(app, carrier, driver, naam="Open", status="gestart", gestart_op=done)

    def lines():
        return in_carrier(
            app,
            carrier.id,
            lambda: list(db.session.scalars(select(BillingLine))),
            lambda found: [(line.taak_id, line.hoeveelheid, line.eenheid) for line in found],
        )

    args = ("billing-backfill", "--transporteur", str(carrier.id), "--sinds", "2026-11-01")
    listed = ok(run(*args, "--dry-run"))
    assert listed["lines"] == 0 and [t["naam"] for t in listed["tasks"]] == ["Voer Epe"]
    assert lines() == []

    made = ok(run(*args))
    assert made["lines"] == 1
    assert lines() == [(missed.id, 12.5, "ton")]
    assert ok(run(*args))["tasks"] == []  # never twice
    assert run("billing-backfill", "--transporteur", str(carrier.id), "--sinds", "1-11").exit_code
