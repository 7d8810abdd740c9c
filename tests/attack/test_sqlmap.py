"""SQL injection, black-box: sqlmap against the live instance (loopback, PostgreSQL as the app
role) over every query parameter of the API's lists, the JSON bodies of its creates and
updates, its path parameters (marked `*`), the portal's filter forms and its plain-text path
parameters (signed in as an admin: a session cookie, redirects not followed). An injection
point sqlmap confirms, a page showing PostgreSQL's error, or a server error fails the drill.
A deliberately vulnerable app, attacked the same way, proves the drill finds one."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import psycopg
from factories import PASSWORD, bearer, create_user, driver_token, login, served
from test_isolation import populate, route_values

from attack.support import Live

SQLMAP = Path(sys.executable).with_name("sqlmap")  # requirements-dev.txt pins it
PARALLEL = 4  # sqlmap processes at once: with the server, they keep two cores busy
RUN_TIMEOUT = 240  # seconds for one sqlmap process (the slowest takes ~45 on 2 cores)
BUDGET = 600  # seconds for all of them (~125 on 2 cores): none starts after that
TARGET_HEADER = "X-Drill-Target"  # names the target in each request, for the count
USER_AGENT = "rijplan-sqlmap-drill"  # the portal session is signed in with this agent

# Level 1 and risk 1: every parameter gets sqlmap's standard battery (boolean-based blind,
# error-based, UNION, stacked and time-based, each with the level-1 prefixes and suffixes);
# level 2 and up add cookies and headers as places and many more boundaries, for minutes per
# parameter, and risk 2 and up add OR payloads, which rewrite every row of an UPDATE. The
# back end is known: only PostgreSQL's payloads. A time-based payload sleeps 2 seconds, and
# only where it is injected: answers that do not sleep cost nothing, and sqlmap counts an
# answer as delayed above its mean plus 7 standard deviations, which a loaded 2-core machine
# pushes near one second. Redirects are not followed: an expired session would show up as
# the login page's 302, never as a page to compare.
OPTIONS = [
    "--batch",
    "--flush-session",
    "--disable-coloring",
    "--dbms=PostgreSQL",
    "--level=1",
    "--risk=1",
    "--technique=BEUST",  # boolean-based, error-based, UNION, stacked, time-based
    "--time-sec=2",
    "--timeout=15",
    "--retries=1",
    "--ignore-redirects",
    "--ignore-proxy",
    "--drop-set-cookie",
    "--skip-waf",
    f"--user-agent={USER_AGENT}",
]


# What fails the drill: an injection point sqlmap confirmed, or a page that shows the
# database's error (sqlmap's heuristic then names the DBMS it recognised).
FINDING = re.compile(
    r"sqlmap identified the following injection point.*|.*parameter '[^']+' is vulnerable.*"
    r"|.*might be SQL injectable \(possible DBMS.*"
)
# What sqlmap suspected and then refuted itself (its false-positive checks): shown, not failed.
SUSPECTED = re.compile(r"parameter '([^']+)' appears to be '([^']+)' injectable")
NOT_INJECTABLE = re.compile(r"parameter '([^']+)' does not seem to be injectable")
# sqlmap's own CRITICAL lines that end no test: its summary, a retry when a create answers
# a new id every time, and its note that answers lag (a loaded shared machine: timing, not a
# finding). Any other (not authorised, connection lost, page not found) fails.
CRITICAL = re.compile(
    r"\[CRITICAL\] (?!all tested parameters do not appear to be injectable"
    r"|target URL content appears to be heavily dynamic"
    r"|considerable lagging has been detected).*"
)
ERROR_CODES = re.compile(r"HTTP error codes detected during run:\s*\n?(.*)")
ERROR_CODE = re.compile(r"(\d{3}) \([^)]*\) - (\d+) times")


@dataclass
class Target:
    name: str
    path: str  # with its query string; `*` marks an injection point in the path
    params: list[str]  # what sqlmap must report as tested ("JSON naam", "#1*" for a mark)
    method: str = "GET"
    body: str | None = None  # JSON: sqlmap tests each value
    headers: dict = field(default_factory=dict)
    cookie: str | None = None
    expected: int = 200  # the status of the request as given
    marker: str | None = None  # in the page when true (--string); else sqlmap compares pages


@dataclass
class Run:
    target: Target
    seconds: float
    returncode: int | None
    output: str
    findings: list[str]
    suspected: list[tuple[str, str]]
    tested: set[str]
    critical: list[str]
    error_codes: dict[int, int]
    log: str  # sqlmap's <output-dir>/127.0.0.1/log: the injection points it found


def tag(target: Target) -> str:
    """The target's name as a header value: no `*`, which sqlmap would take for a mark."""
    return re.sub(r"[^A-Za-z0-9/{}._-]+", "_", target.name)


