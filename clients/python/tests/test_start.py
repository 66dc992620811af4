"""Finding and starting the binary, and stopping it."""
from __future__ import annotations

import os
from pathlib import Path
from typing import List

import pytest

import sagemaker_emulator
from sagemaker_emulator import AdminClient, AdminError, BinaryNotFoundError, EmulatorStartError

from conftest import RunPytest


@pytest.fixture
def no_binary_anywhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Neither $SAGEMAKER_EMULATOR_BINARY nor a sagemaker-emulator on PATH."""
    monkeypatch.delenv(sagemaker_emulator.BINARY_ENV, raising=False)
    monkeypatch.delenv(sagemaker_emulator.URL_ENV, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))


def test_without_a_binary_the_error_names_the_three_ways_to_give_one(
        no_binary_anywhere: None) -> None:
    with pytest.raises(BinaryNotFoundError) as raised:
        sagemaker_emulator.find_binary()
    message = str(raised.value)
    for way in ("--sagemaker-emulator-binary", "SAGEMAKER_EMULATOR_BINARY", "on PATH"):
        assert way in message


def test_a_given_binary_must_exist(no_binary_anywhere: None, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BinaryNotFoundError, match="'/nonexistent/emu' .from the binary argument"):
        sagemaker_emulator.find_binary("/nonexistent/emu")
    monkeypatch.setenv(sagemaker_emulator.BINARY_ENV, str(tmp_path / "missing"))
    with pytest.raises(BinaryNotFoundError, match="from SAGEMAKER_EMULATOR_BINARY"):
        sagemaker_emulator.find_binary()


def test_the_binary_is_found_in_the_environment_then_on_path(
        no_binary_anywhere: None, binary: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sagemaker-emulator").symlink_to(binary)
    assert sagemaker_emulator.find_binary() == str(tmp_path / "sagemaker-emulator")
    monkeypatch.setenv(sagemaker_emulator.BINARY_ENV, binary)
    assert sagemaker_emulator.find_binary() == binary


def test_the_plugin_reports_a_missing_binary(no_binary_anywhere: None,
                                             run_pytest: RunPytest,
                                             pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_needs_it(sagemaker_client): pass")
    result = run_pytest(binary_option=False)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*BinaryNotFoundError: sagemaker-emulator binary not found*"])


def test_a_server_that_exits_at_start_is_reported_with_its_stderr(binary: str) -> None:
    with pytest.raises(EmulatorStartError) as raised:
        sagemaker_emulator.start(binary, ["--no-such-option"])
    assert "exited with status" in str(raised.value)
    assert "--no-such-option" in str(raised.value).split("stderr ends with:")[1]


def test_start_serves_until_closed_and_exits_cleanly(binary: str, server_args: List[str],
                                                     tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with sagemaker_emulator.start(binary, server_args, log_path=log) as emulator:
        assert emulator.process is not None and emulator.process.returncode is None
        assert emulator.url.startswith("http://127.0.0.1:")
        assert emulator.sagemaker.list_models()["Models"] == []
    assert emulator.process.returncode == 0
    assert "ListModels" in log.read_text()  # the server logs one line per request


def test_start_with_an_admin_token_requires_it(binary: str, server_args: List[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sagemaker_emulator.ADMIN_TOKEN_ENV, raising=False)
    with sagemaker_emulator.start(binary, server_args, admin_token="t0ken") as emulator:
        assert emulator.reset().frozen is False
        with pytest.raises(AdminError, match="403 AccessDeniedException"):
            AdminClient(emulator.url).reset()


def test_a_stopped_server_is_gone(binary: str) -> None:
    emulator = sagemaker_emulator.start(binary)
    url, pid = emulator.url, emulator.process.pid  # type: ignore[union-attr]
    assert emulator.close() == 0
    assert emulator.close() == 0  # closing twice is harmless
    with pytest.raises(sagemaker_emulator.EmulatorUnavailableError):
        AdminClient(url, timeout=1).health()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
