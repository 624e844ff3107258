"""The package's version is the one in pyproject.toml (sent in User-Agent), and its models are typed pydantic v2."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from therapy_care import __version__, models
from therapy_care.client import USER_AGENT


def test_version_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert __version__ == pyproject["project"]["version"]
    assert USER_AGENT == f"therapy-care-sdk-python/{__version__}"


def test_models_are_the_api_schemas_and_validate() -> None:
    assert issubclass(models.Appointment, BaseModel)
    assert {"id", "status", "childId", "startsAt"} <= set(models.Appointment.model_fields)
    with pytest.raises(ValidationError) as refused:
        models.Child.model_validate({"id": "chd_" + "0" * 32, "firstName": "Maya"})
    assert "lastName" in str(refused.value)
