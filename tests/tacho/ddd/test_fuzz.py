"""Whatever the bytes, the parser answers with a reading or DamagedFile, never anything else."""

from __future__ import annotations

import contextlib
import time
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from tacho.ddd.test_card import real_file, timeline_days
from tacho.samples import vu_file_2

from portal.tacho import ddd
from portal.tacho.ddd import build

REASONS = {"empty", "unknown", "card_structure", "vu_structure", "activity_buffer", "other_card"}
RECEIVED = datetime(2026, 4, 1, tzinfo=UTC)

SAMPLES = [
    real_file(),
    build.card_file(
        kaartnummer="NB00000123456700",
        achternaam="DE VRIES",
        voornamen="JAN",
        dagen=timeline_days(4),
        generation=2,
        wrap=True,
        buffer_size=300,
    ),
    build.vu_file(dagen=timeline_days(2)),
    vu_file_2(days=2),
]


def answer(data: bytes) -> None:
    try:
        parsed = ddd.parse(data, received_at=RECEIVED)
    except ddd.DamagedFile as error:
        assert error.reason in REASONS
        assert str(error)
        return
    assert parsed.soort in {"bestuurderskaart", "voertuigeenheid"}
    if isinstance(parsed, ddd.CardDownload):
        segments = parsed.segments()
        assert all(s.eind > s.begin for s in segments)
    else:
        parsed.card_days()


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=4096))
def test_random_bytes(data):
    answer(data)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=2048))
def test_random_bytes_after_a_card_or_unit_start(tail):
    answer(b"\x00\x02\x00\x00\x19" + tail)
    answer(b"\x76\x01" + tail)
    answer(b"\x76\x21" + tail)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    st.sampled_from(range(len(SAMPLES))),
    st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1, max_size=4),
    st.integers(min_value=0, max_value=1 << 20),
)
def test_flipped_bytes_and_truncations_of_real_files(which, flips, cut):
    sample = SAMPLES[which]
    damaged = bytearray(sample)
    for at, value in flips:
        damaged[at % len(damaged)] = value
    answer(bytes(damaged))
    answer(sample[: cut % len(sample)])


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(st.integers(min_value=0, max_value=13779), st.integers(0, 255))
def test_flips_inside_the_real_activity_buffer(at, value):
    data = bytearray(SAMPLES[0])
    start = bytes(data).index(b"\x05\x04\x00\x35\xd4") + 5
    data[start + at] = value
    answer(bytes(data))


def test_ten_megabytes_of_junk_are_refused_quickly():
    junk = bytes((i * 7919 + 13) % 251 for i in range(1 << 16)) * 160  # 10 MiB
    icc = b"\x00\x02\x00\x00\x19" + bytes(25)
    for data in (junk, icc + junk, icc + bytes(10 << 20), b"\x76\x01" + junk, b"\x76\x04" + junk):
        started = time.perf_counter()
        with contextlib.suppress(ddd.DamagedFile):
            ddd.parse(data)
        assert time.perf_counter() - started < 0.5


def test_a_card_download_of_a_year_parses():
    start = datetime(2025, 3, 1, tzinfo=UTC)
    entries = []
    for n in range(365):
        day = start + timedelta(days=n)
        entries += [(day + timedelta(hours=6, minutes=10 * k), a) for k, a in
                    enumerate(["werk", "rijden", "rust", "rijden", "beschikbaar"] * 6)]  # fmt: skip
    data = build.card_file(
        kaartnummer="NB00000123456700",
        achternaam="DE VRIES",
        voornamen="JAN",
        dagen=build.changes_from_timeline(entries),
    )
    parsed = ddd.parse(data, received_at=start + timedelta(days=365))
    assert len(parsed.dagen) == 365
