"""The planner's form for a share link: how many days it holds."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms import IntegerField
from wtforms.validators import InputRequired, NumberRange

from portal.proof.service import DEFAULT_DAYS, MAX_DAYS
from portal.validators import PortalForm


class ShareForm(PortalForm):
    dagen = IntegerField(
        _l("Geldig (dagen)"),
        default=DEFAULT_DAYS,
        validators=[
            InputRequired(message=_l("Vul een aantal dagen in.")),
            NumberRange(min=1, max=MAX_DAYS, message=_l("Kies 1 tot 365 dagen.")),
        ],
    )
