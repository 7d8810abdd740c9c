"""Tachograph files in: an upload recognised by its content, hashed and stored once per
carrier with its bytes in the file store (`uploads`), and the days a download holds read
into tacho_dagen, per driver and card (`reading`). portal.tacho.service offers what other
domains and the pages call; portal.tacho.ddd reads the bytes.
"""
