"""Hostile input, sent where a user or an integration sends it: JSON nested 5,000 deep and
bodies over the limit wherever a questionnaire's JSON goes in; spreadsheet formulas in every
cell that comes back out of a CSV or XLSX export; validation patterns built to backtrack for
ever. Each is refused clearly (a 4xx that says why: problem+json with its `type` and, per
answer, its `code` in the API; a message on the page in the portal) or neutralised (stored as
typed, exported as text no spreadsheet runs); never a 500, never stored half.

Served over loopback on PostgreSQL as the app role (the `live` fixture). Nothing here times
anything: a request that hung would end at the client's 60-second socket timeout, an error.
The drill prints what it tried and how each ended."""

from __future__ import annotations

import csv
import http.client
import io
import re
import uuid
import zipfile
from datetime import UTC, date, datetime, time, timedelta
from http.cookies import SimpleCookie
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import orjson
import pytest
from factories import (
    PASSWORD,
    Ref,
    bearer,
    create_api_key,
    create_carrier,
    create_driver,
    create_user,
    csrf_from,
    in_carrier,
    publish_questionnaire,
)
from sqlalchemy import func, select

from attack.support import Answer, Live
from portal.extensions import db

API = "/api/v1"
AMS = ZoneInfo("Europe/Amsterdam")
DEEP = 5_000
PROBLEM = "application/problem+json"

OUTCOMES: dict[str, str] = {}


@pytest.fixture(scope="module", autouse=True)
def summary(request):
    """One line for the whole drill, then a line per case, when the module is done."""
    OUTCOMES.clear()
    failed_before = request.session.testsfailed
    yield
    failed = request.session.testsfailed - failed_before
    if failed:
        print(f"\nhostile input: {len(OUTCOMES)} refused or neutralised; {failed} test(s) failed")
    else:
        print(f"\nhostile input: {len(OUTCOMES)} tried, 0 got through")
    for name, result in OUTCOMES.items():
        print(f"  {name}: {result}")


# --- clients ---------------------------------------------------------------------------------


def send(live: Live, method: str, path: str, data: bytes, headers: dict | None = None) -> Answer:
    """Raw bytes as a JSON body (Live.call encodes Python values, which cannot nest 5,000 deep)."""
    connection = http.client.HTTPConnection(live.host, live.port, timeout=60)
    try:
        sent = {"Connection": "close", "Content-Type": "application/json", **(headers or {})}
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        return Answer(response.status, dict(response.getheaders()), response.read())
    finally:
        connection.close()


class Browser:
    """A portal session over loopback: its cookies kept, forms posted as a browser posts them."""

    def __init__(self, live: Live) -> None:
        self.live = live
        self.cookies: dict[str, str] = {}
        self.token = ""

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> Answer:
        connection = http.client.HTTPConnection(self.live.host, self.live.port, timeout=60)
        try:
            sent = {"Connection": "close", **(headers or {})}
            if self.cookies:
                sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            for header in response.msg.get_all("Set-Cookie") or []:
                jar = SimpleCookie()
                jar.load(header)
                for name, morsel in jar.items():
                    if morsel.value and morsel["max-age"] != "0":
                        self.cookies[name] = morsel.value
                    else:
                        self.cookies.pop(name, None)
            return Answer(response.status, dict(response.getheaders()), response.read())
        finally:
            connection.close()

    def get(self, path: str, htmx: bool = False) -> Answer:
        return self.request("GET", path, headers={"HX-Request": "true"} if htmx else None)

    def post(self, path: str, fields: dict | list, htmx: bool = False) -> Answer:
        pairs = list(fields.items()) if isinstance(fields, dict) else list(fields)
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if htmx:
            headers["HX-Request"] = "true"
        body = urlencode([*pairs, ("csrf_token", self.token)]).encode()
        return self.request("POST", path, body, headers)

    def upload(self, path: str, fields: dict, files: dict[str, tuple[str, bytes]]) -> Answer:
        body, content_type = multipart({**fields, "csrf_token": self.token}, files)
        return self.request("POST", path, body, {"Content-Type": content_type})

    def sign_in(self, user: Ref) -> Browser:
        self.token = csrf_from(self.get("/login").body.decode())
        signed = self.post("/login", {"email": user.email, "password": PASSWORD})
        assert signed.status == 303, signed.body[:500]
        return self


def text_of(answer: Answer) -> str:
    import html

    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", answer.body.decode())).split())


