"""The one version number (pyproject.toml and the HTML report read it from here)."""

__version__ = "0.2.0"
