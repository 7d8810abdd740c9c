"""Failure drills against real processes on loopback, run by scripts/drill_failures.sh (which
makes the PostgreSQL cluster and the storage tmpfs, and whose trap stops what is left). Every
claim is printed as `PROVED: ...` or `FAILED: ...`; any FAILED makes the exit status 1."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psycopg
import requests

ROOT = Path(__file__).resolve().parent.parent
LOAD_SECONDS, RECOVERY_LIMIT = 20.0, 5.0  # and 6 threads
WEBHOOKS, RECEIVER_DELAY, LEASE_SECONDS = 40, 0.15, 8
# The real worker, with a lease short enough to wait out (its receivers get 2 s a post).
WORKER = [
    str(ROOT / ".venv/bin/flask"), "--app", "wsgi", "deliver-webhooks",
    "--interval", "0.5", "--lease", str(LEASE_SECONDS),
]  # fmt: skip
BALLAST, UPLOAD = 512 * 1024, 256 * 1024  # on a 2 MiB disk
DEADLINE = time.monotonic() + float(os.environ.get("DRILL_SECONDS") or 170) - 8
FAILURES: list[str] = []
LOG_RECORD = re.compile(r"\d{4}-\d\d-\d\d \d|\[\d{4}-|[\d.]+ - ")  # a log line's start


class DrillFailed(Exception):
    pass


def check(ok, message: str) -> None:
    if not ok:
        raise DrillFailed(message)


def verdict(ok, claim: str, why: str = "") -> None:
    print(f"PROVED: {claim}" if ok else f"FAILED: {claim}; NOT SO: {why}")
    if not ok:
        FAILURES.append(claim)


def wait_for(what: str, predicate, timeout: float, step: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(step)
    raise DrillFailed(f"timed out after {timeout:.0f} s waiting for {what}")


def tracebacks(log: Path) -> str:
    """The distinct tracebacks in a log: the record before each, the frames of the last
    exception of its chain (paths shortened) and that exception."""
    lines, seen, record = log.read_text(errors="replace").splitlines(), Counter(), LOG_RECORD
    for n, line in enumerate(lines):
        if line.startswith("Traceback") and n and lines[n - 1].strip():
            end = next((i for i in range(n, len(lines)) if record.match(lines[i])), len(lines))
            block = lines[n + max(i for i, x in enumerate(lines[n:end]) if x[:5] == "Trace") : end]
            frames = [re.sub(r'"\S*/(site-packages|main)/', '"', x) for x in block if "File" in x]
            error = next(x for x in block[1:] if x.strip() and x[0] not in " \t")
            head = re.sub(r"^\S+ \S+ |\[[0-9a-f]{32}\] ", "", lines[n - 1])[:200]
            seen["\n   ".join([head, *frames, error[:300]])] += 1
    return "".join(f"\n   ({count}x) {text}" for text, count in seen.items())


class Procs:
    """Processes started, each leading its group; pids in work/pids for the shell's trap."""

    def __init__(self, work: Path):
        self.folder, self.running = work / "pids", {}
        self.folder.mkdir(exist_ok=True)

    def start(self, name: str, cmd: list, env: dict, log: Path) -> None:
        with open(log, "ab") as out:
            self.running[name] = subprocess.Popen(  # noqa: S603 - our own arguments
                [str(c) for c in cmd], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        (self.folder / f"{name}.pid").write_text(str(self.running[name].pid))

    def stop(self, name: str, sig: int = signal.SIGTERM) -> int | None:
        proc = self.running.pop(name)
        for signum, wait in ((sig, 15), (signal.SIGKILL, 5)):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signum)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(wait)
        (self.folder / f"{name}.pid").unlink(missing_ok=True)
        return proc.returncode


def pg_restart(mode: str) -> None:
    data, pg_ctl = os.environ["DRILL_PG_DATA"], Path(os.environ["PG_BIN"]) / "pg_ctl"
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    cmd = [*prefix, str(pg_ctl), "-D", data, "-w", "-t", "60", "-m", mode, "restart"]
    with open(Path(data).parent / "postgres.log", "ab") as log:  # the server's output
        subprocess.run(cmd, check=True, timeout=90, stdout=log, stderr=log)  # noqa: S603


def pg_url(user: str) -> str:
    return f"postgresql://{user}@127.0.0.1:{os.environ['DRILL_PG_PORT']}/rijplan"


