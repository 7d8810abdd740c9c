"""The planning board: a day of tasks in a lane per driver, or a range of days by status.

Tasks move by drag and drop (static/js/board.js) or by a keyboard-friendly form, change
status through the lifecycle's state machine, and are created and edited in one form. Every
route works as a plain page and form without JavaScript; htmx requests get fragments.
Each request loads, checks and acts through the tasks service, then commits once.

The board's routes are on one blueprint, `tasks` (`kit.bp`, with what the board's pages
share); importing this package registers them: the board (`board`, its cards in `cards`), a
task's moves (`moves`), the trailer chosen for it (`trailer`) and its form (`form`; the
WTForms in `forms` and `task_forms`). The task page (`detail`, blueprint `task_detail`),
completion on a paper note (`paper`, `task_paper`) and the import (`importing`,
`task_import`) have blueprints of their own.
"""

from portal.tasks.pages import board, form, moves, trailer
from portal.tasks.pages.cards import KEPT_CARDS, card_context, card_demands
from portal.tasks.pages.kit import bp, task_page_url

__all__ = [
    "KEPT_CARDS",
    "board",
    "bp",
    "card_context",
    "card_demands",
    "form",
    "moves",
    "task_page_url",
    "trailer",
]
