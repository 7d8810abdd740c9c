"""Clients generated from /api/v1/openapi.json, used as they come out of the generator.

An integrator validates the document (openapi-spec-validator), generates a Python client
(openapi-python-client) and TypeScript types (openapi-typescript, used with openapi-fetch),
and writes the app against them. So: the document validates, the Python generator has nothing
to warn about and every generated module imports, a small openapi-fetch script type-checks
with tsc, and a driver's short day runs through the generated Python client alone against a
live server on loopback: nothing sent or read past the generated functions and models.

The tools are pinned in requirements-dev.txt and package.json; `scripts/setup.sh --dev`
installs them. Without one these tests skip and say which; in CI (CI set) they fail.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import sysconfig
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import base_config
from factories import (
    PASSWORD,
    Ref,
    create_carrier,
    create_driver,
    create_task,
    png_bytes,
    publish_questionnaire,
    served,
)

from portal import create_app
from portal.extensions import db

pytestmark = pytest.mark.generated_clients

ROOT = Path(__file__).resolve().parents[2]
PYTHON_BIN = Path(sysconfig.get_path("scripts"))  # openapi-python-client and the ruff it runs
NODE_BIN = ROOT / "node_modules" / ".bin"
PACKAGE = "rijplan_client"
TOOL_TIMEOUT = 180  # seconds; each tool takes a few on this machine


# --- tools -------------------------------------------------------------------------------


def missing(reason: str):
    """Skip, naming what is missing; in CI a missing tool is a failure, never a silent skip."""
    reason += " (bash scripts/setup.sh --dev installs it)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def tool(path: Path) -> Path:
    if not os.access(path, os.X_OK):
        missing(f"{path} is missing")
    if path.parent == NODE_BIN and shutil.which("node") is None:
        missing("node is missing")
    return path


def run(command: list, cwd: Path) -> str:
    """Run a tool with this interpreter's scripts first on PATH; its output, stderr included."""
    env = {**os.environ, "PATH": f"{PYTHON_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("NODE_OPTIONS", None)
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TOOL_TIMEOUT,
        check=False,
    )
    output = result.stdout + result.stderr
    if result.returncode != 0:
        pytest.fail(f"{Path(command[0]).name} exited {result.returncode}:\n{output}", pytrace=False)
    return output


# --- a live server with a driver's day seeded -------------------------------------------


@dataclass
class Day:
    url: str
    app: object
    driver: Ref
    task: Ref
    questionnaire: Ref


@pytest.fixture(scope="module")
def live(sqlite_template, tmp_path_factory) -> Iterator[Day]:
    """The app on a copy of the migrated SQLite template, served on loopback, with a driver,
    the carrier's active mest_laden questionnaire and a task that demands a photo."""
    folder = tmp_path_factory.mktemp("generated-clients")
    path = folder / "rijplan.sqlite"
    shutil.copy(sqlite_template, path)
    app = create_app({**base_config(folder), "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}"})
    carrier = create_carrier(app, "Van der Berg Agrotransport")
    driver = create_driver(app, carrier, "Jan de Vries")
    questionnaire = publish_questionnaire(app, carrier)
    task = create_task(
        app,
        carrier,
        driver,
        naam="Mest laden Enter",
        type="mest_laden",
        stad="Enter",
        gepland_op=datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1),
        require_photos=True,
        hoeveelheid=30,
        eenheid="ton",
    )
    try:
        with served(app, "clients-live-server") as port:
            yield Day(f"http://127.0.0.1:{port}", app, driver, task, questionnaire)
    finally:
        with app.app_context():
            db.engine.dispose()


