"""Files in answers: which questions take a file, and the files a save may name: the
carrier's own, uploaded as the kind the question asks, by this driver (or already in the
session's answers)."""

from __future__ import annotations

import uuid

import orjson

from portal.audit.service import Actor
from portal.files import service as files
from portal.questionnaires.engine import FILE_TYPES


def file_questions(questions) -> dict[str, str]:
    found = {}
    for question in questions or []:
        if question.get("type") in FILE_TYPES:
            found[question["id"]] = question["type"]
        if question.get("type") == "group":
            found.update(file_questions(question.get("questions")))
    return found


def file_problems(
    carrier_id: uuid.UUID,
    definition: dict,
    cleaned: dict,
    driver_id: uuid.UUID,
    held: dict[str, str],
) -> list[dict]:
    """Files answered must be the carrier's own, uploaded as the kind the question asks, by
    this driver (or be in the session's answers already): a colleague's photo is, to a
    driver, no such file."""
    kinds = file_questions(definition.get("questions"))
    wanted = {
        uuid.UUID(file_id): qid for qid, kind in kinds.items() for file_id in cleaned.get(qid) or ()
    }
    if not wanted:
        return []
    kept = {
        str(file_id)
        for qid in kinds
        if qid in held
        for file_id in (orjson.loads(held[qid]) if held[qid] else None) or ()
        if isinstance(file_id, str)
    }
    driver = Actor("driver", driver_id, "")
    found = {
        file_id: row
        for file_id, row in files.files_by_id(carrier_id=carrier_id, file_ids=set(wanted)).items()
        if str(file_id) in kept or files.uploaded_by(row, driver)
    }
    problems = []
    for file_id, qid in wanted.items():
        row = found.get(file_id)
        if row is None:
            message = f"no such file {file_id}; upload it with POST /api/v1/bestanden first"
        elif row.soort != kinds[qid]:
            message = f"file {file_id} was uploaded as a {row.soort}, not a {kinds[qid]}"
        else:
            continue
        problems.append(
            {"field": f"answers.{qid}", "message": message, "question_id": qid, "code": "file"}
        )
    return problems
