"""Control characters (U+000B and the like) typed into every text input there is: every
portal form a planner, an author and an admin can open (found by walking the portal's pages
and reading their forms), every write of the API (each JSON body and query string), and the
imports of customers and tasks. Each must be refused (the form's field says so, the API
answers 422 with code control_character, the import marks the cell), and afterwards no text
in the database holds one: a stored control character breaks every XLSX export holding it.

Served over loopback on PostgreSQL as the app role (the `live` fixture); prints what it
tried, what it refused and what leaked."""

from __future__ import annotations

import json
import uuid
from html.parser import HTMLParser
from urllib.parse import urlencode, urljoin

import pytest
from factories import (
    PASSWORD,
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_task,
    create_user,
    create_vehicle,
    csrf_from,
    in_carrier,
)
from sqlalchemy import JSON, String, Text, cast, func, select
from sqlalchemy.dialects.postgresql import JSONB

from attack.test_inputs import Browser, text_of
from portal.extensions import db

VT = "\x0b"
JSON_DOC = json.dumps({"schema_version": 1, "questionnaire_id": "drill", "title": f"Drill{VT}"})
CONTROL_IN_SQL = "[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]"
CONTROL_IN_JSON = r"\\u00(0[0-8bBcCeEfF]|1[0-9a-fA-F])|\\u007[fF]"
TEXT_INPUTS = {"text", "email", "tel", "search", "url", ""}
TYPED = {"text", "email", "tel", "search", "url", "textarea"}  # where a person types text
SKIPPED_ROUTES = ("/api/", "/static/", "/logout", "/metrics", "/bewijs/")


class Forms(HTMLParser):
    """The POST forms of a page: action and fields (name, kind, value)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self.form: dict | None = None
        self.select: str | None = None
        self.area: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            method = (a.get("method") or "get").lower()
            self.form = {"action": a.get("action") or "", "post": method == "post", "fields": []}
            self.forms.append(self.form)
        elif self.form is None or not a.get("name"):
            return
        elif tag == "input":
            kind = (a.get("type") or "").lower()
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            if kind not in ("submit", "button", "file", "image", "reset"):
                self.form["fields"].append([a["name"], kind, a.get("value") or ""])
        elif tag == "textarea":
            self.area = a["name"]
            self.form["fields"].append([a["name"], "textarea", ""])
        elif tag == "select":
            self.select = a["name"]
            self.form["fields"].append([a["name"], "select", None])
        elif tag == "option" and self.select:
            field = next(f for f in reversed(self.form["fields"]) if f[0] == self.select)
            if field[2] is None or "selected" in a:
                field[2] = a.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form":
            self.form = None
        elif tag == "select":
            self.select = None
        elif tag == "textarea":
            self.area = None


def forms_of(html: str) -> list[dict]:
    parser = Forms()
    parser.feed(html)
    return [form for form in parser.forms if form["post"]]


def leaked(app, carrier) -> dict[str, int]:
    """Rows of the carrier's tables whose text (or JSON) holds a control character."""

    def count():
        found = {}
        for table in db.metadata.sorted_tables:
            for column in table.columns:
                if isinstance(column.type, String | Text):
                    where = column.regexp_match(CONTROL_IN_SQL)
                elif isinstance(column.type, JSON | JSONB):
                    where = cast(column, Text).regexp_match(CONTROL_IN_JSON)
                else:
                    continue
                with db.session.begin_nested():
                    n = db.session.scalar(select(func.count()).select_from(table).where(where))
                if n:
                    found[f"{table.name}.{column.name}"] = n
        return found

    return in_carrier(app, carrier.id, count)


@pytest.fixture
def world(live):
    app = live.app
    carrier = create_carrier(app, "Van der Berg Agrotransport")
    users = {role: create_user(app, carrier, role) for role in ("planner", "author", "admin")}
    driver = create_driver(app, carrier)
    vehicle = create_vehicle(app, carrier, "BX-12-AB")
    task = create_task(app, carrier, driver, naam="Mest laden Enter")
    key = create_api_key(app, carrier)

    def customer():
        from portal.audit.service import SYSTEM
        from portal.customers import service

        made = service.create_customer(
            carrier_id=carrier.id, data={"naam": "Ter Horst"}, actor=SYSTEM
        )
        place = service.add_place(
            carrier_id=carrier.id, customer_id=made.id, data={"naam": "Erf"}, actor=SYSTEM
        )
        return made.id, place.id

    klant_id, locatie_id = in_carrier(app, carrier.id, customer)
    ids = {
        "task_id": task.id,
        "driver_id": driver.id,
        "vehicle_id": vehicle.id,
        "klant_id": klant_id,
        "locatie_id": locatie_id,
        "user_id": users["planner"].id,
        "user_token": driver.user_token,
    }
    return {"carrier": carrier, "users": users, "key": key, "driver": driver, "ids": ids}


