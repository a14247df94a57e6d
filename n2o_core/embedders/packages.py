"""Installed Python distributions the backends read: a version, a file a package ships."""

from __future__ import annotations

from pathlib import Path

from n2o_core.errors import EmbedderError

__all__ = ["package_file", "package_version"]


def package_version(dist: str) -> str:
    """Installed version of a distribution, or 'missing'."""
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "missing"


def package_file(dist: str, suffix: str) -> Path:
    """Absolute path of the first file of an installed distribution whose name ends with `suffix`."""
    from importlib import metadata

    try:
        files = metadata.files(dist) or []
    except metadata.PackageNotFoundError:
        raise EmbedderError(f"The Python package '{dist}' is not installed (pip install {dist}).") from None
    for f in files:
        if str(f).endswith(suffix):
            path = Path(str(f.locate()))
            if path.is_file():
                return path
    raise EmbedderError(f"The package '{dist}' is installed but its file '*{suffix}' is missing; reinstall it.")
