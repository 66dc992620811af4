"""Connecting to an emulator that runs already, as a container would in CI. The stand-in here
is the binary started by the test itself, with an admin token, outside this package's code."""
from __future__ import annotations

import subprocess
from typing import Iterator

import pytest

import sagemaker_emulator
from sagemaker_emulator import AdminError, EmulatorUnavailableError
from sagemaker_emulator.pytest_plugin import settings

TOKEN = "s3cret-token"


@pytest.fixture(scope="module")
def container_url(binary: str, pytestconfig: pytest.Config) -> Iterator[str]:
    """A server with --admin-token, as `docker run` would start one: its URL."""
    server = subprocess.Popen(
        [binary, "--port", "0", "--db", ":memory:", "--admin-token", TOKEN,
         *settings(pytestconfig).args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdout is not None
    line = server.stdout.readline().decode().strip()
    assert line.startswith("sagemaker-emulator listening on "), line
    yield line.rsplit(" ", 1)[1]
    server.terminate()
    assert server.wait(10) == 0
    server.stdout.close()


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in (sagemaker_emulator.URL_ENV, sagemaker_emulator.ADMIN_TOKEN_ENV):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_connect_with_the_token_drives_a_running_emulator(container_url: str,
                                                          clean_env: pytest.MonkeyPatch) -> None:
    with sagemaker_emulator.connect(container_url, admin_token=TOKEN) as emulator:
        assert emulator.process is None and emulator.url == container_url
        emulator.reset()
        emulator.set_clock("2027-01-15T00:00:00Z", frozen=True)
        emulator.sagemaker.create_model(
            ModelName="in-container", ExecutionRoleArn="arn:aws:iam::123456789012:role/demo",
            PrimaryContainer={"Image": "123456789012.dkr.ecr.us-west-2.amazonaws.com/demo:1"})
        assert len(emulator.sagemaker.list_models()["Models"]) == 1
        emulator.reset()
        assert emulator.sagemaker.list_models()["Models"] == []
        assert emulator.close() is None
    # Closing a connected handle leaves the server alone.
    assert sagemaker_emulator.connect(container_url).health()["status"] == "ok"


def test_without_the_token_admin_calls_are_refused(container_url: str,
                                                   clean_env: pytest.MonkeyPatch) -> None:
    with sagemaker_emulator.connect(container_url) as emulator:
        with pytest.raises(AdminError) as raised:
            emulator.reset()
        assert (raised.value.status, raised.value.code) == (403, "AccessDeniedException")
        assert "--admin-token" in raised.value.message
        with pytest.raises(AdminError):
            sagemaker_emulator.connect(container_url, admin_token="wrong").clock()


def test_url_and_token_come_from_the_environment(container_url: str,
                                                 clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv(sagemaker_emulator.URL_ENV, container_url)
    clean_env.setenv(sagemaker_emulator.ADMIN_TOKEN_ENV, TOKEN)
    # With a URL configured, start_or_connect starts nothing, even given a binary.
    with sagemaker_emulator.start_or_connect(binary="/nonexistent/sagemaker-emulator") as emulator:
        assert emulator.process is None and emulator.url == container_url
        assert emulator.reset().now is not None


def test_connecting_to_nothing_fails_after_the_timeout(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(EmulatorUnavailableError, match="not healthy after 0.3 s"):
        sagemaker_emulator.connect("http://127.0.0.1:9", timeout=0.3)
    with pytest.raises(sagemaker_emulator.EmulatorError, match="SAGEMAKER_EMULATOR_URL"):
        sagemaker_emulator.connect()


def test_the_plugin_uses_the_url_and_token(container_url: str, clean_env: pytest.MonkeyPatch,
                                           pytester: pytest.Pytester) -> None:
    clean_env.setenv(sagemaker_emulator.ADMIN_TOKEN_ENV, TOKEN)
    pytester.makepyfile(f"""
        def test_fixtures_use_the_running_emulator(sagemaker_emulator, sagemaker_client):
            assert sagemaker_emulator.process is None
            assert sagemaker_emulator.url == {container_url!r}
            assert sagemaker_client.meta.endpoint_url == {container_url!r}
            assert sagemaker_client.list_models()["Models"] == []
    """)
    result = pytester.runpytest("-p", "no:cacheprovider",
                                f"--sagemaker-emulator-url={container_url}",
                                "--sagemaker-emulator-binary=/nonexistent/sagemaker-emulator")
    result.assert_outcomes(passed=1)
