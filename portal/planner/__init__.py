"""The planner: suggestions of drivers and combinations for a task, and proposals that place
a period's unassigned tasks, solved outside the request and accepted by a planner.

- problem, opening, measures: the planning problem as plain data, places' opening hours,
  empty kilometres and workload (pure);
- model, engine: the CP-SAT model of every hard rule and the lexicographic solve (pure);
- greedy: the baseline; checks: the independent checker of every hard rule; explain: why a
  task was not placed; ranking: a task's drivers ranked with their reasons (pure);
- gather: the problem read from the other domains; service: proposals (the only door to
  their tables), their solving job and their acceptance; suggestions: for one task;
- pages/: "Plan de week" and the task form's panel.
"""
