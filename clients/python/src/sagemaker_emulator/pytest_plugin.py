"""pytest plugin (entry point ``pytest11``): fixtures for tests against sagemaker-emulator.

Fixtures:
    sagemaker_emulator_session  session: the emulator, started once or connected to by URL
    sagemaker_emulator          function: the same emulator, reset before the test
    sagemaker_client            function: its ``sagemaker`` boto3 client, after the reset
    sagemaker_runtime_client    function: its ``sagemaker-runtime`` boto3 client, after the reset

Each setting is read from the command line, else the environment, else the ini file; see
:func:`pytest_addoption`.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Iterator, List, Optional

import pytest
from botocore.client import BaseClient

from .emulator import URL_ENV, Emulator, start_or_connect
from .process import BINARY_ENV


@dataclass(frozen=True)
class Settings:
    url: Optional[str]
    binary: Optional[str]
    args: List[str]
    log_path: Optional[str]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sagemaker-emulator", "sagemaker-emulator fixtures")
    group.addoption("--sagemaker-emulator-binary", metavar="PATH",
                    help=f"the emulator binary to start (else ${BINARY_ENV}, the "
                         "sagemaker_emulator_binary ini option, or sagemaker-emulator on PATH)")
    group.addoption("--sagemaker-emulator-url", metavar="URL",
                    help=f"use the emulator running at URL instead of starting one (else "
                         f"${URL_ENV} or the sagemaker_emulator_url ini option); the admin "
                         "token comes from $SAGEMAKER_EMULATOR_ADMIN_TOKEN")
    group.addoption("--sagemaker-emulator-arg", action="append", default=[], metavar="ARG",
                    help="an extra argument for the started server, repeatable; write it with "
                         "'=' when it starts with '-': --sagemaker-emulator-arg=--frozen-clock")
    group.addoption("--sagemaker-emulator-log", metavar="FILE",
                    help="append the started server's log (its stderr) to FILE")
    parser.addini("sagemaker_emulator_binary", "the emulator binary to start")
    parser.addini("sagemaker_emulator_url", "the URL of a running emulator to use")
    parser.addini("sagemaker_emulator_args", "extra arguments for the started server, "
                  "before those of --sagemaker-emulator-arg", type="args", default=[])


def settings(config: pytest.Config) -> Settings:
    """The plugin's settings; each is the command line's, else the environment's, else the ini
    file's, so that CI can override a project's ini with a variable."""
    def first(option: str, env: str, ini: str) -> Optional[str]:
        return config.getoption(option) or os.environ.get(env) or config.getini(ini) or None

    return Settings(
        url=first("--sagemaker-emulator-url", URL_ENV, "sagemaker_emulator_url"),
        binary=first("--sagemaker-emulator-binary", BINARY_ENV, "sagemaker_emulator_binary"),
        args=[*config.getini("sagemaker_emulator_args"),
              *config.getoption("--sagemaker-emulator-arg")],
        log_path=config.getoption("--sagemaker-emulator-log"))


@pytest.fixture(scope="session")
def sagemaker_emulator_session(pytestconfig: pytest.Config) -> Iterator[Emulator]:
    """The session's emulator: connected to when a URL is configured, else started once. Tests
    that share it without a reset see each other's resources; most want sagemaker_emulator."""
    chosen = settings(pytestconfig)
    if chosen.url and chosen.args:
        warnings.warn(f"sagemaker-emulator: using the running emulator at {chosen.url}; the "
                      f"server arguments {chosen.args} do not apply to it")
    emulator = start_or_connect(chosen.url, chosen.binary, chosen.args, log_path=chosen.log_path)
    yield emulator
    status = emulator.close()
    if status not in (None, 0):
        warnings.warn(f"sagemaker-emulator exited with status {status} when stopped")


@pytest.fixture
def sagemaker_emulator(sagemaker_emulator_session: Emulator) -> Emulator:
    """The session's emulator, reset first: no resources, the clock at its start, the capacity
    pools as configured at start-up."""
    sagemaker_emulator_session.reset()
    return sagemaker_emulator_session


@pytest.fixture
def sagemaker_client(sagemaker_emulator: Emulator) -> BaseClient:
    """A boto3 ``sagemaker`` client for the reset emulator (account 123456789012, us-west-2)."""
    return sagemaker_emulator.sagemaker


@pytest.fixture
def sagemaker_runtime_client(sagemaker_emulator: Emulator) -> BaseClient:
    """A boto3 ``sagemaker-runtime`` client for the reset emulator."""
    return sagemaker_emulator.sagemaker_runtime
