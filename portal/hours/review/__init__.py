"""A planner's review of a driver's week: the week's payable figures and warnings
(week.py) and the planner's corrections of recorded activities with the driver's answers
(corrections.py)."""