def said(answer: Answer, fragment: str) -> str:
    """The sentence of the page (one element's text) that holds fragment."""
    import html

    page = html.unescape(answer.body.decode())
    found = re.search(rf">([^<]*{re.escape(fragment)}[^<]*)<", page)
    assert found, (fragment, text_of(answer)[:500])
    return " ".join(found.group(1).split()).lstrip("— ")


def multipart(fields: dict, files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = "rijplan-drill-" + uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    for name, (filename, data) in files.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
            + data
            + b"\r\n"
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


# --- the database, as the app role sees it ------------------------------------------------------


def rows(app, carrier: Ref, *models) -> tuple[int, ...]:
    return in_carrier(
        app,
        carrier.id,
        lambda: tuple(
            db.session.scalar(select(func.count()).select_from(model)) for model in models
        ),
    )


def draft_state(app, carrier: Ref) -> dict:
    """Every draft's (versie, definition) and the revisions' count: what an import may change."""
    from portal.questionnaires.models import ActivityQuestionnaire, QuestionnaireDraft

    def read():
        drafts = db.session.execute(
            select(
                QuestionnaireDraft.questionnaire_id,
                QuestionnaireDraft.versie,
                QuestionnaireDraft.definition,
            )
        ).all()
        revisions = db.session.scalar(select(func.count()).select_from(ActivityQuestionnaire))
        return {"drafts": {d[0]: (d[1], d[2]) for d in drafts}, "revisions": revisions}

    return in_carrier(app, carrier.id, read)


def refused_by_api(answer: Answer, *statuses: int) -> str:
    """The API's refusal, checked: a 4xx of statuses as problem+json; its type and codes."""
    assert answer.status in statuses, (answer.status, answer.body[:500])
    assert answer.headers.get("Content-Type", "").startswith(PROBLEM), answer.headers
    problem = answer.json()
    kind = problem["type"].rsplit("/", 1)[-1]
    codes = sorted({e["code"] for e in problem.get("errors") or [] if e.get("code")})
    return f"{answer.status} {kind}" + (f" ({', '.join(codes)})" if codes else "")


# === 1. JSON nested 5,000 deep, and bodies over the limit ======================================


def objects(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


def lists(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def nested_questions(depth: int, questionnaire_id: str = "diep") -> bytes:
    """A questionnaire definition whose groups hold a group, `depth` groups deep."""
    head = (
        b'{"schema_version":1,"questionnaire_id":"' + questionnaire_id.encode() + b'",'
        b'"title":"Diep","activity_type":"diep_laden","questions":'
    )
    level = b'[{"id":"g","type":"group","label":"Groep","questions":'
    return head + level * depth + b"[]" + b"}]" * depth + b"}"


ANSWERS_DOC = {
    "schema_version": 1,
    "questionnaire_id": "lossen",
    "title": "Lossen",
    "activity_type": "mest_lossen",
    "questions": [
        {"id": "gewicht", "type": "number", "label": "Gewicht", "unit": "kg"},
        {"id": "opmerking", "type": "text", "label": "Opmerking"},
        {"id": "plek", "type": "location", "label": "Plek"},
        {"id": "soort", "type": "multiselect", "label": "Soort", "options": ["vast", "dun"]},
        {
            "id": "toelichting",
            "type": "text",
            "label": "Toelichting",
            "visible_if": {"question_id": "gewicht", "operator": "gt", "value": 1000},
        },
    ],
}


def test_json_nested_5000_deep_is_refused_wherever_questionnaire_json_goes_in(live):
    from portal.questionnaires.models import Answer as StoredAnswer
    from portal.questionnaires.models import AnswerSession
    from portal.tasks.models import Task

    app = live.app
    carrier = create_carrier(app, "Van der Berg Agrotransport")
    driver = create_driver(app, carrier)
    key = create_api_key(app, carrier)
    revision = publish_questionnaire(app, carrier, ANSWERS_DOC)
    token = live.call(
        "POST",
        f"{API}/auth/token",
        {"grant_type": "password", "username": driver.email, "password": PASSWORD},
    ).json()["access_token"]

    # --- the API: saving answers, and a task's body (where its `vragenpad` would go) ---------
    answers = f"{API}/questionnaire_answers"
    envelope = b'{"activity_questionnaire_id":"' + str(revision.id).encode() + b'","answers":'
    api_cases = {
        'answers: {"a":{"a":…}} 5,000 deep as the whole body': (answers, objects(DEEP), (400,)),
        "answers: [[[…]]] 5,000 deep as the whole body": (answers, lists(DEEP), (400,)),
        "answers: one answer nested 5,000 deep": (
            answers,
            envelope + b'{"opmerking":' + lists(DEEP) + b"}}",
            (400,),
        ),
        # Under the parser's own limit (1,024): the body parses, the engine must cope.
        "answers: a number answered by a list 1,000 deep": (
            answers,
            envelope + b'{"gewicht":' + lists(1000) + b"}}",
            (422,),
        ),
        "answers: a location answered by objects 1,000 deep": (
            answers,
            envelope + b'{"plek":{"lat":' + objects(998) + b',"lng":5}}}',
            (422,),
        ),
        "answers: a multiselect answered by lists 1,000 deep": (
            answers,
            envelope + b'{"soort":' + lists(1000) + b"}}",
            (422,),
        ),
        "answers: a hidden question answered by objects 1,000 deep": (
            answers,
            envelope + b'{"gewicht":5,"toelichting":' + objects(1000) + b"}}",
            (201, 422),
        ),
        "answers: an unknown question answered by lists 1,000 deep": (
            answers,
            envelope + b'{"bestaat_niet":' + lists(1000) + b"}}",
            (422,),
        ),
        "answers: the questions of a definition nested 5,000 deep as an answer": (
            answers,
            envelope + b'{"opmerking":' + nested_questions(DEEP) + b"}}",
            (400,),
        ),
        "task: a vragenpad whose questions nest 5,000 deep": (
            f"{API}/users/{driver.user_token}/taken",
            b'{"naam":"Diep","type":"mest_lossen","vragenpad":' + nested_questions(DEEP) + b"}",
            (400,),
        ),
        "task: a vragenpad whose questions nest 400 deep (under the parser's limit)": (
            f"{API}/users/{driver.user_token}/taken",
            b'{"naam":"Diep","type":"mest_lossen","vragenpad":' + nested_questions(400) + b"}",
            (422,),
        ),
        "answers: 1.5 MB of shallow JSON (over the 1 MB limit)": (
            answers,
            envelope + b'{"opmerking":"' + b"x" * 1_500_000 + b'"}}',
            (413,),
        ),
    }
    for name, (path, body, statuses) in api_cases.items():
        caller = token if "answers" in path else key.key
        before = rows(app, carrier, AnswerSession, StoredAnswer, Task)
        answer = send(live, "POST", path, body, bearer(caller))
        if answer.status == 201 and 201 in statuses:  # the hidden answer is dropped
            stored = answer.json()["answers"]
            assert stored == {"gewicht": 5}, stored
            OUTCOMES[f"deep JSON / {name}"] = "201, neutralised: the hidden answer not stored"
            continue
        outcome = refused_by_api(answer, *statuses)
        assert rows(app, carrier, AnswerSession, StoredAnswer, Task) == before, name
        OUTCOMES[f"deep JSON / {name}"] = f"refused: {outcome}, nothing stored"

    # --- the portal's builder: import a new questionnaire, import into a draft, edit a field ---
    author = create_user(app, carrier, "author")
    browser = Browser(live).sign_in(author)
    browser.token = csrf_from(browser.get("/vragenlijsten/importeren").body.decode())
    made = browser.upload(
        "/vragenlijsten/importeren",
        {"json": orjson.dumps({**ANSWERS_DOC, "questionnaire_id": "kuikens"}).decode()},
        {},
    )
    assert made.status == 303, made.body[:500]
    base = "/vragenlijsten/kuikens/concept"

    new, draft = "/vragenlijsten/importeren", f"{base}/importeren"
    # fmt: off
    portal_cases = {
        'new questionnaire, pasted: {"a":{"a":…}} 5,000 deep':
            (new, "json", objects(DEEP), 422, "te diep genest"),
        "new questionnaire, file: [[[…]]] 5,000 deep":
            (new, "bestand", lists(DEEP), 422, "te diep genest"),
        "new questionnaire, file: its questions nested 5,000 deep":
            (new, "bestand", nested_questions(DEEP), 422, "te diep genest"),
        "new questionnaire, pasted: its questions nested 400 deep":
            (new, "json", nested_questions(400), 422, "te diep genest"),
        "draft, file: its questions nested 5,000 deep":
            (draft, "bestand", nested_questions(DEEP, "kuikens"), 422, "te diep genest"),
        'draft, pasted: {"a":{"a":…}} 5,000 deep':
            (draft, "json", objects(DEEP), 422, "te diep genest"),
        "draft, pasted: its questions nested 30 deep":
            (draft, "json", nested_questions(30, "kuikens"), 422, "te diep genest"),
        "draft, file: 1.2 MB of shallow JSON (over the 1 MB limit)":
            (draft, "bestand", b'{"title":"' + b"x" * 1_200_000 + b'"}', 413, "hoogstens 1 MB"),
    }
    # fmt: on
    for name, (path, part, body, status, message) in portal_cases.items():
        before = draft_state(app, carrier)
        if part == "json":
            answer = browser.upload(path, {"json": body.decode()}, {})
        else:
            answer = browser.upload(path, {}, {"bestand": ("vragen.json", body)})
        assert answer.status == status, (name, answer.status, text_of(answer)[:300])
        shown = text_of(answer)
        assert message in shown, (name, shown[:500])
        assert draft_state(app, carrier) == before, f"{name}: something was stored"
        OUTCOMES[f"deep JSON / builder {name}"] = (
            f"refused: {status} “{said(answer, message)}”, nothing stored"
        )

    # The editor's own edits address a question by its path: one 5,000 levels deep.
    deep_path = ".".join(["0"] * DEEP)
    edits = {
        "field save": ("vraag", {"pad": deep_path, "velden": "label", "label": "Gekaapt"}),
        "removal": ("vraag/verwijderen", {"pad": deep_path}),
        "move": ("vraag/verplaatsen", {"pad": deep_path, "richting": "neer"}),
    }
    for name, (action, fields) in edits.items():
        before = draft_state(app, carrier)
        versie = str(before["drafts"]["kuikens"][0])
        answer = browser.post(f"{base}/{action}", {**fields, "versie": versie}, htmx=True)
        assert answer.status == 422, (name, answer.status, text_of(answer)[:300])
        assert draft_state(app, carrier) == before, f"{name}: the draft changed"
        OUTCOMES[f"deep JSON / builder {name} at a question path 5,000 levels deep"] = (
            f"refused: 422 “{said(answer, 'Deze vraag bestaat niet')}”, nothing stored"
        )


# === 2. Spreadsheet formulas in every cell that comes back out ====================================

PAYLOADS = {
    "=HYPERLINK": '=HYPERLINK("http://x.example","klik")',
    "=cmd DDE": "=cmd|' /C calc'!A0",
    "+": "+1+cmd|' /C calc'!A0",
    "-": "-2+3+cmd|' /C calc'!A0",
    "@": "@SUM(1+1)*cmd|' /C calc'!A0",
    "tab": "\t=1+1",
    "CR": "\r=1+1",
}
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")


def typed_forms(payload: str) -> set[str]:
    """What a field may hold after the value was typed: as typed, or with the spaces around it
    trimmed (every form and the API trim)."""
    return {payload, payload.strip()}


def check_csv(body: bytes, delimiter: str = ";") -> list[str]:
    """Every cell of a CSV export: none starts a formula (a number may start with '-'); the
    neutralised cells (a quote before a formula's first character) are returned."""
    cells = [
        cell
        for line in csv.reader(
            io.StringIO(body.decode("utf-8-sig"), newline=""), delimiter=delimiter
        )
        for cell in line
    ]
    for cell in cells:
        assert not cell.startswith(FORMULA_START) or NUMBER.fullmatch(cell), cell
    return [cell[1:] for cell in cells if cell[:1] == "'" and cell[1:2] in FORMULA_START]


def check_xlsx(body: bytes) -> list[str]:
    """Every cell of an XLSX export is a value, no formula (in the file's XML and as openpyxl
    reads it); the text cells that would have been formulas are returned."""
    from openpyxl import load_workbook

    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        for name in archive.namelist():
            if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                xml = archive.read(name)
                assert b"<f>" not in xml and b"<f " not in xml, name
    texts = []
    for sheet in load_workbook(io.BytesIO(body)).worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (sheet.title, cell.coordinate, cell.value)
                if isinstance(cell.value, str) and cell.value.startswith(FORMULA_START):
                    assert cell.data_type in ("s", "inlineStr"), (cell.coordinate, cell.data_type)
                    texts.append(cell.value)
    return texts


def test_formulas_typed_anywhere_come_out_of_every_export_as_text(live):
    from portal.tacho.ddd.build import card_file, changes_from_timeline
    from portal.tasks.models import Task

    app = live.app
    carrier = create_carrier(app, "Van der Berg Agrotransport")
    key = create_api_key(app, carrier)
    planner = create_user(app, carrier, "planner")
    browser = Browser(live).sign_in(planner)
    browser.token = csrf_from(browser.get("/chauffeurs/nieuw").body.decode())
    plain = create_driver(app, carrier, "Jan Chauffeur", email="jan@example.nl")

    # --- names typed in the portal's driver form ----------------------------------------
    drivers: dict[str, dict] = {}
    for label, payload in PAYLOADS.items():
        email = f"bestuurder-{len(drivers)}@example.nl"
        form = {"naam": payload, "email": email, "telefoon": "", "taal": "nl"}
        made = browser.post("/chauffeurs/nieuw", form)
        if "\r" in payload:
            # A line break has no place in a one-line field: refused at the field, nothing
            # stored. A browser's text input drops it itself; that is what is sent next.
            assert made.status == 422, (label, made.status)
            assert "onzichtbaar stuurteken (U+000D)" in text_of(made)
            made = browser.post("/chauffeurs/nieuw", {**form, "naam": payload.strip()})
        assert made.status == 303, (label, made.status, text_of(made)[:300])
        drivers[label] = {"email": email}
    listed = live.call(
        "GET", f"{API}/transporteurs/{carrier.id}/chauffeurs?limit=100", headers=bearer(key.key)
    )
    assert listed.status == 200, listed.body[:300]
    by_email = {d["email"]: d for d in listed.json()}
    for label, payload in PAYLOADS.items():
        found = by_email[drivers[label]["email"]]
        assert found["naam"] in typed_forms(payload), (label, found["naam"])
        drivers[label] = found
    OUTCOMES["formulas / typed as a driver's name (portal form)"] = (
        f"stored as typed (trimmed): {len(PAYLOADS)} of {len(PAYLOADS)}; a line break in the "
        "one-line name refused at its field first"
    )

    # --- a CSV of tasks through the portal's import ----------------------------------------
    header = [
        "naam",
        "type",
        "chauffeur",
        "adres",
        "stad",
        "contactpersoon",
        "opmerkingen",
        "eenheid",
        '=HYPERLINK("http://x.example","kolom")',
    ]
    out = io.StringIO(newline="")
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(header)
    for label, payload in PAYLOADS.items():
        cells = [
            payload,
            "mest_laden",
            drivers[label]["email"],
            payload,
            payload,
            payload,
            payload,
            payload[:20],
            payload,
        ]
        writer.writerow(cells)
        writer.writerow([payload, "geen soort!", plain.email, *[payload] * 6])  # refused row
    raw = out.getvalue().encode("utf-8")
    tasks_before = rows(app, carrier, Task)
    browser.token = csrf_from(browser.get("/taken/import").body.decode())
    uploaded = browser.upload("/taken/import", {}, {"bestand": ("taken.csv", raw)})
    assert uploaded.status == 303, (uploaded.status, text_of(uploaded)[:500])
    preview = uploaded.headers["Location"].removeprefix(f"http://{live.host}:{live.port}")
    assert browser.get(preview).status == 200
    imported = browser.post(preview, {})
    assert imported.status == 303, text_of(imported)[:300]
    assert rows(app, carrier, Task)[0] == tasks_before[0] + len(PAYLOADS)
    OUTCOMES["formulas / a CSV of tasks through the portal's import"] = (
        f"stored as typed (trimmed): {len(PAYLOADS)} valid rows imported, "
        f"{len(PAYLOADS)} refused rows reported"
    )

    report = browser.get(preview + "/fouten.csv")
    assert report.status == 200 and report.headers["Content-Type"].startswith("text/csv")
    defused = check_csv(report.body)
    for label, payload in PAYLOADS.items():
        assert payload.strip() in defused or payload in defused, (label, defused)
    OUTCOMES["formulas / CSV import's error report (fouten.csv)"] = (
        f"neutralised: {len(defused)} cells quoted, none starts a formula"
    )

    # --- and typed through the API by an integration --------------------------------------
    payload_driver = drivers["=HYPERLINK"]
    for label, payload in PAYLOADS.items():
        created = live.call(
            "POST",
            f"{API}/users/{payload_driver['user_token']}/taken",
            {
                "naam": payload,
                "type": "mest_laden",
                "omschrijving": payload,
                "opmerkingen": payload,
                "adres": payload,
                "eenheid": payload[:20],
            },
            bearer(key.key),
        )
        assert created.status == 201, (label, created.body[:300])
        assert created.json()["naam"] in typed_forms(payload)
        assert created.json()["opmerkingen"] in typed_forms(payload)

    # Every task (imported and created) is completed; its remarks reported for billing.
    listed = live.call(
        "GET", f"{API}/transporteurs/{carrier.id}/taken?limit=1000", headers=bearer(key.key)
    )
    tasks = listed.json()
    assert len(tasks) == 2 * len(PAYLOADS)
    for field in ("naam", "adres", "opmerkingen"):
        held = {task[field] for task in tasks}
        assert all(typed_forms(payload) & held for payload in PAYLOADS.values()), field
    OUTCOMES["formulas / typed as a task's name, address, remarks (API)"] = (
        f"stored as typed (trimmed): {len(PAYLOADS)} tasks"
    )
    reports = list(PAYLOADS.values())
    for number, task in enumerate(tasks):
        started = live.call(
            "PATCH", f"{API}/taken/{task['id']}/status", {"status": "gestart"}, bearer(key.key)
        )
        assert started.status == 200, started.body[:300]
        remark = reports[number % len(reports)]
        done = live.call(
            "POST",
            f"{API}/taken/{task['id']}/afronding",
            {"opmerkingen": remark, "eenheid": remark[:20], "hoeveelheid": 3},
            bearer(key.key),
        )
        assert done.status == 200, done.body[:300]
        assert done.json()["facturatieregel"]["opmerkingen"] in typed_forms(remark)
    OUTCOMES["formulas / typed as remarks and unit of a completion (API)"] = (
        f"stored as typed (trimmed): {len(tasks)} billing lines"
    )

    # --- hours: a work day of each driver whose name is a formula ---------------------------
    today = datetime.now(AMS).date()
    yesterday = today - timedelta(days=1)

    def moment(day: date, clock: str) -> str:
        hour, minute = map(int, clock.split(":"))
        local = datetime.combine(day, time(hour, minute), tzinfo=AMS)
        return local.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    for label, found in drivers.items():
        day = live.call(
            "POST",
            f"{API}/users/{found['user_token']}/werkdagen",
            {
                "gestart_op": moment(yesterday, "07:00"),
                "beeindigd_op": moment(yesterday, "12:00"),
                "opmerking": PAYLOADS[label],
            },
            bearer(key.key),
        )
        assert day.status == 201, (label, day.body[:300])
        activity = live.call(
            "POST",
            f"{API}/werkdagen/{day.json()['id']}/activiteiten",
            {
                "soort": "rijden",
                "begin": moment(yesterday, "07:00"),
                "einde": moment(yesterday, "11:00"),
                "opmerking": PAYLOADS[label],
            },
            bearer(key.key),
        )
        assert activity.status == 201, (label, activity.body[:300])

    # --- a driver card download with an infringement, for the formula-named driver -----------
    d1 = today - timedelta(days=3)

    def at(day: date, clock: str) -> datetime:
        hour, minute = map(int, clock.split(":"))
        return datetime.combine(day, time(hour, minute), tzinfo=UTC)

    days = changes_from_timeline(
        [
            (at(d1, "00:00"), "rust"),
            (at(d1, "04:00"), "rijden"),
            (at(d1, "09:00"), "rust"),
            (at(d1, "12:00"), "rust"),
        ]
    )
    card = card_file(
        kaartnummer="NB12345678901000",
        achternaam="=cmd|' /C calc'!A0",
        voornamen="@SUM(1+1)",
        dagen=days,
        download_time=at(today - timedelta(days=1), "20:00"),
    )
    body, content_type = multipart(
        {"user_token": payload_driver["user_token"]}, {"file": ("kaart.ddd", card)}
    )
    stored = send(
        live,
        "POST",
        f"{API}/transporteurs/{carrier.id}/tacho_files",
        body,
        {**bearer(key.key), "Content-Type": content_type},
    )
    assert stored.status == 201, stored.body[:300]

    # --- every export that shows them ------------------------------------------------------
    period = f"van={(today - timedelta(days=7)).isoformat()}&tot={today.isoformat()}"
    confirm = browser.get(f"/facturatie/export?{period}&formaat=csv")
    assert confirm.status == 200, text_of(confirm)[:300]
    form = dict(
        re.findall(r'name="(van|tot|chauffeur|formaat)" value="([^"]*)"', confirm.body.decode())
    )
    browser.token = csrf_from(confirm.body.decode())
    exported = browser.post("/facturatie/export", form)
    assert exported.status == 303, text_of(exported)[:300]
    page = browser.get(exported.headers["Location"].removeprefix(f"http://{live.host}:{live.port}"))
    export_id = re.search(r"/facturatie/exports/([0-9a-f-]{36})\.csv", page.body.decode()).group(1)

    downloads = {
        "billing export (CSV)": f"/facturatie/exports/{export_id}.csv",
        "billing export (XLSX)": f"/facturatie/exports/{export_id}.xlsx",
        "hours export (CSV)": f"/uren/export.csv?{period}",
        "hours export (XLSX)": f"/uren/export.xlsx?{period}",
        "infringements for the driver's signature (CSV)": f"/rijtijden/overtredingen?{period}"
        "&formaat=csv",
        "infringements for the driver's signature (XLSX)": f"/rijtijden/overtredingen?{period}"
        "&formaat=xlsx",
    }
    seen: set[str] = set()
    for name, path in downloads.items():
        answer = browser.get(path)
        assert answer.status == 200, (name, answer.status, text_of(answer)[:300])
        if "(CSV)" in name:
            assert answer.headers["Content-Type"].startswith("text/csv"), name
            found = check_csv(answer.body)
            kind = "quoted"
        else:
            assert "spreadsheetml" in answer.headers["Content-Type"], name
            found = check_xlsx(answer.body)
            kind = "text cells, no formula"
        assert found, f"{name}: none of the hostile values came out (the drill saw nothing)"
        seen.update(found)
        OUTCOMES[f"formulas / {name}"] = f"neutralised: {len(found)} cells {kind}"
    for label, payload in PAYLOADS.items():
        assert typed_forms(payload) & seen, f"{label} was in no export"


# === 3. Validation patterns that backtrack for ever ==============================================

EVIL_PATTERNS = {
    "(a+)+$": "a" * 30,
    "(a|aa)+$": "a" * 30,
    "(.*a){25}": "a" * 30,
    "^(\\w+\\s?)*$": "a a a",
    # A large program, still under the limit of steps (1,654 of 2,000): linear and quick.
    "(.*a){150}": "a" * 150,
}
INVALID = "Dit patroon is geen geldige reguliere expressie (RE2)"
BROKEN_PATTERNS = {
    "backreference (a)\\1": ("(a)\\1", INVALID),
    "lookahead (?=a)": ("(?=a)", INVALID),
    # RE2 runs it, in linear time, but 0.4 s per long answer: 11,004 steps.
    "pattern too complex (.*a){1000}": ("(.*a){1000}", "Dit patroon is te ingewikkeld"),
}
HOSTILE = "a" * 9_999 + "!"  # the longest text an answer may be, so the pattern runs on it
TOO_LONG = "a" * 50_000 + "!"


def patterns_doc(questionnaire_id: str, patterns) -> dict:
    return {
        "schema_version": 1,
        "questionnaire_id": questionnaire_id,
        "title": "Patronen",
        "activity_type": "patroon_controle",
        "questions": [
            {
                "id": f"p{i}",
                "type": "text",
                "label": f"Patroon {i}",
                "validation": {"regex": pattern},
            }
            for i, pattern in enumerate(patterns)
        ],
    }


def test_patterns_run_in_bounded_time_and_broken_ones_are_refused_when_saved(live):
    from portal.questionnaires.models import Answer as StoredAnswer
    from portal.questionnaires.models import AnswerSession

    app = live.app
    carrier = create_carrier(app, "Van der Berg Agrotransport")
    driver = create_driver(app, carrier)
    author = create_user(app, carrier, "author")
    browser = Browser(live).sign_in(author)
    browser.token = csrf_from(browser.get("/vragenlijsten/importeren").body.decode())
    patterns = list(EVIL_PATTERNS)

    # The author defines the patterns in the builder (imported, then checked in the preview).
    made = browser.upload(
        "/vragenlijsten/importeren",
        {"json": orjson.dumps(patterns_doc("patronen", patterns)).decode()},
        {},
    )
    assert made.status == 303, text_of(made)[:300]
    assert "geen problemen" in text_of(browser.get("/vragenlijsten/patronen/concept"))
    ids = [f"p{i}" for i in range(len(patterns))]
    tried = browser.post(
        "/vragenlijsten/patronen/concept/voorbeeld",
        [("getoond", ",".join(ids)), ("controleer", "1"), *((f"a-{q}", HOSTILE) for q in ids)],
        htmx=True,
    )
    assert tried.status == 200, text_of(tried)[:300]
    assert text_of(tried).count("Dit heeft niet de gevraagde vorm.") == len(ids)
    OUTCOMES["patterns / builder preview: 10,000 characters against each"] = (
        f"refused: 200, “Dit heeft niet de gevraagde vorm.” at all {len(ids)} questions"
    )

    publish_page = browser.get("/vragenlijsten/patronen/publiceren")
    versie = re.search(r'name="versie" value="(\d+)"', publish_page.body.decode()).group(1)
    published = browser.post("/vragenlijsten/patronen/publiceren", {"versie": versie})
    assert published.status == 303, text_of(published)[:300]
    token = _token(live, driver)
    listing = live.call(
        "GET",
        f"{API}/activity_questionnaires?activity_type=patroon_controle",
        headers=bearer(token),
    )
    revision_id = listing.json()[0]["id"]

    # A driver answers: the longest text allowed, and far more than that.
    for qid, pattern in zip(ids, patterns, strict=True):
        for label, text, expected in (
            ("10,000 characters", HOSTILE, "pattern_mismatch"),
            ("50,001 characters", TOO_LONG, "too_large"),
        ):
            before = rows(app, carrier, AnswerSession, StoredAnswer)
            answer = live.call(
                "POST",
                f"{API}/questionnaire_answers",
                {"activity_questionnaire_id": revision_id, "answers": {qid: text}},
                bearer(token),
            )
            outcome = refused_by_api(answer, 422)
            errors = answer.json()["errors"]
            assert [e["field"] for e in errors] == [f"answers.{qid}"], errors
            assert errors[0]["code"] == expected, errors
            assert rows(app, carrier, AnswerSession, StoredAnswer) == before
            OUTCOMES[f"patterns / API answer of {label} to {pattern}"] = (
                f"refused: {outcome}, nothing stored"
            )
    # The same patterns pass what they should: the check is a check, not a wall.
    fine = live.call(
        "POST",
        f"{API}/questionnaire_answers",
        {
            "activity_questionnaire_id": revision_id,
            "answers": dict(zip(ids, EVIL_PATTERNS.values(), strict=True)),
        },
        bearer(token),
    )
    assert fine.status == 201, fine.body[:500]

    OUTCOMES["patterns / API answers that fit the same patterns"] = (
        "accepted: 201 (a check, not a wall)"
    )

    # Patterns RE2 cannot run are refused where the author types them, and never published.
    made = browser.upload(
        "/vragenlijsten/importeren",
        {"json": orjson.dumps(patterns_doc("kapot", ["[0-9]+"])).decode()},
        {},
    )
    assert made.status == 303, text_of(made)[:300]
    for name, (pattern, message) in BROKEN_PATTERNS.items():
        before = draft_state(app, carrier)
        saved = browser.post(
            "/vragenlijsten/kapot/concept/vraag",
            {
                "pad": "0",
                "velden": "validation",
                "validation.regex": pattern,
                "validation.minlength": "",
                "validation.maxlength": "",
                "versie": str(before["drafts"]["kapot"][0]),
            },
            htmx=True,
        )
        assert saved.status == 200, text_of(saved)[:300]
        assert message in text_of(saved), text_of(saved)[:500]
        page = browser.get("/vragenlijsten/kapot/publiceren")
        versie = re.search(r'name="versie" value="(\d+)"', page.body.decode()).group(1)
        refused = browser.post("/vragenlijsten/kapot/publiceren", {"versie": versie})
        assert refused.status == 422, text_of(refused)[:300]
        assert "Niet gepubliceerd" in text_of(refused)
        assert draft_state(app, carrier)["revisions"] == before["revisions"]
        OUTCOMES[f"patterns / builder field save of a {name}"] = (
            f"refused at the field: “{said(saved, message)}”; publishing 422, no revision"
        )
    imported = browser.upload(
        "/vragenlijsten/kapot/concept/importeren",
        {"json": orjson.dumps(patterns_doc("kapot", ["(?=a)", "(a)\\1"])).decode()},
        {},
    )
    assert imported.status == 303
    note = text_of(browser.get("/vragenlijsten/kapot/concept"))
    assert note.count("geen geldige reguliere expressie (RE2)") >= 2, note[:500]
    page = browser.get("/vragenlijsten/kapot/publiceren")
    versie = re.search(r'name="versie" value="(\d+)"', page.body.decode()).group(1)
    before = draft_state(app, carrier)["revisions"]
    assert browser.post("/vragenlijsten/kapot/publiceren", {"versie": versie}).status == 422
    assert draft_state(app, carrier)["revisions"] == before
    OUTCOMES["patterns / builder import of both broken patterns"] = (
        "flagged at both fields; publishing 422, no revision"
    )


def _token(live: Live, driver: Ref) -> str:
    answer = live.call(
        "POST",
        f"{API}/auth/token",
        {"grant_type": "password", "username": driver.email, "password": PASSWORD},
    )
    assert answer.status == 200, answer.body[:300]
    return answer.json()["access_token"]