def sql(query: str) -> list[tuple]:
    """As the superuser, who sees every carrier's rows (row-level security is FORCEd)."""
    with psycopg.connect(pg_url("postgres"), autocommit=True, connect_timeout=5) as conn:
        return conn.execute(query).fetchall()  # our own constant statements


def app_env(work: Path, port: int) -> dict:
    (work / "metrics").mkdir(exist_ok=True)
    skip = ("S3_", "FILE_STORAGE", "DATABASE_", "CHANGE_FEED_URL", "PUBLIC_BASE_URL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    env.update(
        RIJPLAN_ENV="production", SECRET_KEY=secrets.token_urlsafe(48),
        RIJPLAN_INSTANCE=str(work / "instance"), DATABASE_URL=pg_url("rijplan_app"),
        FILE_STORAGE="local", FILE_STORAGE_PATH=str(work / "storage"),
        WEBHOOKS_ALLOW_PRIVATE="1", WEBHOOKS_TIMEOUT="5",  # the receiver is on loopback
        RIJPLAN_BIND=f"127.0.0.1:{port}", RIJPLAN_WORKERS="2", RIJPLAN_LOG_FORMAT="text",
        PROMETHEUS_MULTIPROC_DIR=str(work / "metrics"),
    )  # fmt: skip
    return env


def child(role: str) -> None:
    """_setup: the admin commands as `flask --app wsgi ...` runs them, in one app start."""
    sys.path.insert(0, str(ROOT))
    from wsgi import app

    runner = app.test_cli_runner()

    def flask(*args: str) -> dict:
        result = runner.invoke(args=list(args))
        if result.exit_code != 0:
            sys.exit(f"flask {' '.join(args)} failed: {result.output}{result.exception!r}")
        lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
        return json.loads(lines[-1]) if lines else {}

    flask("db", "upgrade")
    flask("grant-app-role", "rijplan_app")
    carrier = flask("create-carrier", "--naam", "Drill Transport")["id"]
    login = {"email": "jan@drill.example", "password": "drill-wachtwoord-2026"}
    driver = flask("create-driver", "--transporteur", carrier, "--naam", "Jan Drill",
                   "--email", login["email"], "--password", login["password"])  # fmt: skip
    key = flask("create-api-key", "--transporteur", carrier, "--naam", "drill")["key"]
    print(json.dumps({"user_token": driver["user_token"], "key": key, **login}))


def classify(resp: requests.Response) -> str:
    if 200 <= resp.status_code < 300 or resp.status_code == 304:
        return "ok"
    problem = resp.headers.get("Content-Type", "").startswith("application/problem+json")
    retry = resp.status_code == 503 and problem and resp.headers.get("Retry-After")
    return "db503" if retry and resp.json().get("code") == "database_unavailable" else "bad"


class Load:
    """Threads that list tasks (API key), poll a driver's list (token, If-None-Match) and create
    tasks with an Idempotency-Key, sent again after a 503; a key answered 409 is set aside."""

    def __init__(self, base: str, ids: dict, driver_token: str):
        self.base, self.token = base, ids["user_token"]
        self.auth = {"key": f"Bearer {ids['key']}", "driver": f"Bearer {driver_token}"}
        self.results, self.keys = [], {}  # keys: the statuses each Idempotency-Key got
        self.lock, self.t0 = threading.Lock(), time.monotonic()

    def call(self, session, op, method, path, auth, headers=None, **kw):
        record = {"op": op, "start": time.monotonic() - self.t0}
        headers = {"Authorization": self.auth[auth], **(headers or {})}
        try:
            resp = session.request(method, self.base + path, headers=headers, timeout=15, **kw)
            record.update(status=resp.status_code, kind=classify(resp), body=resp.text[:200])
        except requests.RequestException as exc:
            resp = None
            record.update(status=None, kind="bad", body=f"{type(exc).__name__}: {exc}"[:200])
        record["end"] = time.monotonic() - self.t0
        with self.lock:
            self.results.append(record)
        return resp

    def write(self, session, key: str) -> int | None:
        path, body = f"/api/v1/users/{self.token}/taken", {"type": "mest_laden", "naam": key}
        resp = self.call(session, "write", "POST", path, "key", {"Idempotency-Key": key}, json=body)
        self.keys.setdefault(key, []).append(resp.status_code if resp is not None else None)
        return self.keys[key][-1]

    def run(self, n: int) -> None:
        session, etag, pending = requests.Session(), None, None
        while time.monotonic() - self.t0 < LOAD_SECONDS + (20 if pending else 0):
            n += 1
            if pending is None and n % 3 == 0:
                pending = f"drill-w-{uuid.uuid4().hex[:16]}"
            if pending:
                status = self.write(session, pending)
                if status in (200, 201, 409):
                    pending = None  # stored, or set aside: its claim outlived the request
                else:
                    time.sleep(0.25)  # sooner than Retry-After: the drill measures recovery
            elif n % 3 == 1:
                self.call(session, "list", "GET", "/api/v1/taken?limit=20", "key")
            else:
                path, since = f"/api/v1/users/{self.token}/taken", {"If-None-Match": etag}
                resp = self.call(session, "poll", "GET", path, "driver", since if etag else {})
                if resp is not None and resp.status_code == 200:
                    etag = resp.headers.get("ETag")


