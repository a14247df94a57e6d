"""Vectors out (`n2o_core.export.vectors`, behind `n2o embed ... --out`): float32 rows as given, ".npy" appended,
sparse densified under the limit and refused over it, nothing left behind on refusal. The command itself is tested
in the CLI's tests."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from n2o_core.errors import N2OError
from n2o_core.export.vectors import save_vectors


def test_rows_written_as_c_ordered_float32_with_npy_appended(tmp_path):
    X = np.asfortranarray(np.arange(12, dtype=np.float16).reshape(4, 3))
    out = save_vectors(tmp_path / "sub" / "v", X)
    assert out == tmp_path / "sub" / "v.npy"
    got = np.load(out)
    assert got.dtype == np.float32 and got.flags.c_contiguous
    np.testing.assert_array_equal(got, X.astype(np.float32))
    assert sorted(p.name for p in out.parent.iterdir()) == ["v.npy"]  # no temporary file left


def test_sparse_densified_or_refused_over_the_limit(tmp_path):
    X = sp.random(5, 7, density=0.4, format="csr", random_state=0, dtype=np.float64)
    np.testing.assert_allclose(np.load(save_vectors(tmp_path / "s.npy", X)), X.toarray(), rtol=1e-6)
    with pytest.raises(N2OError, match="--max-sentences"):
        save_vectors(tmp_path / "big.npy", X, max_dense_bytes=5 * 7 * 4 - 1)
    assert not (tmp_path / "big.npy").exists()


def test_the_package_face_resolves_lazily_and_saving_vectors_stays_light():
    code = (
        "import sys, n2o_core.export as e; e.save_vectors; "
        "heavy = [m for m in ('pandas', 'plotly') if m in sys.modules]; "
        "print(heavy, all(getattr(e, n) is not None for n in e.__all__))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] True"
