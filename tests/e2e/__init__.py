"""Browser tests: Playwright drives Debian's Chromium against a live server.

This folder is a package on purpose: its conftest then imports as `e2e.conftest` and does not
replace the root `conftest` module that test modules import their factories from.
"""