def drill_restart(load: Load, log: Path) -> None:
    print("== drill 1: PostgreSQL restarted under load (fast, then immediate)")
    threads = [threading.Thread(target=load.run, args=(n,), daemon=True) for n in range(6)]
    for t in threads:
        t.start()
    restarts = []
    for mode, at in (("fast", 6.0), ("immediate", 13.0)):
        time.sleep(max(0.0, at - (time.monotonic() - load.t0)))
        began = time.monotonic() - load.t0
        pg_restart(mode)
        restarts.append((mode, began, time.monotonic() - load.t0))
    for t in threads:
        t.join()
    results = sorted(load.results, key=lambda r: r["start"])
    kinds, ops = Counter(r["kind"] for r in results), Counter(r["op"] for r in results)
    bad = Counter((r["op"], r["status"], r["body"][:100]) for r in results if r["kind"] == "bad")
    for (op, status, body), count in bad.most_common(6):
        print(f"   {count} x {op} answered {status}: {body}")
    if any(status == 500 for _op, status, _body in bad):
        print(f"   the app's tracebacks:{tracebacks(log)}")
    verdict(
        not bad,
        f"{len(results)} requests from {len(threads)} threads in {LOAD_SECONDS:.0f} s "
        f"({dict(ops)}): {kinds['ok']} succeeded, {kinds['db503']} were 503 application/"
        "problem+json code=database_unavailable with Retry-After; no 500, no connection reset",
        f"{kinds['bad']} were not: {dict(Counter((op, s) for op, s, _b in bad.elements()))}",
    )
    for n, (mode, began, back) in enumerate(restarts):
        until = restarts[n + 1][1] if n + 1 < len(restarts) else float("inf")
        mine = [r for r in results if began <= r["end"] < until]
        # Recovery: answers the database's absence explains (a 409 is the writes' matter).
        late = [r for r in mine if r["kind"] != "ok" and r["status"] != 409 and r["start"] >= back]
        oks = [r["end"] - back for r in mine if r["kind"] == "ok" and r["start"] >= back]
        recovery = max((r["end"] - back for r in late), default=0.0)
        verdict(
            oks and recovery <= RECOVERY_LIMIT,
            f"pg_ctl restart -m {mode}: database away {back - began:.2f} s, "
            f"{sum(r['kind'] == 'db503' for r in mine)} answers 503 database_unavailable; "
            f"first success {min(oks, default=0):.2f} s after it was back, last failure "
            f"{recovery:.2f} s after; gunicorn not restarted",
            f"the last failures: {[(r['op'], r['status']) for r in late][-5:]}",
        )