class RequestCount:
    """Around a WSGI app: the requests and statuses per target (the drill's header)."""

    def __init__(self, wsgi_app) -> None:
        self.wsgi_app = wsgi_app
        self.lock = threading.Lock()
        self.requests: Counter = Counter()
        self.statuses: dict[str, Counter] = {}
        self.server_errors: list[str] = []

    def __call__(self, environ, start_response):
        name = environ.get("HTTP_" + TARGET_HEADER.upper().replace("-", "_"), "-")

        def counting(status, headers, exc_info=None):
            self.note(name, environ, int(status.split()[0]))
            return start_response(status, headers, exc_info)

        try:
            return self.wsgi_app(environ, counting)
        except Exception:
            self.note(name, environ, 500)  # the server answers it with a 500
            raise

    def note(self, name: str, environ: dict, code: int) -> None:
        with self.lock:
            self.requests[name] += 1
            self.statuses.setdefault(name, Counter())[code] += 1
            if code >= 500:
                query = environ.get("QUERY_STRING")
                path = environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
                self.server_errors.append(f"{name}: {environ['REQUEST_METHOD']} {path} {code}")


def sqlmap(target: Target, base: str, output_dir: Path, deadline: float | None = None) -> Run:
    """sqlmap on one target, as a subprocess bounded in time; what it found."""
    headers = {**target.headers, TARGET_HEADER: tag(target)}
    command = [
        str(SQLMAP),
        f"--url={base}{target.path}",
        f"--method={target.method}",
        f"--output-dir={output_dir}",
        "--headers=" + "\n".join(f"{k}: {v}" for k, v in headers.items()),
        *OPTIONS,
    ]
    if target.body is not None:
        command.append(f"--data={target.body}")
    if target.cookie:
        command.append(f"--cookie={target.cookie}")
    if target.marker:
        command.append(f"--string={target.marker}")
    home = output_dir / "home"  # sqlmap keeps a history folder in the home directory
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home), "TERM": "dumb"}
    started = time.monotonic()
    timeout = RUN_TIMEOUT if deadline is None else min(RUN_TIMEOUT, deadline - started)
    try:
        if timeout <= 0:
            raise subprocess.TimeoutExpired(command, 0, output=b"not started: budget spent")
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
        output, returncode = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as expired:
        raw = expired.stdout or b""  # bytes, whatever text= said
        output = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
        returncode = None
    seconds = time.monotonic() - started
    (output_dir / "stdout.txt").write_text(output)  # for a look after a failure
    logs = [p.read_text(errors="replace") for p in output_dir.glob("*/log")]
    codes: Counter = Counter()
    for match in ERROR_CODES.finditer(output):
        for code, times in ERROR_CODE.findall(match.group(1)):
            codes[int(code)] += int(times)
    return Run(
        target=target,
        seconds=seconds,
        returncode=returncode,
        output=output,
        findings=sorted({m.group(0).strip() for m in FINDING.finditer(output)}),
        suspected=SUSPECTED.findall(output),
        tested=set(NOT_INJECTABLE.findall(output)),
        critical=CRITICAL.findall(output),
        error_codes=dict(codes),
        log="".join(logs).strip(),
    )


def query_params(path: str) -> list[str]:
    return list(parse_qs(urlsplit(path).query, keep_blank_values=True))


def json_target(name, method, path, body: dict, headers: dict, expected=200) -> Target:
    """A JSON body: sqlmap tests every value, nested ones too (named by their own key)."""

    def names(doc: dict) -> list[str]:
        return [
            found
            for key, value in doc.items()
            for found in (names(value) if isinstance(value, dict) else [f"JSON {key}"])
        ]

    return Target(name, path, names(body), method, json.dumps(body), headers, expected=expected)


