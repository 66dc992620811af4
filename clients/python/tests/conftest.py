"""Shared fixtures of the package's own tests. The fixtures under test (sagemaker_emulator,
sagemaker_client, ...) come from the installed plugin, not from here."""
from __future__ import annotations

from typing import Callable, List

import pytest

from sagemaker_emulator import find_binary
from sagemaker_emulator.pytest_plugin import settings

# pytester runs pytest sessions inside a test, to check the plugin's options and errors.
pytest_plugins = ["pytester"]

RunPytest = Callable[..., pytest.RunResult]


@pytest.fixture(scope="session")
def binary(pytestconfig: pytest.Config) -> str:
    """The binary the plugin starts, for tests that start servers of their own."""
    return find_binary(settings(pytestconfig).binary)


@pytest.fixture
def server_args(pytestconfig: pytest.Config) -> List[str]:
    """The server arguments this run was given (e.g. --check-responses)."""
    return settings(pytestconfig).args


@pytest.fixture
def run_pytest(pytester: pytest.Pytester, binary: str, server_args: List[str]) -> RunPytest:
    """Runs a pytest session in a temporary directory, with this run's binary and server
    arguments unless the test says otherwise."""
    def run(*args: str, binary_option: bool = True, forward_args: bool = True) -> pytest.RunResult:
        options = [f"--sagemaker-emulator-arg={arg}" for arg in server_args if forward_args]
        if binary_option:
            options.append(f"--sagemaker-emulator-binary={binary}")
        return pytester.runpytest("-p", "no:cacheprovider", *options, *args)
    return run
