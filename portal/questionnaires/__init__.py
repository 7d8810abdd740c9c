"""Questionnaires: what a driver is asked at an activity, and what they answered.

- `engine`: the definition checker, visibility, formulas and the answer check (pure);
- `editing`: the builder's edits of a draft; `diff`: two revisions compared;
- `service`: drafts and published revisions (the domain's door to its tables);
- `answering`: saving and handing in answers (`answer_reads`: reading answer sessions;
  `answer_files`: the files answers name);
- `presenting` and `wording`: answers and problems as people read them; `schemas`: the API's
  shapes;
- `pages`: the builder's and the answers' portal pages.

Below it: the shared leaves, accounts, audit and files (and `portal.events`); nothing above
it is imported, except by `pages`.
"""