def drill_restart_writes(load: Load) -> None:
    """Each key one row: at once, or, for a key refused with 409 because the claim of its
    request that got the 503 outlived that request, once that claim's lease has run out."""
    query = "SELECT naam, count(*) FROM taken WHERE naam LIKE 'drill-w-%' GROUP BY naam"
    rows, keys = dict(sql(query)), load.keys
    done = {k for k, s in keys.items() if s[-1] in (200, 201)}
    retried = {k for k, s in keys.items() if 503 in s}
    stuck = {k for k, s in keys.items() if s[-1] == 409}
    verdict(
        retried and set(rows) == done and set(rows.values()) == {1},
        f"{len(keys)} writes with an Idempotency-Key, {len(retried)} sent again with their key "
        f"after a 503: {sum(rows.values())} rows for the {len(done)} keys answered 2xx, one "
        f"each; the {len(keys) - len(done)} others saved nothing",
        f"rows per key {dict(Counter(rows.values()))}; rows without a 2xx: {set(rows) - done}",
    )
    if not stuck:
        return
    leases = dict(sql("SELECT key, extract(epoch FROM lease_until) FROM "
                      "idempotency_records WHERE status = 'running'"))  # fmt: skip
    wait = max(float(leases.get(k, 0)) for k in stuck) + 1 - time.time()
    print(f"   {len(stuck)} keys were answered 409 'still being processed' when sent again "
          f"after a 503; their claims' lease ends in {wait:.0f} s: then they go again")  # fmt: skip
    if time.monotonic() + wait > DEADLINE:
        return verdict(False, "the keys refused with 409 stored once", "no time left to wait")
    time.sleep(max(0.0, wait))
    answers = Counter(load.write(requests.Session(), key) for key in sorted(stuck))
    rows = dict(sql(query))
    verdict(
        answers == Counter({201: len(stuck)}) and all(rows.get(k) == 1 for k in stuck),
        f"the {len(stuck)} keys refused with 409 were stored once each when sent again after "
        f"their claim's lease ran out; {sum(rows.values())} rows for {len(keys)} keys",
        f"answers {dict(answers)}, rows {dict(Counter(rows.get(k, 0) for k in stuck))}",
    )


class Receiver(BaseHTTPRequestHandler):
    """A webhook receiver on loopback that answers slowly and notes what it got."""

    got: list[tuple[float, str, int, bool]] = []  # time, event id, attempt, signature ok
    secret = ""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        sig = self.headers.get("Rijplan-Signature", "")
        fields = dict(p.split("=", 1) for p in sig.split(",") if "=" in p)
        signed = fields.get("t", "").encode() + b"." + body
        mac = hmac.new(Receiver.secret.encode(), signed, hashlib.sha256).hexdigest()
        attempt = int(self.headers.get("Rijplan-Delivery-Attempt") or 0)
        ok = hmac.compare_digest(mac, fields.get("v1", ""))
        Receiver.got.append((time.time(), self.headers.get("Rijplan-Event-Id", ""), attempt, ok))
        time.sleep(RECEIVER_DELAY)
        with contextlib.suppress(OSError):
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def drill_worker(base: str, procs: Procs, env: dict, work: Path, ids) -> None:
    print(f"== drill 2: a webhook worker SIGKILLed while holding claims (lease {LEASE_SECONDS} s)")
    receiver, api = ThreadingHTTPServer(("127.0.0.1", 0), Receiver), requests.Session()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    api.headers["Authorization"] = f"Bearer {ids['key']}"
    url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
    hook = {"url": url, "gebeurtenissen": ["taak.aangemaakt"], "omschrijving": "drill"}
    made = api.post(f"{base}/api/v1/webhooks", json=hook, timeout=15)
    check(made.status_code == 201, f"registering the endpoint: {made.status_code} {made.text}")
    Receiver.secret = made.json()["geheim"]
    for n in range(WEBHOOKS):
        task = {"type": "mest_laden", "naam": f"drill-hook-{n}"}
        r = api.post(f"{base}/api/v1/users/{ids['user_token']}/taken", json=task, timeout=15)
        check(r.status_code == 201, f"creating task {n}: {r.status_code} {r.text}")
    ids_where = "SELECT gebeurtenis_id::text FROM webhook_leveringen WHERE status = "
    queued = {r[0] for r in sql(ids_where + "'queued'")}
    check(len(queued) == WEBHOOKS, f"{len(queued)} deliveries queued, expected {WEBHOOKS}")
    procs.start("worker1", WORKER, {**env, "WEBHOOKS_TIMEOUT": "2"}, work / "worker1.log")
    wait_for("the first worker's first deliveries", lambda: len(Receiver.got) >= 8, 40)
    procs.stop("worker1", signal.SIGKILL)
    killed_at, before_kill = time.time(), {g[1] for g in Receiver.got}
    claims = "SELECT gebeurtenis_id::text, extract(epoch FROM volgende_poging_op) FROM "
    held = dict(sql(claims + "webhook_leveringen WHERE status = 'queued' AND claim_id IS NOT NULL"))
    sent_first = {r[0] for r in sql(ids_where + "'sent'")}
    check(held, "the worker held no claims when it was killed")
    lease_end = max(float(t) for t in held.values())
    procs.start("worker2", WORKER, {**env, "WEBHOOKS_TIMEOUT": "2"}, work / "worker2.log")
    done = "SELECT count(*) = 0 FROM webhook_leveringen WHERE status <> 'sent'"
    drained = lambda: sql(done)[0][0] and {g[1] for g in Receiver.got} >= queued  # noqa: E731
    wait_for("every delivery to be sent", drained, LEASE_SECONDS + 40, 0.3)
    code = procs.stop("worker2", signal.SIGTERM)
    receiver.shutdown()
    got, in_flight = Counter(g[1] for g in Receiver.got), before_kill - sent_first
    dupes = {e for e, n in got.items() if n > 1}
    retaken = [g for g in Receiver.got if g[1] in held and g[0] >= killed_at]
    early = [g for g in retaken if g[0] < lease_end - 0.5]
    takeover = min((g[0] for g in retaken), default=killed_at) - killed_at
    verdict(
        set(held) <= {g[1] for g in retaken} and not early,
        f"{WEBHOOKS} deliveries queued; the killed worker had recorded {len(sent_first)} sent "
        f"and held {len(held)} claims, whose lease ended {lease_end - killed_at:.1f} s after "
        f"the kill; a second worker posted the first of them {takeover:.1f} s after the kill, "
        f"none before (attempt numbers {dict(Counter(g[2] for g in retaken))})",
        f"{len(set(held) - {g[1] for g in retaken})} never taken over, {len(early)} too early",
    )
    verdict(
        set(got) == queued and all(g[3] for g in Receiver.got) and dupes <= in_flight,
        f"all {len(got)} events arrived, signed, in {sum(got.values())} posts: {len(dupes)} "
        "duplicate(s), only of what the kill cut off between posting and recording (at least "
        "once, as README 'Webhooks' documents); 0 deliveries left queued; the second worker "
        f"stopped on SIGTERM with exit code {code}",
        f"{len(queued - set(got))} never arrived, {len(dupes - in_flight)} duplicates beyond "
        f"what was in flight, {sum(not g[3] for g in Receiver.got)} bad signatures",
    )


