"""The exceptions this package raises. All derive from EmulatorError."""
from __future__ import annotations


class EmulatorError(Exception):
    """Base class: the emulator could not be found, started, reached or told something."""


class BinaryNotFoundError(EmulatorError):
    """No sagemaker-emulator binary was given or found."""


class EmulatorStartError(EmulatorError):
    """The binary ran but never became ready (bad arguments, a crash, a timeout)."""


class EmulatorUnavailableError(EmulatorError):
    """The emulator's URL does not answer (nothing listening, or not healthy in time)."""


class AdminError(EmulatorError):
    """The admin API refused a request, answering ``{"__type": ..., "message": ...}``."""

    def __init__(self, method: str, path: str, status: int, code: str, message: str) -> None:
        super().__init__(f"{method} {path} failed with {status} {code}: {message}")
        self.method = method
        self.path = path
        self.status = status
        self.code = code
        self.message = message
