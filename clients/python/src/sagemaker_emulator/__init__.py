"""Test helpers for sagemaker-emulator: start the binary or connect to a running one, get boto3
clients that know the emulator's operations, and drive its admin API (reset, clock, capacity,
costs).

    with sagemaker_emulator.start("build/sagemaker-emulator",
                                  ["--clock-start=2027-01-01T00:00:00Z"]) as emulator:
        emulator.set_clock("2027-01-15T00:00:00Z", frozen=True)
        emulator.sagemaker.list_training_plans()

Under pytest, the plugin in :mod:`sagemaker_emulator.pytest_plugin` provides fixtures.
"""
from .admin import AdminClient, Clock
from .aws import DEFAULT_ACCOUNT, DEFAULT_REGION, models_path
from .emulator import ADMIN_TOKEN_ENV, URL_ENV, Emulator, connect, start, start_or_connect
from .errors import (AdminError, BinaryNotFoundError, EmulatorError, EmulatorStartError,
                     EmulatorUnavailableError)
from .process import BINARY_ENV, EmulatorProcess, find_binary

__all__ = [
    "ADMIN_TOKEN_ENV", "BINARY_ENV", "DEFAULT_ACCOUNT", "DEFAULT_REGION", "URL_ENV",
    "AdminClient", "AdminError", "BinaryNotFoundError", "Clock", "Emulator", "EmulatorError",
    "EmulatorProcess", "EmulatorStartError", "EmulatorUnavailableError", "connect",
    "find_binary", "models_path", "start", "start_or_connect",
]
