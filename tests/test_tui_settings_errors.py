"""N20: the settings screen's validation reports every bad field at once (the desired
retention error used to appear only after the new_per_day error was fixed)."""

from __future__ import annotations

import pytest

from quizcoll.settings import SettingsError, parse_fields


def test_every_bad_field_is_reported_at_once() -> None:
    with pytest.raises(SettingsError) as caught:
        parse_fields({"new_per_day": "lots", "desired_retention": "1.5", "reviews_per_day": "100"})
    message = str(caught.value)
    assert "new_per_day" in message and "desired_retention" in message
    assert "reviews_per_day" not in message


def test_good_fields_parse() -> None:
    changes = parse_fields({"new_per_day": "5", "desired_retention": "0.85"})
    assert {c.key: c.value for c in changes} == {"new_per_day": 5, "desired_retention": 0.85}
