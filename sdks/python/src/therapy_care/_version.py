"""The SDK's own version, sent in ``User-Agent`` (pyproject.toml says the same; a test holds them together)."""

__version__ = "0.2.0"
