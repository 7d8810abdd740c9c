"""The questionnaires' portal pages: the builder (`builder`: questionnaires per activity
type, the draft editor, its preview, publishing and revisions) and the answers given on the
road (`answer_views`). `kit` holds the builder's blueprint and what its views share."""
