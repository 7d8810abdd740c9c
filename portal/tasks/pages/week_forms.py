"""The week view's query string as a form: the period (first day and number of days), what a
lane stands for, and the day board's filters (GET: no CSRF token)."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms import IntegerField, SelectChoice, SelectField
from wtforms.validators import NumberRange, Optional
from wtforms.widgets import NumberInput

from portal.tasks.pages.forms import BoardFilterForm

MIN_DAYS, MAX_DAYS, WEEK_DAYS = 2, 14, 7  # a period of 2 to 14 days; a week by default
LANE_KINDS = ("chauffeur", "voertuig", "combinatie")  # what one lane stands for


class WeekFilterForm(BoardFilterForm):
    """The week view: `van` (its first day; Monday of this week when absent), `dagen` (2-14)
    and `baan` (a lane per driver, per vehicle or per combination) besides the board's
    filters. A value that is not valid is an error at its field and is ignored."""

    dagen = IntegerField(
        _l("Dagen"),
        widget=NumberInput(min=MIN_DAYS, max=MAX_DAYS),
        validators=[
            Optional(),
            NumberRange(
                min=MIN_DAYS,
                max=MAX_DAYS,
                message=_l("Kies %(min)s tot %(max)s dagen.", min=MIN_DAYS, max=MAX_DAYS),
            ),
        ],
    )
    baan = SelectField(
        _l("Baan per"),
        choices=[
            SelectChoice("chauffeur", _l("Chauffeur")),
            SelectChoice("voertuig", _l("Voertuig")),
            SelectChoice("combinatie", _l("Combinatie")),
        ],
        validators=[Optional()],
    )

    def __init__(self, *args, combinations: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.weergave.choices = [SelectChoice("week", _l("Week"))]
        if not combinations:  # the fleet knows no couplings (yet)
            self.baan.choices = [c for c in self.baan.choices if c.value != "combinatie"]
