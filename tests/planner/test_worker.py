"""The worker solves queued proposals outside any request; `flask planner solve` makes and
solves one at once."""

from __future__ import annotations

import json
from datetime import timedelta

from factories import create_driver, create_task, in_carrier
from planner.support import MONDAY, NOW, at, vehicle

from portal.audit.service import SYSTEM


def test_the_worker_solves_a_queued_proposal_and_a_second_pass_finds_nothing(app, carrier):
    from portal.planner import service, worker

    create_driver(app, carrier, naam="Anna de Vries")
    vehicle(app, carrier, "BX-12-LP")
    task = create_task(app, carrier, None, type="voer_leveren", gepland_op=at(0, 8), duur_min=90)
    proposal_id = in_carrier(
        app, carrier.id,
        lambda: service.start_proposal(carrier_id=carrier.id, van=MONDAY,
                                       tot=MONDAY + timedelta(days=7), actor=SYSTEM,
                                       seconden=2, now=NOW).id,
    )  # fmt: skip
    with app.app_context():
        assert worker.run_pass(10, clock=lambda: NOW + timedelta(minutes=1)) == {"done": 1}
        assert worker.run_pass(10, clock=lambda: NOW + timedelta(minutes=2)) == {}

    def read():
        found = service.get_proposal(carrier_id=carrier.id, proposal_id=proposal_id)
        lines = service.lines_of(carrier_id=carrier.id, proposal_id=proposal_id)
        return found.status, found.geplaatst, [ln.taak_id for ln in lines]

    assert in_carrier(app, carrier.id, read) == ("done", 1, [task.id])


def test_flask_planner_solve_makes_and_solves_a_proposal(app, carrier):
    create_driver(app, carrier, naam="Bert Smit")
    vehicle(app, carrier, "BX-13-LP")
    create_task(app, carrier, None, type="voer_leveren", gepland_op=at(1, 9), duur_min=60)
    result = app.test_cli_runner().invoke(
        args=["planner", "solve", "--transporteur", str(carrier.id), "--van", "2026-12-07",
              "--seconden", "2"]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output.strip().splitlines()[-1])
    assert answer["status"] == "done"
    assert answer["geplaatst"] == 1


def test_a_proposal_whose_worker_died_is_taken_up_after_its_lease(app, carrier):
    from portal.planner import service, worker

    create_driver(app, carrier, naam="Anna de Vries")
    vehicle(app, carrier, "BX-12-LP")
    create_task(app, carrier, None, type="voer_leveren", gepland_op=at(0, 8), duur_min=90)

    def claimed_and_abandoned():
        found = service.start_proposal(carrier_id=carrier.id, van=MONDAY,
                                       tot=MONDAY + timedelta(days=7), actor=SYSTEM,
                                       seconden=2, now=NOW)  # fmt: skip
        return service.claim_next(carrier_id=carrier.id, now=NOW).id == found.id

    assert in_carrier(app, carrier.id, claimed_and_abandoned)
    with app.app_context():
        assert worker.run_pass(10, clock=lambda: NOW + timedelta(minutes=1)) == {}
        later = NOW + service.LEASE + timedelta(minutes=1)
        assert worker.run_pass(10, clock=lambda: later) == {"done": 1}
