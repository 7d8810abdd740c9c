"""The builder's service functions: drafts with their versie, publishing, and the impact count."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest
from factories import create_task, in_carrier, publish_questionnaire, questionnaire_doc

from portal.audit.service import SYSTEM
from portal.errors import Conflict, ValidationFailed
from portal.questionnaires import service


def run(app, carrier, fn, convert=lambda value: value):
    return in_carrier(app, carrier.id, fn, convert)


def new_draft(app, carrier, doc: dict) -> int:
    return run(
        app,
        carrier,
        lambda: service.create_draft(carrier_id=carrier.id, doc=doc, user_id=None, actor=SYSTEM),
        lambda draft: draft.versie,
    )


def test_a_draft_saves_only_on_top_of_the_versie_it_was_read_at(app, carrier):
    doc = questionnaire_doc("kuikens_laden", "kuikens")
    assert new_draft(app, carrier, doc) == 1

    def save(versie, title):
        return service.save_draft(
            carrier_id=carrier.id,
            questionnaire_id="kuikens",
            doc={**doc, "title": title},
            expected_versie=versie,
            user_id=None,
        )

    assert run(app, carrier, lambda: save(1, "Eerste"), lambda d: d.versie) == 2
    with pytest.raises(service.StaleDraft) as stale:
        run(app, carrier, lambda: save(1, "Tweede tabblad"))
    assert stale.value.extra["versie"] == 2
    stored = run(
        app,
        carrier,
        lambda: service.get_draft(carrier_id=carrier.id, questionnaire_id="kuikens"),
        lambda d: orjson.loads(d.definition),
    )
    assert stored["title"] == "Eerste"


def test_a_draft_keeps_its_own_questionnaire_id_and_refuses_more_than_a_megabyte(app, carrier):
    new_draft(app, carrier, questionnaire_doc("kuikens_laden", "kuikens"))
    saved = run(
        app,
        carrier,
        lambda: service.save_draft(
            carrier_id=carrier.id,
            questionnaire_id="kuikens",
            doc={"questionnaire_id": "iets-anders", "questions": "rommel"},
            expected_versie=1,
            user_id=None,
        ),
        lambda d: orjson.loads(d.definition),
    )
    assert saved == {"questionnaire_id": "kuikens", "questions": "rommel"}  # problems are kept
    with pytest.raises(ValidationFailed):
        run(
            app,
            carrier,
            lambda: service.save_draft(
                carrier_id=carrier.id,
                questionnaire_id="kuikens",
                doc={"title": "x" * service.MAX_DRAFT_BYTES},
                expected_versie=2,
                user_id=None,
            ),
        )


def test_a_questionnaire_id_in_use_cannot_start_a_second_questionnaire(app, carrier):
    publish_questionnaire(app, carrier)
    with pytest.raises(Conflict):
        new_draft(app, carrier, questionnaire_doc())


def test_publishing_a_draft_makes_the_active_revision_and_removes_the_draft(app, carrier):
    first = publish_questionnaire(app, carrier)
    # Another questionnaire for the same activity type is active too before: it is replaced.
    run(
        app,
        carrier,
        lambda: service.start_draft(
            carrier_id=carrier.id, questionnaire_id="mest-laden", user_id=None
        ),
    )
    other = questionnaire_doc("mest_laden", "mest-anders", "Mest (anders)")
    new_draft(app, carrier, other)
    replaced = run(
        app,
        carrier,
        lambda: service.revisions_replaced(
            carrier_id=carrier.id, questionnaire_id="mest-anders", activity_type="mest_laden"
        ),
        lambda rows: [row.id for row in rows],
    )
    assert replaced == [first.id]
    revision = run(
        app,
        carrier,
        lambda: service.publish_draft(
            carrier_id=carrier.id, questionnaire_id="mest-anders", expected_versie=1, actor=SYSTEM
        ),
        lambda row: (row.questionnaire_id, row.revisie, row.is_active),
    )
    assert revision == ("mest-anders", 1, True)
    active = run(
        app,
        carrier,
        lambda: service.active_for_type(carrier_id=carrier.id, activity_type="mest_laden"),
        lambda row: row.questionnaire_id,
    )
    assert active == "mest-anders"
    assert (
        run(
            app,
            carrier,
            lambda: service.get_draft(carrier_id=carrier.id, questionnaire_id="mest-anders"),
        )
        is None
    )
    # The other draft (of mest-laden) is untouched.
    assert (
        run(
            app,
            carrier,
            lambda: service.get_draft(carrier_id=carrier.id, questionnaire_id="mest-laden"),
        )
        is not None
    )


def test_a_draft_with_problems_is_not_published(app, carrier):
    new_draft(app, carrier, {**questionnaire_doc("kuikens_laden", "kuikens"), "questions": []})
    run(
        app,
        carrier,
        lambda: service.save_draft(
            carrier_id=carrier.id,
            questionnaire_id="kuikens",
            doc={**questionnaire_doc("kuikens_laden", "kuikens"), "title": ""},
            expected_versie=1,
            user_id=None,
        ),
    )
    with pytest.raises(ValidationFailed):
        run(
            app,
            carrier,
            lambda: service.publish_draft(
                carrier_id=carrier.id, questionnaire_id="kuikens", expected_versie=2, actor=SYSTEM
            ),
        )
    with pytest.raises(service.StaleDraft):
        run(
            app,
            carrier,
            lambda: service.publish_draft(
                carrier_id=carrier.id, questionnaire_id="kuikens", expected_versie=1, actor=SYSTEM
            ),
        )


def test_the_impact_counts_open_unarchived_tasks_of_the_revision_only(app, carrier, driver):
    from portal.tasks import service as tasks
    from portal.tasks.models import Task

    revision = publish_questionnaire(app, carrier)
    for status in ("gepland", "ontvangen", "gestart", "afgerond", "geannuleerd"):
        create_task(app, carrier, driver, status=status)
    archived = create_task(app, carrier, driver)
    create_task(app, carrier, driver, type="voer_leveren")  # no questionnaire of its own

    def archive():
        from portal.extensions import db

        db.session.get(Task, (carrier.id, archived.id)).gearchiveerd_op = datetime.now(UTC)

    run(app, carrier, archive)
    count = run(
        app,
        carrier,
        lambda: tasks.count_open_pinned(carrier_id=carrier.id, revision_id=revision.id),
    )
    assert count == 3


def test_the_overview_lists_drafts_and_revisions_by_activity_type(app, carrier, other_carrier):
    publish_questionnaire(app, carrier, questionnaire_doc("voer_leveren", title="Voer"))
    publish_questionnaire(app, carrier)
    publish_questionnaire(app, carrier)
    new_draft(app, carrier, questionnaire_doc("aaa_type", "alleen-concept", "Alleen concept"))
    publish_questionnaire(app, other_carrier, questionnaire_doc("koel_transport", title="Ander"))
    items = run(
        app,
        carrier,
        lambda: service.overview(carrier_id=carrier.id),
        lambda rows: [
            (
                r.questionnaire_id,
                r.activity_type,
                r.revision_count,
                r.active.revisie if r.active else None,
                r.draft is not None,
            )
            for r in rows
        ],
    )
    assert items == [
        ("alleen-concept", "aaa_type", 0, None, True),
        ("mest-laden", "mest_laden", 2, 2, False),
        ("voer-leveren", "voer_leveren", 1, 1, False),
    ]
