"""Couplings: a towed vehicle behind a motorised one for a day or a task; refusals name the
rule (two motorised vehicles, kinds that do not couple, a trailer in use elsewhere, a motor
that already pulls another); the combinations other units plan with, in a fixed number of
queries."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from factories import Ref, create_task, in_carrier

from portal.audit.service import SYSTEM
from portal.errors import ValidationFailed

DAY = date(2026, 12, 7)  # a Monday


def vehicle(app, carrier, kenteken, soort, **fields):
    """A vehicle row as stored (the fleet service's own rules are tested in its tests)."""
    from portal.extensions import db
    from portal.fleet.models import Vehicle

    def make():
        row = Vehicle(transporteur_id=carrier.id, kenteken=kenteken, soort=soort, **fields)
        db.session.add(row)
        db.session.flush()
        return row

    return in_carrier(app, carrier.id, make, lambda v: Ref(v.id, carrier.id, naam=kenteken))


@pytest.fixture
def fleet(app, carrier):
    """Two tractor units, a truck and their trailers."""
    return {
        name: vehicle(app, carrier, plate, soort)
        for name, plate, soort in (
            ("trekker", "BX-12-LP", "opleggertrekker"),
            ("trekker2", "BX-13-LP", "opleggertrekker"),
            ("truck", "BX-14-LP", "vrachtwagen"),
            ("oplegger", "OA-12-BC", "oplegger"),
            ("oplegger2", "OA-13-BC", "oplegger"),
            ("aanhanger", "WA-12-BC", "aanhangwagen"),
        )
    }


def couple(app, carrier, motor, towed, **kw):
    from portal.fleet import couplings

    return in_carrier(
        app,
        carrier.id,
        lambda: couplings.couple(
            carrier_id=carrier.id, motor_id=motor.id, towed_id=towed.id, actor=SYSTEM, **kw
        ),
        lambda c: c.id,
    )


def refusal(app, carrier, motor, towed, **kw) -> str:
    from portal.fleet.couplings import CouplingRefused

    with pytest.raises(CouplingRefused) as caught:
        couple(app, carrier, motor, towed, **kw)
    return caught.value.code


def test_a_semi_trailer_is_coupled_to_a_tractor_unit_for_a_day(app, carrier, fleet):
    from portal.fleet import couplings

    couple(app, carrier, fleet["trekker"], fleet["oplegger"], day=DAY)
    found = in_carrier(
        app,
        carrier.id,
        lambda: couplings.combinations(carrier_id=carrier.id, day=DAY),
        lambda combos: {k: v.kenteken if v else None for k, v in combos.items()},
    )
    assert found[fleet["trekker"].id] == "OA-12-BC"
    assert found[fleet["truck"].id] is None  # motorised, solo
    assert fleet["oplegger"].id not in found  # towed vehicles are no lanes


def test_the_same_coupling_twice_is_the_same_coupling(app, carrier, fleet):
    first = couple(app, carrier, fleet["trekker"], fleet["oplegger"], day=DAY)
    assert couple(app, carrier, fleet["trekker"], fleet["oplegger"], day=DAY) == first


def test_two_motorised_vehicles_are_refused(app, carrier, fleet):
    assert refusal(app, carrier, fleet["trekker"], fleet["truck"], day=DAY) == "two_motorised"


def test_a_semi_trailer_behind_a_truck_is_refused_naming_the_rule(app, carrier, fleet):
    code = refusal(app, carrier, fleet["truck"], fleet["oplegger"], day=DAY)
    assert code == "semi_trailer_needs_tractor_unit"


def test_a_trailer_coupled_elsewhere_that_day_is_in_use(app, carrier, fleet):
    couple(app, carrier, fleet["trekker"], fleet["oplegger"], day=DAY)
    code = refusal(app, carrier, fleet["trekker2"], fleet["oplegger"], day=DAY)
    assert code == "towed_in_use"
    # The next day it is free.
    couple(app, carrier, fleet["trekker2"], fleet["oplegger"], day=date(2026, 12, 8))


def test_a_motor_that_pulls_another_trailer_that_day_is_refused(app, carrier, fleet):
    couple(app, carrier, fleet["trekker"], fleet["oplegger"], day=DAY)
    code = refusal(app, carrier, fleet["trekker"], fleet["oplegger2"], day=DAY)
    assert code == "motor_pulls_other"


def test_uncoupling_frees_the_trailer_and_keeps_the_history(app, carrier, fleet):
    from portal.fleet import couplings

    first = couple(app, carrier, fleet["trekker"], fleet["oplegger"], day=DAY)
    in_carrier(
        app,
        carrier.id,
        lambda: couplings.uncouple(carrier_id=carrier.id, coupling_id=first, actor=SYSTEM),
    )
    couple(app, carrier, fleet["trekker2"], fleet["oplegger"], day=DAY)
    history = in_carrier(
        app,
        carrier.id,
        lambda: couplings.history(carrier_id=carrier.id, vehicle_id=fleet["oplegger"].id),
        lambda rows: [(r.trekkend_id, r.ontkoppeld_op is None) for r in rows],
    )
    assert history == [(fleet["trekker2"].id, True), (fleet["trekker"].id, False)]


def test_a_day_or_a_task_not_both_nor_neither(app, carrier, fleet):
    with pytest.raises(ValidationFailed):
        couple(app, carrier, fleet["trekker"], fleet["oplegger"])


def _task(app, carrier, vehicle, hour, minutes=60):
    return create_task(
        app,
        carrier,
        None,
        vehicle_id=vehicle.id,
        gepland_op=datetime(2026, 12, 7, hour, tzinfo=UTC),
        duur_min=minutes,
    )


def test_a_task_takes_the_day_coupling_unless_it_has_its_own(app, carrier, fleet):
    from portal.tasks import combinations

    morning = _task(app, carrier, fleet["trekker"], 7)
    noon = _task(app, carrier, fleet["trekker"], 11)
    couple(app, carrier, fleet["trekker"], fleet["oplegger"], day=DAY)
    couple(app, carrier, fleet["trekker"], fleet["oplegger2"], task_id=noon.id)
    found = in_carrier(
        app,
        carrier.id,
        lambda: combinations.combination_of_tasks(
            carrier_id=carrier.id, task_ids={morning.id, noon.id}
        ),
        lambda combos: {k: (m.kenteken, t.kenteken) for k, (m, t) in combos.items()},
    )
    assert found == {
        morning.id: ("BX-12-LP", "OA-12-BC"),
        noon.id: ("BX-12-LP", "OA-13-BC"),
    }


def test_a_trailer_behind_another_motor_for_an_overlapping_task_is_in_use(app, carrier, fleet):
    first = _task(app, carrier, fleet["trekker"], 7, minutes=180)
    second = _task(app, carrier, fleet["trekker2"], 9)
    later = _task(app, carrier, fleet["trekker2"], 12)
    couple(app, carrier, fleet["trekker"], fleet["oplegger"], task_id=first.id)
    code = refusal(app, carrier, fleet["trekker2"], fleet["oplegger"], task_id=second.id)
    assert code == "towed_in_use"
    couple(app, carrier, fleet["trekker2"], fleet["oplegger"], task_id=later.id)


def test_a_task_coupling_names_the_tasks_own_vehicle(app, carrier, fleet):
    task = _task(app, carrier, fleet["trekker"], 7)
    code = refusal(app, carrier, fleet["trekker2"], fleet["oplegger"], task_id=task.id)
    assert code == "not_the_tasks_vehicle"


def test_combinations_take_a_fixed_number_of_queries(app, carrier, fleet, count_queries):
    from portal.tasks import combinations

    few_ids = {_task(app, carrier, fleet["trekker"], 6).id}
    couple(app, carrier, fleet["trekker"], fleet["oplegger"], day=DAY)
    many_ids = few_ids | {_task(app, carrier, fleet["trekker"], h).id for h in (8, 10, 12, 14)}

    def counted(ids):
        def run():
            combinations.combination_of_tasks(carrier_id=carrier.id, task_ids=ids)
            with count_queries(cold=False) as counter:
                found = combinations.combination_of_tasks(carrier_id=carrier.id, task_ids=ids)
            assert {t.kenteken for _, t in found.values()} == {"OA-12-BC"}
            return len(counter.statements)

        return in_carrier(app, carrier.id, run)

    assert counted(many_ids) == counted(few_ids) <= 4
