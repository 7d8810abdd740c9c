"""The tachograph: drivers' card and vehicle unit downloads, the days they hold, and the EU
driving and rest times (Regulation (EC) 561/2006) checked over them.

- service: the only door to the tacho tables for other domains and the pages (files, links,
  periods, card numbers, signed links, download deadlines);
- intake/: tachograph files in (the upload, and the days read into tacho_dagen);
- ddd/: the bytes of a download: recognised (detect), read in full, and built for tests;
- segments: a driver's time as segments, whatever their source;
- rules/: EU 561/2006, one module per article group over one shared walk (pure);
- driving/: the rules over a carrier's drivers: remaining time, findings, planning problems,
  card and app side by side, the infringements' export;
- deadlines, wording, schemas, models, samples: download deadlines, words for people, JSON
  shapes, tables, sample downloads;
- pages/: the planners' pages (blueprints `tacho` and `driving`).
"""