@pytest.fixture(scope="module")
def document(live, tmp_path_factory) -> Path:
    """/api/v1/openapi.json as the app serves it, in a file as an integrator saves it."""
    response = live.app.test_client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    path = tmp_path_factory.mktemp("document") / "openapi.json"
    path.write_text(json.dumps(response.get_json(), indent=2), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def python_client(document, tmp_path_factory) -> Iterator[tuple[object, str]]:
    """The generated Python package, importable as rijplan_client, and the generator's output."""
    generator = tool(PYTHON_BIN / "openapi-python-client")
    folder = tmp_path_factory.mktemp("python-client")
    # A PDF answer (a proof of delivery) is binary: the generator reads application/pdf as
    # it reads application/octet-stream (a File), as an integrator's config tells it to.
    config = folder / "config.json"
    config.write_text(
        json.dumps({"content_type_overrides": {"application/pdf": "application/octet-stream"}}),
        encoding="utf-8",
    )
    output = run(
        [
            generator,
            "generate",
            "--path",
            document,
            "--config",
            config,
            "--output-path",
            folder / PACKAGE,
            "--meta",
            "none",
        ],
        cwd=folder,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(folder))
        try:
            yield importlib.import_module(PACKAGE), output
        finally:
            for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
                del sys.modules[name]


# --- 1. the document ---------------------------------------------------------------------


def test_the_document_validates_with_openapi_spec_validator(document):
    try:
        from openapi_spec_validator import validate
        from openapi_spec_validator.readers import read_from_filename
    except ImportError:
        missing("openapi-spec-validator is not installed")
    spec, _ = read_from_filename(str(document))
    validate(spec)  # raises, naming the first error


# --- 2. the Python client ----------------------------------------------------------------


def test_the_python_client_generates_without_warnings_and_imports(python_client):
    package, output = python_client
    # A clean run prints one line, "Generating <path>"; everything else is a warning about
    # a part of the document the client leaves out or gets wrong.
    warnings = [
        line for line in output.splitlines() if line.strip() and not line.startswith("Generating ")
    ]
    assert warnings == [], output
    broken = []
    for module in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
        try:
            importlib.import_module(module.name)
        except Exception as error:
            broken.append(f"{module.name}: {type(error).__name__}: {error}")
    assert broken == []


# --- 3. TypeScript types and openapi-fetch -----------------------------------------------

FIRST_MOVES_TS = """\
// A driver's first moves, typed by the generated paths: tsc checks it, nothing runs it.
import createClient from "openapi-fetch";
import type { components, paths } from "./rijplan-api";

type Task = components["schemas"]["Task"];

export async function firstMoves(baseUrl: string, username: string, password: string) {
  const anonymous = createClient<paths>({ baseUrl });
  const signedIn = await anonymous.POST("/auth/token", {
    body: { grant_type: "password", username, password },
  });
  if (!signedIn.data) throw new Error(`sign-in refused: ${signedIn.response.status}`);
  const api = createClient<paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${signedIn.data.access_token}` },
  });

  const listed = await api.GET("/taken", { params: { query: { status: "gepland" } } });
  const tasks: Task[] = listed.data ?? [];
  const first = tasks[0];
  if (first === undefined) return null;

  const read = await api.GET("/taken/{task_id}", { params: { path: { task_id: first.id } } });
  const etag = read.response.headers.get("ETag");
  if (!read.data || etag === null) throw new Error(`no task: ${read.response.status}`);

  const moved = await api.PATCH("/taken/{task_id}/status", {
    params: {
      path: { task_id: first.id },
      header: { "If-Match": etag, "Idempotency-Key": crypto.randomUUID() },
    },
    body: { status: "ontvangen" },
  });
  if (!moved.data) throw new Error(`not moved: ${moved.error?.title}`);
  const task: Task = moved.data;
  return task;
}
"""

TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "noEmit": True,
        "target": "ES2022",
        "module": "ESNext",
        "moduleResolution": "Bundler",
        "lib": ["ES2022", "DOM"],
        "types": [],
    },
    "files": ["first-moves.ts"],
}


