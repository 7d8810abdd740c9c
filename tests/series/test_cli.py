"""`flask series plan` makes a carrier's occurrences weeks ahead, and nothing twice."""

from __future__ import annotations

import orjson

from series.support import make_series, make_template, series_tasks


def test_the_command_plans_four_weeks_once(app, carrier):
    series = make_series(app, carrier, make_template(app, carrier))
    runner = app.test_cli_runner()
    args = ["series", "plan", "--transporteur", str(carrier.id), "--datum", "2026-12-14"]
    first = runner.invoke(args=args)
    assert first.exit_code == 0, first.output
    assert orjson.loads(first.output)["taken"] == 6
    again = runner.invoke(args=args)
    assert orjson.loads(again.output)["taken"] == 0
    assert len(series_tasks(app, carrier, series)) == 6


def test_without_a_carrier_every_running_series_is_planned(app, carrier):
    make_series(app, carrier, make_template(app, carrier))
    result = app.test_cli_runner().invoke(args=["series", "plan", "--datum", "2026-12-14"])
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.output)["taken"] == 6
