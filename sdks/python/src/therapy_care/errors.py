"""Errors: the API's RFC 9457 problem documents as :class:`ApiError`, and :class:`ApiConnectionError` when no attempt
got an answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class FieldError:
    """One invalid field of a ``validation_error``."""

    path: str
    code: str
    message: str


class ApiError(Exception):
    """A response outside 2xx, after the retries it deserved. ``code`` is the stable machine-readable code."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str]) -> None:
        problem: dict[str, Any] = body if isinstance(body, dict) else {}
        self.status = status
        # OAuth errors (RFC 6749) carry `error` rather than `code`.
        self.code: str = str(problem.get("code") or problem.get("error") or f"http_{status}")
        self.title: str | None = problem.get("title")
        self.detail: str | None = problem.get("detail") or problem.get("error_description")
        self.type: str | None = problem.get("type")
        self.instance: str | None = problem.get("instance")
        self.request_id: str | None = problem.get("requestId") or headers.get("x-request-id")
        self.errors: list[FieldError] = [
            FieldError(str(e.get("path", "")), str(e.get("code", "")), str(e.get("message", "")))
            for e in problem.get("errors") or []
            if isinstance(e, dict)
        ]
        self.headers = dict(headers)
        self.body = body
        super().__init__(f"{status} {self.code}: {self.detail or self.title or ''}".strip())


class ApiConnectionError(Exception):
    """No attempt of a call got an answer (connection refused or dropped, timeouts)."""
