"""Hours: work days, activities, week approvals, totals, the timeline and the export."""
