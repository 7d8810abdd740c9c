"""Hours: what drivers record and what it pays.

- `service` (the door other domains use): work days and the rules that guard them; with
  `days/` (activities, the refusals and checks, the shared reads) and `totals` (ISO weeks,
  the carrier's days, totals per day, week and kind);
- `weeks/`: approving and reopening a driver's week, the overview, the overview's files;
- `review/`: a week's figures and warnings before approval, the planner's corrections;
- `payroll/`: rule sets, payable hours, the payroll export and its columns;
- `cao/`: the pure CAO computation (no database, no Flask);
- `pages/`: the portal's pages (a face: domain code never imports it);
- `models`, `pay_models`, `schemas`, `pay_schemas`, `task_time` (the minutes billing asks for).
"""
