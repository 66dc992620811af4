"""The plugin's options, ini settings and fixtures, each in a pytest session of its own."""
from __future__ import annotations

import pytest

from conftest import RunPytest

CLOCK_CHECK = """
    from datetime import datetime, timezone

    def test_clock(sagemaker_emulator):
        clock = sagemaker_emulator.clock()
        assert clock.frozen
        assert clock.now == datetime(2027, 3, 1, tzinfo=timezone.utc)
"""


def test_server_arguments_come_from_the_command_line(run_pytest: RunPytest,
                                                     pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CLOCK_CHECK)
    run_pytest("--sagemaker-emulator-arg=--clock-start=2027-03-01T00:00:00Z",
               "--sagemaker-emulator-arg=--frozen-clock",
               forward_args=False).assert_outcomes(passed=1)


def test_server_arguments_and_binary_come_from_the_ini_file(
        run_pytest: RunPytest, pytester: pytest.Pytester, binary: str) -> None:
    pytester.makeini(f"""
        [pytest]
        sagemaker_emulator_binary = {binary}
        sagemaker_emulator_args = --clock-start 2027-03-01T00:00:00Z
    """)
    pytester.makepyfile(CLOCK_CHECK)
    # The command line's arguments come after the ini file's.
    run_pytest("--sagemaker-emulator-arg=--frozen-clock",
               binary_option=False, forward_args=False).assert_outcomes(passed=1)


def test_one_server_serves_the_session_and_each_test_starts_reset(
        run_pytest: RunPytest, pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import pytest

        urls = set()

        @pytest.mark.parametrize("run", range(3))
        def test_run(run, sagemaker_emulator, sagemaker_client, sagemaker_runtime_client):
            urls.add(sagemaker_emulator.url)
            assert len(urls) == 1
            assert sagemaker_client.meta.service_model.service_name == "sagemaker"
            assert sagemaker_runtime_client.meta.service_model.service_name == "sagemaker-runtime"
            assert sagemaker_client.list_models()["Models"] == []
            sagemaker_client.create_model(ModelName="m", PrimaryContainer={"Image": "img:1"},
                                          ExecutionRoleArn="arn:aws:iam::123456789012:role/r")
    """)
    run_pytest().assert_outcomes(passed=3)


def test_the_options_are_documented_in_help(run_pytest: RunPytest) -> None:
    result = run_pytest("--help")
    result.stdout.fnmatch_lines(["*sagemaker-emulator fixtures*",
                                 "*--sagemaker-emulator-binary=PATH*",
                                 "*--sagemaker-emulator-url=URL*",
                                 "*--sagemaker-emulator-arg=ARG*",
                                 "*--sagemaker-emulator-log=FILE*",
                                 "*sagemaker_emulator_args (args)*"])
