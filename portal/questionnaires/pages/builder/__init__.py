"""The questionnaire builder: questionnaires per activity type, the draft editor with its live
preview, publishing, and the history of revisions with comparison and restore.

Authors edit; planners read the list, the revisions and their comparison. The draft is the
source of truth on the server: every edit is one request that changes the stored draft
(guarded by its `versie`, so a second tab never overwrites silently) and answers the
re-rendered editor, or, for a field being typed in, only what follows from it (problems, the
save status), so nothing the author is typing is replaced. Every route works as a plain page
and form; htmx requests get fragments.

One blueprint (`portal.questionnaires.pages.kit.bp`, with what its views share), its views by
the author's job: `library_views` (the list, a
new questionnaire, import), `editor_views` (the draft and its edits), `preview_views` (the
live preview) and `revision_views` (publish, revisions, restore, compare); `state` holds
what the editor shows of a draft.
"""

from portal.questionnaires.pages.builder import (  # noqa: F401  (importing registers the routes)
    editor_views,
    library_views,
    preview_views,
    revision_views,
)
from portal.questionnaires.pages.kit import bp

__all__ = ["bp"]