def drill_disk(base: str, ids: dict, storage: Path, log: Path) -> None:
    print("== drill 3: a full disk under local file storage (a 2 MiB tmpfs)")
    api, ballast = requests.Session(), storage / ".drill-ballast"
    api.headers["Authorization"] = f"Bearer {ids['key']}"
    ballast.write_bytes(b"\0" * BALLAST)  # the operator's other data on the same disk

    def upload(key: str, content: bytes) -> requests.Response:
        files, form = {"file": ("scan.pdf", content, "application/pdf")}, {"soort": "document_scan"}
        return api.post(f"{base}/api/v1/bestanden", files=files, data=form,
                        headers={"Idempotency-Key": key}, timeout=30)  # fmt: skip

    def rows_files() -> tuple[int, int]:  # the app's files: not ours (dot files), not /readyz's
        files = [p for p in storage.rglob("*") if p.is_file() and not p.name.startswith(".")]
        readyz = [p for p in files if p.relative_to(storage).parts[0] == "readyz"]
        return sql("SELECT count(*) FROM bestanden")[0][0], len(files) - len(readyz)

    for ok in range(20):
        key, content = f"drill-upload-{ok}", b"%PDF-1.4\n" + os.urandom(UPLOAD)
        if (resp := upload(key, content)).status_code != 201:
            break
    free = os.statvfs(storage).f_bavail * os.statvfs(storage).f_frsize
    if resp.status_code == 500:
        print(f"   BUG: a full disk answered 500:{tracebacks(log)}")
    problem = resp.headers.get("Content-Type", "").startswith("application/problem+json")
    partial = list(storage.rglob(".upload-*"))
    verdict(
        resp.status_code == 503 and problem and resp.json().get("code") == "storage_unavailable"
        and not partial and rows_files() == (ok, ok),
        f"{ok} uploads of {UPLOAD // 1024} KiB fitted; the next ({free // 1024} KiB free) "
        "answered 503 application/problem+json code=storage_unavailable (Retry-After: "
        f"{resp.headers.get('Retry-After', 'none')}); no partial file, no row: {ok} rows, "
        f"{ok} files",
        f"{resp.status_code} {resp.text[:200]}; partial {partial}; (rows, files) {rows_files()}",
    )  # fmt: skip
    with contextlib.suppress(OSError), open(storage / ".drill-filler", "wb") as filler:
        while True:  # the disk full to the last byte
            filler.write(b"\0" * 4096)
            filler.flush()
    full = requests.get(f"{base}/readyz", timeout=15)
    (storage / ".drill-filler").unlink()
    ballast.unlink()  # space freed
    freed, again = requests.get(f"{base}/readyz", timeout=15), upload(key, content)
    verdict(
        full.status_code == 503 and full.json().get("checks", {}).get("storage") == "unwritable"
        and freed.status_code == 200 and again.status_code == 201
        and rows_files() == (ok + 1, ok + 1),
        "with the disk full to the last byte /readyz answered 503 storage=unwritable; once "
        "space was freed /readyz answered 200 and the refused upload, sent again with its "
        f"Idempotency-Key, was stored (201): {ok + 1} rows, {ok + 1} files",
        f"/readyz {full.status_code} {full.text[:120]}, then {freed.status_code}; the upload "
        f"{again.status_code} {again.text[:200]}; (rows, files) {rows_files()}",
    )  # fmt: skip


