"""The checks of scripts/drill_two_hosts.sh: Rijplan on two app hosts behind one HAProxy.

Run by the shell script once both hosts, their workers and HAProxy run; every request goes
through HAProxy (which names the host that answered in X-Served-By; the drill-only header
X-Drill-Host pins a request to a host). Prints a `PROVED: ...` line per claim and exits 1
with the reason on the first one that does not hold.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import http.server
import itertools
import json
import os
import re
import secrets
import signal
import socket
import struct
import sys
import threading
import time
import uuid
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import requests

LOAD_REQUESTS = 300
LOAD_THREADS = 8
LOAD_SECONDS = 30  # no new request is started after this
RETRY_DEADLINE = 130  # seconds after the load began by which every request must have succeeded
RETRYABLE = {409, 502, 503, 504}  # 409: the key's first request still holds it (its host died)
TAG = uuid.uuid4().hex[:8]
NO_REDIRECT = {"allow_redirects": False, "timeout": 15}
PHOTO = {"soort": "photo"}


class DrillFailed(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise DrillFailed(message)


def proved(text: str) -> None:
    print(f"PROVED: {text}", flush=True)


class Drill:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.base = args.base.rstrip("/")
        self.hosts = dict(item.split("=", 1) for item in args.host)
        self.db = psycopg.connect(args.db, autocommit=True)

    # --- plumbing ----------------------------------------------------------------------
    def session(self) -> requests.Session:
        session = requests.Session()
        # Not the environment's CA bundle or proxies (REQUESTS_CA_BUNDLE would override verify).
        session.trust_env = False
        session.verify = self.args.cafile
        return session

    def api(self, session, method, path, *, pin=None, key=None, **kwargs) -> requests.Response:
        headers = {"Authorization": f"Bearer {self.args.api_key}", **kwargs.pop("headers", {})}
        if pin:
            headers["X-Drill-Host"] = pin
        if key:
            headers["Idempotency-Key"] = key
        return session.request(method, self.base + path, headers=headers, timeout=15, **kwargs)

    def sql(self, query: str, *params):
        return self.db.execute(query, params).fetchall()

    def stats(self) -> dict[str, dict[str, str]]:
        """HAProxy's `show stat` of the backend, per server (and BACKEND)."""
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(2)
            sock.connect(self.args.stats_socket)
            sock.sendall(b"show stat\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        lines = data.decode().strip().splitlines()
        fields = lines[0].lstrip("# ").split(",")
        rows = [dict(zip(fields, line.split(","), strict=False)) for line in lines[1:]]
        return {row["svname"]: row for row in rows if row["pxname"] == "hosts"}

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 90
        session = self.session()
        for name, url in self.hosts.items():
            while True:
                try:
                    if session.get(url + "/readyz", timeout=2).status_code == 200:
                        break
                except requests.RequestException:
                    pass  # not up yet
                check(time.monotonic() < deadline, f"host {name} ({url}) never became ready")
                time.sleep(0.3)
        while {self.stats()[name]["status"] for name in self.hosts} != {"UP"}:
            check(time.monotonic() < deadline, "HAProxy never saw both hosts UP")
            time.sleep(0.2)
        print(f"== both hosts ready (/readyz 200) and UP in HAProxy at {self.base}", flush=True)

    # --- (a) a planner's portal session across both hosts -------------------------------
    def prove_portal(self) -> None:
        session = self.session()
        served = []

        def form_token(response) -> str:
            found = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', response.text)
            check(found is not None, f"no CSRF token on {response.url}")
            return found.group(1)

        def post(path, data):
            referer = {"Referer": self.base + path}  # CSRF over https wants a same-origin one
            response = session.post(self.base + path, data=data, headers=referer, **NO_REDIRECT)
            served.append(response.headers.get("X-Served-By"))
            return response

        page = session.get(self.base + "/login", timeout=15)
        check(page.status_code == 200, f"GET /login answered {page.status_code}")
        served.append(page.headers.get("X-Served-By"))
        login = {"email": self.args.planner, "password": self.args.password, "next": ""}
        login = post("/login", login | {"csrf_token": form_token(page)})
        check(login.status_code == 303, f"signing in answered {login.status_code}")
        check(served[0] != served[1], f"GET and POST /login both on {served[0]}")
        page = session.get(self.base + "/berichten", **NO_REDIRECT)
        check(page.status_code == 200, f"GET /berichten after sign-in: {page.status_code}")
        served.append(page.headers.get("X-Served-By"))
        token = form_token(page)
        refused = post("/berichten", {"ontvangers": self.args.driver_id, "titel": "x"})
        check(refused.status_code == 400, f"a POST without CSRF token: {refused.status_code}")
        posts = []
        for i in range(6):
            data = {"ontvangers": self.args.driver_id, "titel": f"portal-{TAG}-{i}"}
            data |= {"tekst": "Drill: portal session on two hosts", "csrf_token": token}
            response = post("/berichten", data)
            check(response.status_code == 303, f"CSRF POST {i + 1} answered {response.status_code}")
            posts.append(served[-1])
        switches = sum(a != b for a, b in itertools.pairwise(posts))
        check(switches == len(posts) - 1, f"consecutive POSTs did not alternate hosts: {posts}")
        ((rows,),) = self.sql(
            "SELECT count(*) FROM berichten WHERE titel LIKE %s", f"portal-%{TAG}%"
        )
        check(rows == len(posts), f"{len(posts)} messages posted, {rows} rows")
        proved(
            f"(a) portal: GET /login on {served[0]}, sign-in POST on {served[1]}; "
            f"{len(posts)} CSRF-protected POST /berichten all 303 on hosts "
            f"{','.join(posts)} ({switches} host switches in {len(posts) - 1} steps, "
            f"{Counter(posts)['h1']} on h1, {Counter(posts)['h2']} on h2); {rows} rows; "
            f"a POST without token refused (400) on {served[3]}"
        )

    # --- (b) signed file links ---------------------------------------------------------
    def prove_files(self) -> None:
        session = self.session()
        image = png(7, 5)
        files = {"file": ("drill.png", image, "image/png")}
        upload = self.api(session, "POST", "/api/v1/bestanden", pin="h1", files=files, data=PHOTO)
        check(upload.status_code == 201, f"upload answered {upload.status_code}: {upload.text}")
        check(upload.headers.get("X-Served-By") == "h1", "the upload was not served by h1")
        meta = upload.json()
        check(meta["url"].startswith(self.base + "/"), f"link not on PUBLIC_BASE_URL: {meta}")
        got = session.get(meta["url"], headers={"X-Drill-Host": "h2"}, timeout=15)
        check(got.status_code == 200 and got.content == image, f"h2 download: {got.status_code}")
        check(got.headers.get("X-Served-By") == "h2", "the download was not served by h2")
        fresh = self.api(session, "GET", f"/api/v1/bestanden/{meta['id']}", pin="h2")
        check(fresh.status_code == 200, f"metadata on h2: {fresh.status_code}")
        back = session.get(fresh.json()["url"], headers={"X-Drill-Host": "h1"}, timeout=15)
        check(back.status_code == 200 and back.content == image, f"h1 download: {back.status_code}")
        forged = re.sub(r"sig=([^&]{4})", "sig=AAAA", meta["url"])
        bad = session.get(forged, headers={"X-Drill-Host": "h2"}, timeout=15)
        check(bad.status_code == 403, f"an altered signature answered {bad.status_code} on h2")
        proved(
            f"(b) files: a {len(image)}-byte photo uploaded on h1 downloads byte-identical on h2 "
            f"through its signed link ({got.status_code}); a link signed on h2 downloads on h1 "
            f"({back.status_code}); an altered signature is refused on h2 ({bad.status_code})"
        )

    # --- (c) an idempotent write replayed on the other host ----------------------------
    def prove_idempotency(self) -> None:
        session = self.session()
        key = f"replay-{TAG}"
        body = {"type": "voer_lossen", "naam": key}
        path = f"/api/v1/users/{self.args.driver_token}/taken"
        first = self.api(session, "POST", path, pin="h1", key=key, json=body)
        check(first.status_code == 201, f"first POST on h1: {first.status_code} {first.text}")
        again = self.api(session, "POST", path, pin="h2", key=key, json=body)
        check(again.status_code == 201, f"replay on h2: {again.status_code} {again.text}")
        check(again.headers.get("X-Served-By") == "h2", "the replay was not served by h2")
        check(again.headers.get("Idempotent-Replayed") == "true", "h2 did not say it replayed")
        check(again.content == first.content, "h2's replay differs from h1's response")
        check(again.headers.get("Location") == first.headers.get("Location"), "Location differs")
        other = self.api(session, "POST", path, pin="h2", key=key, json=body | {"naam": "x"})
        check(other.status_code == 422, f"key reused for another body: {other.status_code}")
        ((rows,),) = self.sql("SELECT count(*) FROM taken WHERE naam = %s", key)
        check(rows == 1, f"{rows} tasks for one Idempotency-Key")
        proved(
            f"(c) idempotency: POST with Idempotency-Key {key} on h1 (201), the same on h2 "
            f"answered the identical 201 ({len(first.content)} bytes, Idempotent-Replayed: "
            f"true), the key with another body 422 on h2; {rows} task row"
        )

    # --- (d) webhooks delivered exactly once with a worker on each host -----------------
    def prove_webhooks(self) -> None:
        received: list[dict] = []
        lock = threading.Lock()

        class Receiver(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                event = self.headers.get("Rijplan-Event-Id")
                signature = self.headers.get("Rijplan-Signature", "")
                with lock:
                    received.append(
                        {"event": event, "signature": signature, "body": body}
                        | {"from": self.client_address[0]}
                    )
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer((self.args.receiver, 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            self._webhooks(received, lock, f"http://{self.args.receiver}:{server.server_port}")
        finally:
            server.shutdown()

    def _webhooks(self, received, lock, url) -> None:
        session = self.session()
        deadline = time.monotonic() + 60
        for name in self.hosts:  # both hosts' deliver-webhooks workers poll before anything
            log = Path(self.args.logs) / f"{name}-webhooks.log"
            while "deliver-webhooks: polling" not in log.read_text(errors="replace"):
                check(time.monotonic() < deadline, f"{name}'s deliver-webhooks never started")
                time.sleep(0.2)
        hook = {"url": url + "/hook", "gebeurtenissen": ["taak.aangemaakt"]}
        endpoint = self.api(session, "POST", "/api/v1/webhooks", pin="h1", json=hook)
        check(endpoint.status_code == 201, f"webhook endpoint: {endpoint.text}")
        secret = endpoint.json()["geheim"]
        tasks = {}
        path = f"/api/v1/users/{self.args.driver_token}/taken"
        for i in range(8):
            pin, key = ("h1", "h2")[i % 2], f"hook-{TAG}-{i}"
            task = {"type": "voer_lossen", "naam": key}
            made = self.api(session, "POST", path, pin=pin, key=key, json=task)
            check(made.status_code == 201, f"task {i} on {pin}: {made.status_code}")
            tasks[made.json()["id"]] = pin
        deadline = time.monotonic() + 30
        while len({r["event"] for r in received}) < len(tasks):
            check(time.monotonic() < deadline, f"only {len(received)} of {len(tasks)} delivered")
            time.sleep(0.2)
        time.sleep(3)  # six more passes of each worker: a second delivery would show now
        with lock:
            got = list(received)
        per_event = Counter(r["event"] for r in got)
        check(len(got) == len(tasks), f"{len(got)} posts for {len(tasks)} events: {per_event}")
        check(set(per_event.values()) == {1}, f"an event was delivered twice: {per_event}")
        for item in got:
            text = item["body"].decode()
            check(any(task in text for task in tasks), f"an event for no drill task: {text[:200]}")
            fields = dict(part.split("=", 1) for part in item["signature"].split(","))
            signed = f"{fields['t']}.".encode() + item["body"]
            digest = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
            check(hmac.compare_digest(digest, fields.get("v1", "")), "a bad webhook signature")
        by_host = Counter(self.args.host_of.get(r["from"], r["from"]) for r in got)
        rows = self.sql(
            "SELECT status, pogingen, count(*) FROM webhook_leveringen GROUP BY 1, 2 ORDER BY 1"
        )
        check(rows == [("sent", 1, len(tasks))], f"deliveries in the database: {rows}")
        made_on = Counter(tasks.values())
        proved(
            f"(d) webhooks: {len(tasks)} taak.aangemaakt events enqueued through HAProxy "
            f"(h1: {made_on['h1']}, h2: {made_on['h2']}) were each delivered exactly once "
            f"({len(got)} posts, all first attempts, signatures valid) by the deliver-webhooks "
            f"workers (both polling) of h1: {by_host['h1']} and h2: {by_host['h2']}; "
            f"database: {rows[0][2]} deliveries sent after 1 attempt, none queued or failed"
        )

    # --- (e) one host killed under load -------------------------------------------------
    def prove_failover(self) -> None:
        keys = [f"load-{TAG}-{i:04d}" for i in range(LOAD_REQUESTS)]
        path = f"/api/v1/users/{self.args.driver_token}/notificaties"
        local = threading.local()
        lock = threading.Lock()
        failures: Counter[str] = Counter()
        first_host: Counter[str] = Counter()
        final_host: Counter[str] = Counter()
        retried: set[str] = set()
        replayed: list[str] = []
        waited = [0.0]  # the longest a key took from its first failure to its success
        done = [0]
        killed = threading.Event()
        started = time.monotonic()
        kill_info: dict = {"down_after": float("nan")}
        begun: set[str] = set()

        def send(key: str) -> None:
            if time.monotonic() - started > LOAD_SECONDS:
                return  # the load is bounded in time: keys not begun by then are not sent
            with lock:
                begun.add(key)
            if not hasattr(local, "session"):
                local.session = self.session()
            body = {"titel": key, "tekst": "Drill: load with a host killed"}
            attempt, failed_at = 0, None
            while True:
                attempt += 1
                check(time.monotonic() - started < RETRY_DEADLINE, f"{key} never succeeded")
                try:
                    response = self.api(local.session, "POST", path, key=key, json=body)
                    status, host = response.status_code, response.headers.get("X-Served-By", "?")
                except requests.RequestException as error:
                    reasons = re.findall(r"(\w+(?:Error|Disconnected|Reset))\(", repr(error))
                    status, host = (reasons or [type(error).__name__])[-1], "?"
                    local.session = self.session()
                with lock:
                    if attempt == 1:
                        first_host[host] += 1
                    if status == 201:
                        final_host[host] += 1
                        done[0] += 1
                        if failed_at is not None:
                            waited[0] = max(waited[0], time.monotonic() - failed_at)
                        if response.headers.get("Idempotent-Replayed") == "true":
                            replayed.append(key)
                        return
                    check(status in RETRYABLE or isinstance(status, str), f"{key}: {status}")
                    failures[str(status)] += 1
                    retried.add(key)
                    failed_at = failed_at or time.monotonic()
                time.sleep(1.0 if status == 409 else 0.1)

        def killer() -> None:
            while done[0] < LOAD_REQUESTS // 6 and time.monotonic() - started < LOAD_SECONDS / 3:
                time.sleep(0.02)
            kill_info["done"] = done[0]
            kill_info["at"] = time.monotonic()
            os.killpg(self.args.kill_pgid, signal.SIGKILL)
            killed.set()
            while self.stats()["h2"]["status"].startswith("UP"):
                time.sleep(0.05)
            kill_info["down_after"] = time.monotonic() - kill_info["at"]

        watcher = threading.Thread(target=killer, daemon=True)
        watcher.start()
        with ThreadPoolExecutor(LOAD_THREADS) as pool:
            for result in [pool.submit(send, key) for key in keys]:
                result.result()
        watcher.join(timeout=10)
        elapsed = time.monotonic() - started
        check(killed.is_set(), "h2 was never killed")
        total = len(begun)
        check(0 < kill_info["done"] < total, "the kill did not happen mid-load")
        check(total >= 100, f"only {total} requests in {LOAD_SECONDS} s: too slow to prove much")
        check(self.stats()["h2"]["status"].startswith("DOWN"), "HAProxy does not see h2 down")
        sent = sum(final_host.values())
        check(sent == total, f"only {sent} of {total} requests succeeded")
        rows = dict(
            self.sql(
                "SELECT titel, count(*) FROM berichten WHERE titel LIKE %s GROUP BY 1",
                f"load-{TAG}-%",
            )
        )
        check(set(rows) <= begun, "rows for keys that were never sent")
        check(set(rows) == begun, f"{len(begun - set(rows))} requests lost")
        doubled = [key for key, n in rows.items() if n != 1]
        check(not doubled, f"{len(doubled)} requests made more than one row: {doubled[:5]}")
        records = self.sql(
            "SELECT status, count(*) FROM idempotency_records WHERE key LIKE %s GROUP BY 1",
            f"load-{TAG}-%",
        )
        check(records == [("done", total)], f"idempotency records: {records}")
        backend = self.stats()["BACKEND"]
        failed = sum(failures.values())
        proved(
            f"(e) failover: {total} API writes (unique Idempotency-Keys, {LOAD_THREADS} "
            f"threads, {elapsed:.1f} s); h2's gunicorn SIGKILLed after {kill_info['done']} had "
            f"succeeded, HAProxy marked it DOWN {kill_info['down_after']:.1f} s later; first "
            f"attempts per host: {dict(sorted(first_host.items()))}; successes per host: "
            f"{dict(sorted(final_host.items()))}; failures seen by the client: {failed} "
            f"({dict(failures) or 'none'}) on {len(retried)} keys, each retried with its key "
            f"until it succeeded (longest {waited[0]:.1f} s; {len(replayed)} answered as "
            f"replays); HAProxy itself retried {backend['wretr']} and redispatched "
            f"{backend['wredis']}; database: {len(rows)} rows for {total} keys, each exactly "
            f"once, {total} idempotency records done: none lost, none doubled"
        )


def png(width: int, height: int) -> bytes:
    """A small valid PNG (grey), made by hand."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    raw = b"".join(b"\x00" + bytes([128]) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    chunks = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks


def seed(args: argparse.Namespace) -> None:
    """Migrate the fresh database as its owner, grant the app role, and make the drill's
    carrier, planner, API key and driver: the app's own admin commands, run in this one
    process as `flask --app wsgi <command>` runs them (one start-up instead of six)."""
    os.environ["DATABASE_URL"] = args.owner_url
    os.environ.pop("DATABASE_ADMIN_URL", None)  # the commands run as the owner
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from wsgi import app

    runner = app.test_cli_runner()

    def flask(*command: str) -> dict:
        result = runner.invoke(args=list(command))
        check(result.exit_code == 0, f"flask {' '.join(command[:2])}: {result.output[-1500:]}")
        lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
        return json.loads(lines[-1]) if lines else {}

    flask("db", "upgrade")
    flask("grant-app-role", args.app_role)
    carrier = flask("create-carrier", "--naam", f"Drill Transport {TAG}")["id"]
    planner = {"email": f"planner-{TAG}@drill.example", "password": secrets.token_urlsafe(18)}
    flask("create-user", "--transporteur", carrier, "--role", "planner", "--naam", "Planner",
          "--email", planner["email"], "--password", planner["password"])  # fmt: skip
    key = flask("create-api-key", "--transporteur", carrier, "--naam", "drill")["key"]
    driver = flask("create-driver", "--transporteur", carrier, "--naam", "Jan Drill")
    seeded = {"carrier": carrier, "planner": planner, "api_key": key, "driver": driver}
    Path(args.out).write_text(json.dumps(seeded))
    print(f"   migrated, app role granted, carrier {carrier} with a planner, an API key and "
          "a driver", flush=True)  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("seed", help="migrate, grant, and make the drill's data")
    one.add_argument("--owner-url", required=True)
    one.add_argument("--app-role", required=True)
    one.add_argument("--out", required=True, help="where to write what was made (JSON)")
    two = commands.add_parser("check", help="the proofs, through HAProxy")
    two.add_argument("--base", required=True, help="HAProxy's address (PUBLIC_BASE_URL)")
    two.add_argument("--cafile", required=True, help="HAProxy's certificate")
    two.add_argument("--stats-socket", required=True)
    two.add_argument("--host", action="append", required=True, help="name=direct URL")
    two.add_argument("--kill-pgid", type=int, required=True, help="h2's gunicorn group")
    two.add_argument("--receiver", required=True, help="address for the webhook receiver")
    two.add_argument("--seeded", required=True, help="the JSON file seed wrote")
    two.add_argument("--logs", required=True, help="the folder of the hosts' logs")
    two.add_argument("--db", required=True, help="a superuser URL of the drill's database")
    args = parser.parse_args()
    try:
        if args.command == "seed":
            seed(args)
            return 0
        seeded = json.loads(Path(args.seeded).read_text())
        args.api_key = seeded["api_key"]
        args.driver_id = seeded["driver"]["id"]
        args.driver_token = seeded["driver"]["user_token"]
        args.planner, args.password = seeded["planner"]["email"], seeded["planner"]["password"]
        args.host_of = {
            re.sub(r"^\w+://([^:/]+).*", r"\1", url): name
            for name, url in (item.split("=", 1) for item in args.host)
        }
        drill = Drill(args)
        drill.wait_ready()
        drill.prove_portal()
        drill.prove_files()
        drill.prove_idempotency()
        drill.prove_webhooks()
        drill.prove_failover()
    except DrillFailed as error:
        print(f"DRILL FAILED: {error}", file=sys.stderr, flush=True)
        return 1
    print("== all proved: two app hosts behind one address", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