def _paths(app, ids: dict, methods: set[str], prefix: str = "/"):
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith(prefix) or not methods & (rule.methods or set()):
            continue
        if prefix == "/" and rule.rule.startswith(SKIPPED_ROUTES):
            continue
        if not set(rule.arguments) <= set(ids):
            continue
        yield rule, rule.build({name: ids[name] for name in rule.arguments})[1]


def test_control_characters_are_refused_at_every_text_input(live, world):
    app, carrier, ids = live.app, world["carrier"], world["ids"]
    tried, refused, outcomes = 0, 0, {}

    # --- portal forms, as each role sees them ------------------------------------------------
    for role, user in world["users"].items():
        browser = Browser(live).sign_in(user)
        seen = set()
        for _rule, path in _paths(app, ids, {"GET"}):
            page = browser.get(path)
            if page.status != 200 or "text/html" not in page.headers.get("Content-Type", ""):
                continue
            html = page.body.decode()
            if "csrf_token" in html:
                browser.token = csrf_from(html)
            for form in forms_of(html):
                action = urljoin(path, form["action"] or path)
                text_fields = [f for f in form["fields"] if f[1] in TEXT_INPUTS | {"textarea"}]
                if not text_fields or action.startswith(("/logout", "/api/")):
                    continue
                names = tuple(sorted(f[0] for f in text_fields))
                if (action, names) in seen:
                    continue
                seen.add((action, names))
                pairs = [
                    (name, f"Drill{VT}{name}" if kind in TYPED else (value or ""))
                    for name, kind, value in form["fields"]
                    if name != "csrf_token"
                ]
                # A pasted questionnaire is JSON: the character comes escaped (\u000b).
                pairs = [(n, JSON_DOC if n == "json" else v) for n, v in pairs]
                if not any(VT in value or "\\u000b" in value for _name, value in pairs):
                    continue
                tried += 1
                answer = browser.post(action, pairs)
                said = text_of(answer) if answer.status < 500 else ""
                ok = answer.status == 422 and "stuurteken" in said
                refused += ok
                outcomes[f"{role} {action} ({', '.join(names)})"] = (
                    f"{answer.status} {'refused at the field' if 'stuurteken' in said else ''}"
                )
                assert answer.status < 500, (action, answer.body[:500])

    # --- the API: every write with a body, every read with a query ------------------------------
    key_headers = bearer(world["key"].key)
    signed_in = live.call(
        "POST",
        "/api/v1/auth/token",
        {"grant_type": "password", "username": world["driver"].email, "password": PASSWORD},
    )
    driver_headers = bearer(signed_in.json()["access_token"])
    for rule, path in _paths(app, ids, {"POST", "PUT", "PATCH"}, "/api/v1/"):
        for method in sorted({"POST", "PUT", "PATCH"} & rule.methods):
            body = {"naam": f"Drill{VT}", "opmerking": f"x{VT}"}
            for who in (key_headers, driver_headers):  # the key's operations, then the phone's
                headers = {**who, "Idempotency-Key": str(uuid.uuid4())}
                answer = live.call(method, path, body, headers)
                if answer.status not in (401, 403):
                    break
            if answer.status in (401, 403, 404, 405, 415):
                continue  # not this key's operation, or not a JSON body
            tried += 1
            problem = answer.json() or {}
            codes = {e.get("code") for e in problem.get("errors") or []}
            ok = answer.status == 422 and "control_character" in codes
            refused += ok
            outcomes[f"API {method} {rule.rule}"] = (
                f"{answer.status} {sorted(c for c in codes if c)}"
            )
    for _rule, path in _paths(app, ids, {"GET"}, "/api/v1/"):
        answer = live.call("GET", f"{path}?{urlencode({'q': f'a{VT}b'})}", None, key_headers)
        if answer.status != 422:
            continue  # no query, or not this key's
        tried += 1
        refused += True
        outcomes[f"API GET {path}?q="] = "422"

    # --- imports ---------------------------------------------------------------------------------
    planner = Browser(live).sign_in(world["users"]["planner"])
    for path, raw in (
        ("/klanten/import", f"naam;stad\nTer{VT}Horst;Enter\n"),
        ("/taken/import", f"naam;type\nMest{VT}laden;mest_laden\n"),
    ):
        planner.token = csrf_from(planner.get(path).body.decode())
        uploaded = planner.upload(path, {}, {"bestand": ("drill.csv", raw.encode())})
        preview = planner.get(uploaded.headers.get("Location", path))
        tried += 1
        ok = "stuurteken" in text_of(preview)
        refused += ok
        outcomes[f"import {path}"] = "refused at the cell" if ok else f"{preview.status}"

    found = leaked(app, carrier)
    print(f"\ncontrol characters: {tried} tried, {refused} refused, leaked {sum(found.values())}")
    for name, result in outcomes.items():
        print(f"  {name}: {result}")
    assert found == {}
    assert refused == tried and tried > 40
