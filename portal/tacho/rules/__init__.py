"""EU driving and rest times (Regulation (EC) 561/2006 as amended by (EU) 2020/1054), checked
over a driver's time as segments (portal.tacho.segments), whatever their source.

`check` lists infringements and checks that unknown time made impossible; `budget` says how
much a driver may still drive now; `planning_problem` says whether planned work fits in it;
`app_segments` turns the hours recorded in the app into segments and `combine` joins them
with card data. Pure: no Flask, no database.

Each article group reads on its own next to the regulation (the points a Dutch transport-law
adviser should review are marked ⚖ in them):

- driving_times: Art. 6, daily, weekly and two-week driving;
- breaks: Art. 7, breaks;
- daily_rests: Art. 8(2)-(5), shifts and daily rests, reduced and split;
- weekly_rests: Art. 8(6)-(9), weekly rests, the two-week pairs and compensation.

They share one walk (walk: the segments as whole UTC minutes, read with unknown time as rest
and as work), are run together by articles, and judged into findings by findings
(infringement or incomplete). limits holds the regulation's figures, severity the classes of
(EU) 2016/403. remaining gives the budget, app_hours the app's side.

How the rules are read, over all article groups:

- All time is in whole UTC minutes; a week is Monday 00:00 to Monday 00:00 UTC (Art. 4(i),
  as the tachograph counts). Limits are inclusive: exactly 4 h 30, 9 h, 56 h, 90 h of
  driving, 45 min of break, 11 h, 9 h, 45 h, 24 h of rest are kept.
- Availability is neither break nor rest; in a multi-manned shift, availability counts as a
  break (Art. 7 as amended: the co-driver's break in the moving vehicle).
- The start of the data is taken as the end of a weekly rest (nothing earlier is known); a
  rest running at the start of the data is taken as ending there. Time after the last
  segment has not happened: a rest or compensation due after it is no finding, a limit
  already passed is.
- Unknown time (activiteit "onbekend", and gaps between segments): every rule is evaluated
  twice, with unknown read as rest (optimistic) and as work that is neither rest nor driving
  (pessimistic). A finding in both readings (same rule, overlapping period) is an
  infringement with the optimistic figures; a finding in only one is `onvolledig` (the check
  depends on the unknown time); adjoining incomplete findings of one rule are joined.
- Out of scope (scope: docs/eu561-scope.md): driving in a vehicle the regulation does not
  cover counts as other work (Art. 6(5), 9(3)); a finding over such time with no driving in
  scope is `vrijgesteld`, with the article.
- Not implemented (phase 2 or out of scope): ferry/train interruptions (Art. 9), the two
  consecutive reduced weekly rests abroad (Art. 8(6) third subparagraph), Art. 12
  exceptions (to be annotated by the user), weekly rest in the cab and the return home every
  four weeks (Art. 8(8), 8(8a)), working time (2002/15).
"""

from __future__ import annotations

from portal.tacho.rules.app_hours import APP_ACTIVITEIT, AppDay, app_segments, combine
from portal.tacho.rules.findings import Finding, check
from portal.tacho.rules.limits import (
    ART_6_1,
    ART_6_2,
    ART_6_3,
    ART_7,
    ART_8_2,
    ART_8_4,
    ART_8_5,
    ART_8_6,
    DAGELIJKSE_RIJTIJD,
    DAGELIJKSE_RUST,
    ONDERBREKING,
    ONVOLLEDIG,
    OVERTREDING,
    TWEE_WEKEN_RIJTIJD,
    VERKORTE_RUST,
    VERLENGDE_RIJTIJD,
    VRIJGESTELD,
    WEKELIJKSE_RIJTIJD,
    WEKELIJKSE_RUST,
)
from portal.tacho.rules.remaining import Budget, budget, planning_problem
from portal.tacho.rules.scope import (
    ART_3_B,
    MAX_SPEED_OUT_OF_SCOPE,
    ExemptPeriod,
    VehicleUse,
    as_other_work,
    exempt_periods,
    mark_exempt,
)
from portal.tacho.rules.severity import (
    ERNSTIG,
    LICHT,
    SEVERITY_COMPENSATION,
    SEVERITY_TOO_LITTLE,
    SEVERITY_TOO_MUCH,
    ZEER_ERNSTIG,
    ZEER_ERNSTIG_MAX,
    severity,
)

__all__ = [
    "APP_ACTIVITEIT",
    "ART_3_B",
    "ART_6_1",
    "ART_6_2",
    "ART_6_3",
    "ART_7",
    "ART_8_2",
    "ART_8_4",
    "ART_8_5",
    "ART_8_6",
    "DAGELIJKSE_RIJTIJD",
    "DAGELIJKSE_RUST",
    "ERNSTIG",
    "LICHT",
    "MAX_SPEED_OUT_OF_SCOPE",
    "ONDERBREKING",
    "ONVOLLEDIG",
    "OVERTREDING",
    "SEVERITY_COMPENSATION",
    "SEVERITY_TOO_LITTLE",
    "SEVERITY_TOO_MUCH",
    "TWEE_WEKEN_RIJTIJD",
    "VERKORTE_RUST",
    "VERLENGDE_RIJTIJD",
    "VRIJGESTELD",
    "WEKELIJKSE_RIJTIJD",
    "WEKELIJKSE_RUST",
    "ZEER_ERNSTIG",
    "ZEER_ERNSTIG_MAX",
    "AppDay",
    "Budget",
    "ExemptPeriod",
    "Finding",
    "VehicleUse",
    "app_segments",
    "as_other_work",
    "budget",
    "check",
    "combine",
    "exempt_periods",
    "mark_exempt",
    "planning_problem",
    "severity",
]
