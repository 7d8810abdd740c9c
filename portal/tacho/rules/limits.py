"""The limits of Regulation (EC) 561/2006 in whole minutes, the names of the rules checked
against them (the `regel` of a finding) and the articles they come from."""

from __future__ import annotations

OVERTREDING, ONVOLLEDIG = "overtreding", "onvolledig"
# A finding over time out of the regulation's scope (rules/scope.py): never an infringement.
VRIJGESTELD = "vrijgesteld"

DAGELIJKSE_RIJTIJD = "dagelijkse_rijtijd"
VERLENGDE_RIJTIJD = "verlengde_rijtijd"
WEKELIJKSE_RIJTIJD = "wekelijkse_rijtijd"
TWEE_WEKEN_RIJTIJD = "twee_weken_rijtijd"
ONDERBREKING = "onderbreking"
DAGELIJKSE_RUST = "dagelijkse_rust"
VERKORTE_RUST = "verkorte_rust"
WEKELIJKSE_RUST = "wekelijkse_rust"

ART_6_1 = "561/2006 art. 6 lid 1"
ART_6_2 = "561/2006 art. 6 lid 2"
ART_6_3 = "561/2006 art. 6 lid 3"
ART_7 = "561/2006 art. 7"
ART_8_2 = "561/2006 art. 8 lid 2"
ART_8_4 = "561/2006 art. 8 lid 4"
ART_8_5 = "561/2006 art. 8 lid 5"
ART_8_6 = "561/2006 art. 8 lid 6"

H = 60
DAY = 24 * H
WEEK = 7 * DAY
DRIVE_DAY, DRIVE_DAY_EXTENDED, EXTENSIONS = 9 * H, 10 * H, 2
DRIVE_WEEK, DRIVE_TWO_WEEKS = 56 * H, 90 * H
DRIVE_PERIOD, BREAK, BREAK_FIRST, BREAK_SECOND = 4 * H + 30, 45, 15, 30
REST_REGULAR, REST_REDUCED, REST_SPLIT_FIRST, REDUCTIONS = 11 * H, 9 * H, 3 * H, 3
WINDOW, WINDOW_CREW = 24 * H, 30 * H
WEEKLY_REGULAR, WEEKLY_REDUCED, WEEKLY_DUE = 45 * H, 24 * H, 6 * 24 * H
