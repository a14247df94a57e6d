"""storage.manifest_folder: a folder appears whole or not at all, and a damaged one reads as absent."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.storage.manifest_folder import (
    MANIFEST,
    folder_path,
    load_json,
    load_npy,
    read_manifest,
    save_json,
    save_npy,
    write_folder,
)


def build(tmp):
    save_npy(tmp / "vectors.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
    save_json(tmp / "vocab.json", ["ein", "zwei"])
    return {"dim": 3}


def test_a_written_folder_reads_back_with_its_meta_and_files(tmp_path):
    folder = folder_path(tmp_path, "state-demo", "abc")
    assert folder == tmp_path / "state-demo" / "abc" and read_manifest(folder) is None
    assert write_folder(folder, build) == {"dim": 3}
    assert read_manifest(folder) == {"dim": 3}
    assert sorted(p.name for p in folder.iterdir()) == sorted([MANIFEST, "vectors.npy", "vocab.json"])
    np.testing.assert_array_equal(load_npy(folder / "vectors.npy"), [[0, 1, 2], [3, 4, 5]])
    assert load_json(folder / "vocab.json") == ["ein", "zwei"]
    assert [p.name for p in folder.parent.iterdir()] == ["abc"]  # no temporary folder left beside it


def test_a_damaged_or_half_built_folder_is_absent_and_replaced(tmp_path):
    folder = folder_path(tmp_path, "k", "x")
    write_folder(folder, build)
    (folder / "vocab.json").write_text('["eins", "zwei"]', encoding="utf-8")  # same size class, other bytes
    assert read_manifest(folder) is None
    write_folder(folder, build)
    assert read_manifest(folder) == {"dim": 3}

    def fails(tmp):
        save_json(tmp / "part.json", [1])
        raise RuntimeError("killed while building")

    with pytest.raises(RuntimeError):
        write_folder(folder_path(tmp_path, "k", "y"), fails)
    assert sorted(p.name for p in (tmp_path / "k").iterdir()) == ["x"]