def run(work: Path, procs: Procs) -> None:
    began, port, log = time.monotonic(), os.environ["DRILL_APP_PORT"], work / "gunicorn.log"
    env, base = app_env(work, port), f"http://127.0.0.1:{port}"
    made = subprocess.run(  # noqa: S603 - our own arguments
        [sys.executable, __file__, "_setup"], cwd=ROOT, capture_output=True, text=True,
        env={**env, "DATABASE_ADMIN_URL": pg_url("rijplan_owner")}, timeout=120,
    )  # fmt: skip
    check(made.returncode == 0, f"setup failed:\n{made.stderr[-3000:]}")
    ids = json.loads(made.stdout.strip().splitlines()[-1])
    gunicorn = [Path(sys.executable).parent / "gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"]
    procs.start("gunicorn", gunicorn, env, log)

    def ready():
        check(procs.running["gunicorn"].poll() is None, "gunicorn exited at start")
        with contextlib.suppress(requests.RequestException):
            return requests.get(f"{base}/readyz", timeout=5).status_code == 200

    wait_for("gunicorn's /readyz", ready, 60, 0.3)
    login = {"grant_type": "password", "username": ids["email"], "password": ids["password"]}
    signin = requests.post(f"{base}/api/v1/auth/token", json=login, timeout=30)
    check(signin.status_code == 200, f"driver sign-in: {signin.status_code} {signin.text}")
    print(f"== migrated as the owner; gunicorn (2 workers) as the app role rijplan_app on {base}, "
          f"up after {time.monotonic() - began:.1f} s")  # fmt: skip
    load = Load(base, ids, signin.json()["access_token"])
    drill_restart(load, log)
    drill_worker(base, procs, env, work, ids)
    if error := os.environ.get("DRILL_MOUNT_ERROR"):
        print(f"SKIPPED: drill 3 needs a small filesystem; mount -t tmpfs is not permitted here "
              f"({error}): nothing was proved about a full disk")  # fmt: skip
    else:
        drill_disk(base, ids, work / "storage", log)
    print("== drill 1, continued: the writes, exactly once")
    drill_restart_writes(load)
    print(f"== {len(FAILURES)} failure(s); the drills took {time.monotonic() - began:.0f} s")


def main() -> int:
    if sys.argv[1] == "_setup":
        return child(sys.argv[1])
    work, procs = Path(sys.argv[1]), Procs(Path(sys.argv[1]))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        run(work, procs)
    except DrillFailed as error:
        verdict(False, str(error), "the drills cannot go on; the logs' last lines follow")
        for name in ("gunicorn.log", "worker1.log", "worker2.log", "pg/postgres.log"):
            with contextlib.suppress(OSError):
                print(f"--- {name}:", *(work / name).read_text().splitlines()[-12:], sep="\n")
    finally:
        for name in list(procs.running):
            procs.stop(name)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