def push_keys() -> dict:
    """A phone browser's push subscription keys: a P-256 point and an auth secret."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from portal.messages.push import b64url

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {"p256dh": b64url(point), "auth": b64url(os.urandom(16))}


# --- the targets ----------------------------------------------------------------------


def api_lists(v: dict, key: str, token: str) -> list[Target]:
    """Every query parameter of the API's lists, with values that find the carrier's rows
    (a boolean-based injection shows as rows found or not)."""
    ut, cid, tid, vid = v["user_token"], v["transporteur_id"], v["task_id"], v["vehicle_id"]
    window = "van=2020-01-01&tot=2099-12-31"
    page = "limit=50&offset=0"
    lists = [
        (
            "GET /taken",
            f"/api/v1/taken?q=boekelo&status=gepland&chauffeur={ut}&type=mest_laden&{window}&{page}",
        ),
        ("GET /transporteurs/{id}/taken", f"/api/v1/transporteurs/{cid}/taken?vehicle_id={vid}"),
        ("GET /users/{ut}/taken", f"/api/v1/users/{ut}/taken?status=gepland&{window}&{page}"),
        (
            "GET /voertuigen",
            f"/api/v1/voertuigen?q=V&kenteken={v['kenteken']}&soort=vrachtwagen&actief=true&{page}",
        ),
        (
            "GET /vehicle_sessions",
            f"/api/v1/vehicle_sessions?status=active&chauffeur={ut}&vehicle_id={vid}&{page}",
        ),
        (
            "GET /transporteurs/{id}/chauffeurs",
            f"/api/v1/transporteurs/{cid}/chauffeurs?q=jan&actief=true&{page}",
        ),
        (
            "GET /users/{ut}/werkdagen",
            f"/api/v1/users/{ut}/werkdagen?van=2026-11-01&tot=2026-11-30&{page}",
        ),
        (
            "GET /transporteurs/{id}/uren",
            f"/api/v1/transporteurs/{cid}/uren?van=2026-11-16&tot=2026-11-22&{page}",
        ),
        ("GET /users/{ut}/notificaties", f"/api/v1/users/{ut}/notificaties?ongelezen=true"),
        (
            "GET /activity_questionnaires",
            f"/api/v1/activity_questionnaires?activity_type=mest_laden&{page}",
        ),
        (
            "GET /answer_sessions",
            f"/api/v1/answer_sessions?taak_id={tid}&chauffeur={ut}&activity_type=mest_laden"
            f"&status=open&{window}&{page}",
        ),
        (
            "GET /transporteurs/{id}/tacho_files",
            f"/api/v1/transporteurs/{cid}/tacho_files?chauffeur={ut}&soort=bestuurderskaart"
            f"&{window}&{page}",
        ),
        ("GET /tacho_files/{id}", f"/api/v1/tacho_files/{v['tacho_file_id']}?geldig=300"),
        (
            "GET /transporteurs/{id}/overtredingen",
            f"/api/v1/transporteurs/{cid}/overtredingen?van=2026-01-01&tot=2026-12-31"
            f"&chauffeur={ut}",
        ),
    ]
    targets = [Target(name, path, query_params(path), headers=bearer(key)) for name, path in lists]
    # A driver's own list takes another road (its token checked with the list's fingerprint).
    path = f"/api/v1/users/{ut}/taken?status=gepland&{window}&{page}"
    targets.append(
        Target("GET /users/{ut}/taken (driver)", path, query_params(path), headers=bearer(token))
    )
    return targets


def api_paths(v: dict, key: str) -> list[Target]:
    """Path parameters of the API, marked with `*`: a user_token, a task's and a vehicle's id."""
    ut = v["user_token"]
    paths = [
        ("GET /users/{ut*}", f"/api/v1/users/{ut}*"),
        ("GET /users/{ut*}/taken", f"/api/v1/users/{ut}*/taken"),
        ("GET /taken/{id*}", f"/api/v1/taken/{v['task_id']}*"),
        ("GET /voertuigen/{id*}", f"/api/v1/voertuigen/{v['vehicle_id']}*"),
    ]
    return [Target(name, path, ["#1*"], headers=bearer(key)) for name, path in paths]


def api_writes(w: dict) -> list[Target]:
    """The JSON bodies of creates and updates, by a key or the driver's app (in a carrier of
    their own: what they write never changes a page another target compares)."""
    ut, key, driver = w["user_token"], bearer(w["key"]), bearer(w["token"])
    push = {"endpoint": "https://push.example.net/sqlmap", "keys": push_keys()}
    task = {
        "type": "mest_laden",
        "naam": "Order 1",
        "omschrijving": "Mest",
        "artikel": "Mest",
        "eenheid": "ton",
        "adres": "Hengelosestraat 1",
        "postcode": "7514 AE",
        "stad": "Enschede",
        "land": "NL",
        "contactpersoon": "Jan",
        "telefoon": "0612345678",
        "vdm_nummer": "VDM-1",
        "gepland_op": "2026-11-16T08:00:00Z",
        "hoeveelheid": 28,
        "opmerkingen": "x",
    }
    return [
        json_target("POST /users/{ut}/taken", "POST", f"/api/v1/users/{ut}/taken", task, key, 201),
        json_target(
            "PATCH /taken/{id}",
            "PATCH",
            f"/api/v1/taken/{w['task_id']}",
            {
                "naam": "Rit",
                "stad": "Enschede",
                "vehicle_id": w["vehicle_id"],
                "chauffeur_id": w["driver_id"],
                "opmerkingen": "x",
            },
            key,
        ),
        json_target(
            "PATCH /voertuigen/{id}",
            "PATCH",
            f"/api/v1/voertuigen/{w['vehicle_id']}",
            {
                "kenteken": w["kenteken"],
                "soort": "vrachtwagen",
                "omschrijving": "DAF",
                "opmerkingen": "x",
            },
            key,
        ),
        json_target(
            "POST /users/{ut}/notificaties",
            "POST",
            f"/api/v1/users/{ut}/notificaties",
            {"titel": "Let op", "tekst": "Stal 3"},
            key,
            201,
        ),
        json_target(
            "PATCH /werkdagen/{id}",
            "PATCH",
            f"/api/v1/werkdagen/{w['werkdag_id']}",
            {
                "gestart_op": f"{w['day']}T06:00:00Z",
                "beeindigd_op": f"{w['day']}T15:00:00Z",
                "opmerking": "Stal",
            },
            key,
        ),
        json_target(
            "PATCH /activiteiten/{id}",
            "PATCH",
            f"/api/v1/activiteiten/{w['activiteit_id']}",
            {
                "soort": "rijden",
                "begin": f"{w['day']}T07:00:00Z",
                "einde": f"{w['day']}T08:00:00Z",
                "taak_id": w["task_id"],
                "opmerking": "x",
            },
            key,
        ),
        json_target(
            "POST /questionnaire_answers",
            "POST",
            "/api/v1/questionnaire_answers",
            {"taak_id": w["task_id"], "answers": {"gewicht": 1200}},
            driver,
        ),
        json_target(
            "PUT /users/{ut}/locatie",
            "PUT",
            f"/api/v1/users/{ut}/locatie",
            {"lat": 52.22, "lng": 6.89, "recorded_at": w["recorded_at"]},
            driver,
        ),
        json_target(
            "POST /users/{ut}/push_abonnementen",
            "POST",
            f"/api/v1/users/{ut}/push_abonnementen",
            push,
            driver,
            201,
        ),
        Target(
            "DELETE /users/{ut}/push_abonnementen",
            f"/api/v1/users/{ut}/push_abonnementen?endpoint=https://push.example.net/nooit",
            ["endpoint"],
            "DELETE",
            headers=driver,
            expected=204,  # whether it found any: an answer tells nothing
        ),
        json_target(
            "POST /auth/token (password)",
            "POST",
            "/api/v1/auth/token",
            {"grant_type": "password", "username": w["email"], "password": PASSWORD},
            {},
        ),
        json_target(
            "POST /auth/token (activation code)",
            "POST",
            "/api/v1/auth/token",
            {"grant_type": "activation_code", "code": "ABCD-EFGH"},
            {},
            400,
        ),
    ]


def portal_pages(v: dict, cookie: str) -> list[Target]:
    """The portal's filter forms (GET query strings) and its plain-text path parameters,
    signed in as the carrier's admin. Each with the mark of what its filters find (a row's
    text or link), which sqlmap reads as true (--string): the pages' CSRF tokens and "5
    minutes ago" differ from one request to the next, which sqlmap's page comparison took for
    answers to its payloads (suspicions it refuted itself, and once a UNION probe that went
    looking for 600 columns), and a row more or less is a small part of a page."""
    ut, did, vid, tid = v["user_token"], v["driver_id"], v["vehicle_id"], v["task_id"]
    # The carrier's day (Amsterdam): the billing period is read on its clock, so between
    # midnight there and midnight UTC a UTC "today" would leave today's line out.
    today = datetime.now(ZoneInfo("Europe/Amsterdam")).date()
    long_ago = today - timedelta(days=60)  # a window that is not the default one
    pages = [
        (
            "portal /taken (board)",
            f"/taken?weergave=status&van=2026-11-01&tot=2026-11-30&chauffeur={did}"
            f"&voertuig={vid}&type=mest_laden&status=gepland&q=boekelo",
            v["board_task"],
        ),
        ("portal /taken (day)", "/taken?weergave=dag&datum=2026-11-16", v["board_task"]),
        (
            "portal /taken/nieuw",
            f"/taken/nieuw?datum=2026-11-16&chauffeur={did}&terug=/taken",
            'type="date" value="2026-11-16"',
        ),
        ("portal /chauffeurs", "/chauffeurs?q=jan&status=actief&pagina=1", v["driver_email"]),
        (
            "portal /chauffeurs/{id}/rit",
            f"/chauffeurs/{did}/rit?datum=2026-11-16",
            "<strong>maandag 16 november 2026</strong>",
        ),
        (
            "portal /voertuigen",
            "/voertuigen?q=V&status=actief&soort=vrachtwagen&pagina=1",
            v["kenteken"],
        ),
        (
            "portal /voertuigen/sessies",
            f"/voertuigen/sessies?chauffeur={did}&voertuig={vid}&status=active",
            f"/voertuigen/sessies/{v['session_id']}/beeindigen",
        ),
        (
            "portal /uren",
            "/uren?van=2026-11-16&tot=2026-11-22&sort=naam&richting=desc&pagina=1",
            f'href="/uren/{ut}/2026-W47"',
        ),
        ("portal /uren (week)", "/uren?week=2026-W47", f'href="/uren/{ut}/2026-W47"'),
        (
            "portal /tachograaf",
            f"/tachograaf?chauffeur={did}&soort=bestuurderskaart&van=2026-01-01&tot=2026-12-31"
            "&pagina=1",
            ">kaart.ddd</a>",
        ),
        ("portal /rijtijden", "/rijtijden?pagina=1", f'href="/rijtijden/chauffeurs/{did}"'),
        (
            "portal /rijtijden/chauffeurs/{id}",
            f"/rijtijden/chauffeurs/{did}?tot={long_ago}",
            f"/rijtijden/chauffeurs/{did}/dagen/{long_ago}",
        ),
        (
            "portal /rijtijden/overtredingen",
            f"/rijtijden/overtredingen?van=2026-10-01&tot=2026-11-30&chauffeur={did}"
            "&soort=&ernst=&volgorde=ernst",
            "art. 6 lid 3",
        ),
        (
            "portal /facturatie",
            f"/facturatie?van={today - timedelta(days=7)}&tot={today}&chauffeur={did}",
            v["billed_task"],
        ),
        (
            "portal /antwoorden",
            f"/antwoorden?chauffeur={ut}&activity_type=mest_laden&status=open"
            f"&van=2020-01-01&tot=2099-12-31&taak={tid}&pagina=1",
            f'href="/antwoorden/{v["answer_session_id"]}"',
        ),
        ("portal /berichten", "/berichten?pagina=1", "door system"),
    ]
    targets = [
        Target(name, path, query_params(path), cookie=cookie, marker=marker)
        for name, path, marker in pages
    ]
    paths = [
        ("portal /uren/{ut*}/{week}", f"/uren/{ut}*/2026-W47", f'href="/uren/{ut}/2026-W46"'),
        ("portal /uren/{ut}/{week*}", f"/uren/{ut}/2026-W47*", f'href="/uren/{ut}/2026-W46"'),
        (
            "portal /vragenlijsten/{id*}/revisies",
            f"/vragenlijsten/{v['questionnaire_id']}*/revisies",
            f'href="/vragenlijsten/{v["questionnaire_id"]}/revisies/1"',
        ),
        (
            "portal /rijtijden/chauffeurs/{id}/dagen/{datum*}",
            f"/rijtijden/chauffeurs/{did}/dagen/2026-11-16*",
            '/dagen/2026-11-17" rel="next"',
        ),
    ]
    targets += [
        Target(name, path, ["#1*"], cookie=cookie, marker=marker) for name, path, marker in paths
    ]
    return targets


def reader(live: Live, client, refs: dict) -> dict:
    """The reads' carrier: its ids, and rows for the portal's lists to find: a planned task
    with a vehicle on 16 November, a task completed today (its billing line)."""
    from factories import create_task

    v = route_values(refs)
    key = bearer(refs["key"].key)
    planned = create_task(
        live.app,
        refs["carrier"],
        refs["driver"],
        naam="Rit Boekelo",
        vehicle_id=refs["vehicle_id"],
        gepland_op=datetime(2026, 11, 16, 8, 0, tzinfo=UTC),
    )
    billed = create_task(
        live.app, refs["carrier"], refs["driver"], naam="Rit Hengelo", type="voer_leveren"
    )
    for status in ("gestart", "afgerond"):
        moved = live.call("PATCH", f"/api/v1/taken/{billed.id}/status", {"status": status}, key)
        assert moved.status == 200, moved.body
    vehicle = live.call("GET", f"/api/v1/voertuigen/{v['vehicle_id']}", headers=key)
    return {
        **v,
        "board_task": planned.naam,
        "billed_task": billed.naam,
        "driver_email": refs["driver"].email,
        "kenteken": vehicle.json()["kenteken"],
    }


# --- the drill ------------------------------------------------------------------------


def portal_cookie(app, user) -> str:
    """A signed-in session, made by the login form with the agent sqlmap sends."""
    browser = app.test_client()
    browser.environ_base["HTTP_USER_AGENT"] = USER_AGENT
    answer = login(browser, user)
    assert answer.status_code in (302, 303), answer.status_code
    name = app.config["SESSION_COOKIE_NAME"]
    return f"{name}={browser.get_cookie(name).value}"


def writer(live: Live, client, refs: dict) -> dict:
    """The writes' carrier: its ids, key, driver token, the vehicle's plate, and a work day
    with an activity outside any approved week."""
    w = route_values(refs)
    key = refs["key"].key
    # A day of a month ago, outside the week populate() approved (2026-W47): editable.
    day = datetime.now(UTC).date() - timedelta(days=30)
    if day.isocalendar()[:2] == (2026, 47):
        day -= timedelta(days=7)
    w["day"] = day.isoformat()
    plate = live.call("GET", f"/api/v1/voertuigen/{w['vehicle_id']}", headers=bearer(key))
    work_day = live.call(
        "POST",
        f"/api/v1/users/{w['user_token']}/werkdagen",
        {"gestart_op": f"{w['day']}T06:00:00Z", "beeindigd_op": f"{w['day']}T15:00:00Z"},
        bearer(key),
    )
    assert work_day.status == 201, work_day.body
    activity = live.call(
        "POST",
        f"/api/v1/werkdagen/{work_day.json()['id']}/activiteiten",
        {"soort": "rijden", "begin": f"{w['day']}T07:00:00Z", "einde": f"{w['day']}T08:00:00Z"},
        bearer(key),
    )
    assert activity.status == 201, activity.body
    return {
        **w,
        "key": key,
        "token": driver_token(client, refs["driver"]),
        "email": refs["driver"].email,
        "kenteken": plate.json()["kenteken"],
        "werkdag_id": work_day.json()["id"],
        "activiteit_id": activity.json()["id"],
        "recorded_at": (datetime.now(UTC) - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def control(live: Live, target: Target) -> None:
    """The request as given answers as expected: the credentials work, the page is there
    (a portal page, not the login form it redirects to) with what its filters find."""
    headers = {**target.headers, "User-Agent": USER_AGENT}
    if target.cookie:
        headers["Cookie"] = target.cookie
    body = None if target.body is None else json.loads(target.body)
    answer = live.call(target.method, target.path.replace("*", ""), body, headers)
    assert answer.status == target.expected, (target.name, answer.status, answer.body[:300])
    if target.cookie:
        assert b'action="/logout"' in answer.body, f"{target.name}: not signed in"
    if target.marker:
        assert target.marker in answer.body.decode(), f"{target.name}: no {target.marker!r}"
    listed = answer.headers.get("X-Total-Count")  # an API list
    if listed is not None:
        assert int(listed) > 0, f"{target.name}: finds nothing"  # a payload's rows would show


def test_sqlmap_finds_no_injection_and_no_server_error(live, tmp_path):
    assert SQLMAP.exists(), f"{SQLMAP} is missing: pip install -r requirements-dev.txt"
    # The sign-in limits would answer 429 before the look-up that sqlmap aims at.
    for name in ("LOGIN_THROTTLE", "LOGIN_THROTTLE_ACCOUNT", "LOGIN_THROTTLE_IP"):
        live.app.config[name] = (1_000_000, live.app.config[name][1])
    client = live.app.test_client()
    reads = populate(live.app, client, "Leest Transport")
    v = reader(live, client, reads)
    key = reads["key"].key
    token = driver_token(client, reads["driver"])
    cookie = portal_cookie(live.app, create_user(live.app, reads["carrier"], "admin"))
    w = writer(live, client, populate(live.app, client, "Schrijft Transport"))
    targets = [
        *api_lists(v, key, token),
        *api_paths(v, key),
        *api_writes(w),
        *portal_pages(v, cookie),
    ]
    for target in targets:
        control(live, target)

    counted = RequestCount(live.app.wsgi_app)
    live.app.wsgi_app = counted
    base = f"http://{live.host}:{live.port}"
    # The longest first (a portal page costs about twice an API call), so none starts last.
    order = sorted(
        range(len(targets)),
        key=lambda i: -len(targets[i].params) * (2 if targets[i].cookie else 1),
    )
    started = time.monotonic()
    deadline = started + BUDGET
    with ThreadPoolExecutor(PARALLEL) as pool:
        done = pool.map(
            lambda i: sqlmap(targets[i], base, tmp_path / f"sqlmap-{i:02d}", deadline), order
        )
        by_index = dict(zip(order, done, strict=True))
    runs = [by_index[i] for i in range(len(targets))]
    seconds = time.monotonic() - started

    findings = sum(len(r.findings) + bool(r.log) for r in runs)
    print(
        f"\nsqlmap ({PARALLEL} at once, level 1, risk 1, BEUST, PostgreSQL): "
        f"{len(targets)} targets, {sum(len(r.tested) for r in runs)} parameters, "
        f"{sum(counted.requests.values())} requests in {seconds:.0f}s; findings {findings}, "
        f"server errors {len(counted.server_errors)}, suspicions sqlmap refuted itself "
        f"{sum(len(r.suspected) for r in runs)}"
    )
    for run in runs:
        statuses = dict(sorted(counted.statuses.get(tag(run.target), Counter()).items()))
        print(
            f"  {run.target.name}: {', '.join(sorted(run.tested))}; "
            f"{counted.requests[tag(run.target)]} requests, {run.seconds:.0f}s, "
            f"statuses {statuses}, findings {len(run.findings) + bool(run.log)}"
            + (f", refuted {run.suspected}" if run.suspected else "")
        )
    for run in runs:
        name = run.target.name
        assert run.returncode == 0, (name, run.returncode, run.output[-3000:])
        assert not run.findings and not run.log, (name, run.findings, run.log)
        assert not any(code >= 500 for code in run.error_codes), (name, run.error_codes)
        assert not run.critical, (name, run.critical)
        missing = set(run.target.params) - run.tested
        assert not missing, (name, "not tested", missing, run.output[-3000:])
        assert counted.requests[tag(run.target)] >= 20 * len(run.target.params), name
        # The credentials held throughout: no sign-in page, no refusal of the caller.
        statuses = counted.statuses[tag(run.target)]
        assert not {c for c in statuses if 300 <= c < 400 or c in (401, 403)}, (name, statuses)
    assert counted.server_errors == []


# --- the positive control -------------------------------------------------------------


PORTAL_TEXT = " ".join(
    ["Planning", "Taken", "Chauffeurs", "Voertuigen", "Uren", "Tachograaf", "Facturatie"] * 12
)


def vulnerable_app(url: str):
    """A list that builds its SQL by concatenating the query string, on PostgreSQL as the
    app role in a read-only transaction: what the drill must find. As JSON (/chauffeurs: a
    failing statement is a 500, as an unhandled database error would be) and as a portal page
    (/pagina: a nonce, a token and a time that differ on every request, the filter shown back
    in its field, a failing statement shown as an empty list, no error to see)."""
    import html
    import secrets

    def app(environ, start_response):
        naam = parse_qs(environ.get("QUERY_STRING", "")).get("naam", [""])[0]
        sql = "SELECT naam FROM (VALUES ('Jan'), ('Piet')) AS c(naam) WHERE naam = '" + naam + "'"
        try:
            with closing(psycopg.connect(url, options="-c statement_timeout=5000")) as conn:
                conn.read_only = True
                rows = [row[0] for row in conn.execute(sql).fetchall()]
        except psycopg.Error:
            rows = None
        if environ["PATH_INFO"] == "/pagina":
            items = "".join(f"<li>{html.escape(str(r))}, chauffeur</li>" for r in rows or [])
            nonce, token = secrets.token_urlsafe(16), secrets.token_urlsafe(32)
            body = (
                f'<!doctype html><html><head><script nonce="{nonce}">var t = 1;</script></head>'
                f"<body><nav>{PORTAL_TEXT}</nav><h1>Chauffeurs</h1>"
                f'<form><input name="csrf_token" type="hidden" value="{token}">'
                f'<input name="naam" value="{html.escape(naam)}"></form>'
                f"<p>Bijgewerkt om {time.strftime('%H:%M:%S')}.</p>"
                f"<ul>{items or '<li>Geen chauffeurs gevonden.</li>'}</ul>"
                f'<footer>{PORTAL_TEXT}<form method="post" action="/logout"></form></footer>'
                "</body></html>"
            )
            start_response("200 OK", [("Content-Type", "text/html; charset=utf-8")])
        elif rows is None:
            body = "error"
            start_response("500 INTERNAL SERVER ERROR", [("Content-Type", "text/plain")])
        else:
            body = json.dumps(rows)
            start_response("200 OK", [("Content-Type", "application/json")])
        return [body.encode()]

    return app


def test_sqlmap_run_as_the_drill_runs_it_finds_a_concatenated_query(pg_database, tmp_path):
    assert SQLMAP.exists(), f"{SQLMAP} is missing: pip install -r requirements-dev.txt"
    url = pg_database["app_url"].replace("postgresql+psycopg://", "postgresql://")
    targets = [
        Target("vulnerable list", "/chauffeurs?naam=Jan", ["naam"]),
        Target("vulnerable page", "/pagina?naam=Jan", ["naam"], marker="<li>Jan, chauffeur</li>"),
    ]
    counted = RequestCount(vulnerable_app(url))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
    with served(counted, "vulnerable-server") as port, ThreadPoolExecutor(2) as pool:
        base = f"http://127.0.0.1:{port}"
        runs = list(pool.map(lambda t: sqlmap(t, base, tmp_path / tag(t)), targets))
    total = sum(counted.requests.values())
    print(f"\nsqlmap positive control: {len(targets)} targets, {total} requests")
    for run in runs:
        print(
            f"  {run.target.name}: {counted.requests[tag(run.target)]} requests, "
            f"{run.seconds:.0f}s; server errors {run.error_codes}; found:"
            + "".join(f"\n    {line}" for line in run.log.splitlines() if "Type:" in line)
        )
    for run in runs:
        assert run.returncode == 0, run.output[-3000:]
        assert "sqlmap identified the following injection point" in "\n".join(run.findings)
        assert "Parameter: naam (GET)" in run.log
        assert "Type: boolean-based blind" in run.log  # the page comparison sees it too
    assert runs[0].error_codes.get(500, 0) > 0 and counted.server_errors  # the list's 500s
