"""storage.fileio.json_objects: the one JSON Lines reader of corpora and pair files."""

import pytest

from n2o_core.storage.fileio import json_objects


def test_numbers_objects_and_skips_blank_lines():
    assert list(json_objects(['{"a": 1}', "", "  ", '{"b": "x"}'])) == [(1, {"a": 1}), (4, {"b": "x"})]


@pytest.mark.parametrize(
    ("lines", "message"),
    [(['{"a": 1}', "{not json"], r"^line 2 is not JSON \("), (["", "[1, 2]"], r"^line 2 is not a JSON object$")],
)
def test_names_the_bad_line(lines, message):
    with pytest.raises(ValueError, match=message):
        list(json_objects(lines))
