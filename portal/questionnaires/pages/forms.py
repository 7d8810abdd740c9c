"""Forms of the questionnaire builder: a new questionnaire."""

from __future__ import annotations

import re
import unicodedata

from flask_babel import lazy_gettext as _l
from wtforms import StringField
from wtforms.validators import DataRequired, Length, Optional, Regexp

from portal.validators import PortalForm

ID_PATTERN = r"[A-Za-z0-9_.-]{1,100}"
SLUG_PATTERN = r"[a-z0-9_-]{1,64}"


def slugify(text: str, limit: int = 64) -> str:
    """A questionnaire_id suggested from a title: "Mest laden (NL)" -> "mest-laden-nl"."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    return slug[:limit].rstrip("-")


class NewQuestionnaireForm(PortalForm):
    title = StringField(
        _l("Titel"),
        validators=[
            DataRequired(_l("Geef de vragenlijst een titel.")),
            Length(max=200, message=_l("Hoogstens 200 tekens.")),
        ],
    )
    questionnaire_id = StringField(
        _l("Vragenlijst-id"),
        validators=[
            Optional(),
            Regexp(
                rf"^{ID_PATTERN}$",
                message=_l("Alleen letters, cijfers, '_', '.' en '-' (hoogstens 100)."),
            ),
        ],
        description=_l("Vast kenmerk voor de app en koppelingen; leeg: afgeleid van de titel."),
    )
    activity_type = StringField(
        _l("Activiteit"),
        validators=[
            DataRequired(_l("Kies of typ een activiteit.")),
            Regexp(
                rf"^{SLUG_PATTERN}$",
                message=_l("Kleine letters, cijfers, '_' en '-' (hoogstens 64), bijv. mest_laden."),
            ),
        ],
        description=_l("Taken van deze activiteit krijgen deze vragenlijst."),
    )

    def filled_id(self) -> str:
        return (self.questionnaire_id.data or "").strip() or slugify(self.title.data or "")