def test_a_typescript_script_on_openapi_fetch_type_checks(document, tmp_path):
    generator = tool(NODE_BIN / "openapi-typescript")
    tsc = tool(NODE_BIN / "tsc")
    (tmp_path / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    run([generator, document, "--output", tmp_path / "rijplan-api.d.ts"], cwd=tmp_path)
    (tmp_path / "first-moves.ts").write_text(FIRST_MOVES_TS, encoding="utf-8")
    (tmp_path / "tsconfig.json").write_text(json.dumps(TSCONFIG), encoding="utf-8")
    run([tsc, "--project", tmp_path / "tsconfig.json", "--pretty", "false"], cwd=tmp_path)


# --- 4. a driver's day through the generated Python client --------------------------------


def parsed(response, status: int, model):
    """The response's body as the generated model: the documented status, nothing left raw."""
    assert response.status_code == status, response.content
    body = response.parsed
    assert isinstance(body, model), f"{type(body).__name__} is no {model.__name__}: {body}"
    return body


def undocumented(model) -> dict:
    """Fields the document does not name, which the generated model can only keep raw."""
    return getattr(model, "additional_properties", {})


def test_a_drivers_day_through_the_generated_python_client(live, python_client):
    from rijplan_client import AuthenticatedClient, Client
    from rijplan_client.api.auth import token
    from rijplan_client.api.files import upload_file
    from rijplan_client.api.questionnaires import save_answers
    from rijplan_client.api.task_integration import task_details
    from rijplan_client.api.tasks import change_status, complete_for_billing, driver_tasks, get_task
    from rijplan_client.models import (
        Afronding,
        AfrondingResult,
        AnswerSession,
        PasswordGrant,
        Problem,
        QuestionnaireAnswer,
        StatusChange,
        StoredFile,
        Task,
        TaskWithQuestionnaires,
        TokenResponse,
        UploadFileFileUploadForm,
        UploadFileFileUploadFormSoort,
    )
    from rijplan_client.types import File

    base_url = f"{live.url}/api/v1"
    with Client(base_url=base_url) as anonymous:
        grant = PasswordGrant(grant_type="password", username=live.driver.email, password=PASSWORD)
        signed_in = parsed(token.sync_detailed(client=anonymous, body=grant), 200, TokenResponse)

    with AuthenticatedClient(base_url=base_url, token=signed_in.access_token) as api:
        # The driver's list: the seeded task, with the questionnaire it pinned.
        listed = driver_tasks.sync_detailed(signed_in.user_token, client=api)
        assert listed.status_code == 200, listed.content
        assert [t.id for t in listed.parsed] == [live.task.id]
        assert all(isinstance(t, Task) for t in listed.parsed)

        # httpx asks for gzip: the ETag of a compressed answer goes back as If-Match verbatim.
        read = get_task.sync_detailed(live.task.id, client=api)
        task = parsed(read, 200, Task)
        assert read.headers["Content-Encoding"] == "gzip"
        assert undocumented(task) == {}
        received = read.headers["ETag"]

        key = str(uuid.uuid4())
        move = StatusChange.from_dict({"status": "ontvangen"})
        moved = change_status.sync_detailed(
            live.task.id, client=api, body=move, if_match=received, idempotency_key=key
        )
        assert parsed(moved, 200, Task).status == "ontvangen"
        # A retry with the same key (the answer got lost) gets the same answer, not a 409.
        again = change_status.sync_detailed(
            live.task.id, client=api, body=move, if_match=received, idempotency_key=key
        )
        assert parsed(again, 200, Task).status == "ontvangen"
        assert again.headers["Idempotent-Replayed"] == "true"
        # A new move on the version read before is refused: If-Match is honoured, not ignored.
        stale = change_status.sync_detailed(
            live.task.id,
            client=api,
            body=StatusChange.from_dict({"status": "gestart"}),
            if_match=received,
            idempotency_key=str(uuid.uuid4()),
        )
        assert parsed(stale, 412, Problem).status == 412

        started = change_status.sync_detailed(
            live.task.id,
            client=api,
            body=StatusChange.from_dict({"status": "gestart"}),
            if_match=moved.headers["ETag"],
            idempotency_key=str(uuid.uuid4()),
        )
        assert parsed(started, 200, Task).status == "gestart"

        # A photo, and its signed link works from the URL as given.
        form = UploadFileFileUploadForm(
            file=File(payload=io.BytesIO(png_bytes()), file_name="lading.png"),
            soort=UploadFileFileUploadFormSoort.PHOTO,
        )
        photo = parsed(upload_file.sync_detailed(client=api, body=form), 201, StoredFile)
        assert photo.content_type == "image/png"
        download = api.get_httpx_client().get(photo.url)
        assert download.status_code == 200 and download.content == png_bytes()

        answers = QuestionnaireAnswer.from_dict(
            {"taak_id": str(live.task.id), "answers": {"gewicht": 28500}, "indienen": True}
        )
        saved = save_answers.sync_detailed(
            client=api, body=answers, idempotency_key=str(uuid.uuid4())
        )
        session = parsed(saved, 201, AnswerSession)
        assert session.status == "ingediend"

        completion = Afronding.from_dict(
            {"fotos": [str(photo.id)], "hoeveelheid": 28.5, "eenheid": "ton", "kilometers": 42}
        )
        done = complete_for_billing.sync_detailed(
            live.task.id, client=api, body=completion, idempotency_key=str(uuid.uuid4())
        )
        result = parsed(done, 200, AfrondingResult)
        assert isinstance(result.taak, Task) and result.taak.status == "afgerond"
        assert result.facturatieregel.hoeveelheid == 28.5

        details = parsed(
            task_details.sync_detailed(live.task.id, client=api), 200, TaskWithQuestionnaires
        )
        assert details.taak.status == "afgerond"
        assert details.vragenlijst.id == live.questionnaire.id
        assert [s.id for s in details.answer_sessions] == [session.id]
        assert [(e.bestand_id, e.soort) for e in details.bewijzen] == [(photo.id, "photo")]
        assert details.blokkades == []
        assert undocumented(details) == {}
