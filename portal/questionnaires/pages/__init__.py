"""The questionnaires' portal pages.

- `builder`: questionnaires per activity type, the draft editor with its live preview,
  publishing, and the history of revisions (blueprint `questionnaires`, as `bp`);
- `answer_views`: what drivers answered, as a list and one session a page (blueprint
  `answers`, as `answers_bp`);
- `kit`: the builder's blueprint and what its views share; `forms`: the builder's forms.
"""

from portal.questionnaires.pages.answer_views import bp as answers_bp
from portal.questionnaires.pages.builder import bp

__all__ = ["answers_bp", "bp"]
