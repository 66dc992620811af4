"""The handle on one emulator, started here or already running, and the ways to get one."""
from __future__ import annotations

import os
from types import TracebackType
from typing import Dict, Optional, Sequence, Type

from botocore.client import BaseClient
from botocore.config import Config

from .admin import AdminClient
from .aws import DEFAULT_ACCOUNT, DEFAULT_REGION, check_account, make_client, make_session
from .errors import EmulatorError, EmulatorStartError, EmulatorUnavailableError
from .process import EmulatorProcess, StrPath, find_binary

URL_ENV = "SAGEMAKER_EMULATOR_URL"
# The server reads the same variable, so a server started here with it set requires it too.
ADMIN_TOKEN_ENV = "SAGEMAKER_EMULATOR_ADMIN_TOKEN"


class Emulator(AdminClient):
    """A sagemaker-emulator to test against: its ``url``, boto3 clients acting as ``account``
    in ``region``, and the admin API (:class:`AdminClient`: reset, clock, capacity pools, cost
    ledger).

    :meth:`close` (or leaving a ``with`` block) closes the clients and stops the server if this
    handle started it (``process`` is then set; it is None for a connected emulator).
    """

    def __init__(self, url: str, *, admin_token: Optional[str] = None,
                 region: str = DEFAULT_REGION, account: str = DEFAULT_ACCOUNT,
                 client_config: Optional[Config] = None,
                 process: Optional[EmulatorProcess] = None) -> None:
        super().__init__(url, admin_token)
        self.region = region
        self.account = check_account(account)
        self.process = process
        self._client_config = client_config
        self._session = make_session()
        self._clients: Dict[str, BaseClient] = {}

    @property
    def sagemaker(self) -> BaseClient:
        """The ``sagemaker`` client, made once and closed with the emulator."""
        return self._shared_client("sagemaker")

    @property
    def sagemaker_runtime(self) -> BaseClient:
        """The ``sagemaker-runtime`` client, made once and closed with the emulator."""
        return self._shared_client("sagemaker-runtime")

    def client(self, service: str = "sagemaker", *, account: Optional[str] = None,
               region: Optional[str] = None, config: Optional[Config] = None) -> BaseClient:
        """A new client, e.g. to act as a second account (any other 12 digits) or in another
        region. ``config`` replaces the handle's ``client_config``. The caller closes it."""
        return make_client(self._session, service, endpoint_url=self.url,
                           region=region or self.region, account=account or self.account,
                           config=config or self._client_config)

    def close(self) -> Optional[int]:
        """Closes the shared clients, and stops the server if it was started here, returning
        its exit status (0 after a clean shutdown)."""
        for client in self._clients.values():
            client.close()
        self._clients.clear()
        return self.process.stop() if self.process is not None else None

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], error: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()

    def __repr__(self) -> str:
        origin = f"pid {self.process.pid}" if self.process is not None else "connected"
        return f"<Emulator {self.url} ({origin})>"

    def _shared_client(self, service: str) -> BaseClient:
        if service not in self._clients:
            self._clients[service] = self.client(service)
        return self._clients[service]


def start(binary: Optional[StrPath] = None, args: Sequence[str] = (), *,
          admin_token: Optional[str] = None, log_path: Optional[StrPath] = None,
          start_timeout: float = 30.0, region: str = DEFAULT_REGION,
          account: str = DEFAULT_ACCOUNT, client_config: Optional[Config] = None) -> Emulator:
    """Starts the binary (see :func:`find_binary`) on a free port with an in-memory database
    and extra server ``args``, and returns once it answers its health check. With
    ``admin_token`` the server is started with ``--admin-token`` and the handle sends it."""
    check_account(account)  # before anything is started
    server_args = [*args, "--admin-token", admin_token] if admin_token else list(args)
    process = EmulatorProcess(find_binary(binary), server_args, log_path, start_timeout)
    token = admin_token or os.environ.get(ADMIN_TOKEN_ENV)
    try:
        emulator = Emulator(process.url, admin_token=token, region=region, account=account,
                            client_config=client_config, process=process)
        emulator.wait_until_healthy(start_timeout)
    except EmulatorUnavailableError as error:
        log = process.log_tail()
        process.stop()
        raise EmulatorStartError(f"{error}; its stderr ends with:\n{log}") from error
    except BaseException:
        process.stop()  # an interrupt must not leave the server running
        raise
    return emulator


def connect(url: Optional[str] = None, *, admin_token: Optional[str] = None,
            timeout: float = 30.0, region: str = DEFAULT_REGION, account: str = DEFAULT_ACCOUNT,
            client_config: Optional[Config] = None) -> Emulator:
    """Connects to a running emulator (a container, a shared server) at ``url`` or
    $SAGEMAKER_EMULATOR_URL, waiting up to ``timeout`` seconds for its health check. The admin
    token is ``admin_token`` or $SAGEMAKER_EMULATOR_ADMIN_TOKEN."""
    url = url or os.environ.get(URL_ENV)
    if not url:
        raise EmulatorError(f"no emulator URL: pass url or set {URL_ENV}")
    emulator = Emulator(url, admin_token=admin_token or os.environ.get(ADMIN_TOKEN_ENV),
                        region=region, account=account, client_config=client_config)
    emulator.wait_until_healthy(timeout)
    return emulator


def start_or_connect(url: Optional[str] = None, binary: Optional[StrPath] = None,
                     args: Sequence[str] = (), *, admin_token: Optional[str] = None,
                     log_path: Optional[StrPath] = None, timeout: float = 30.0,
                     region: str = DEFAULT_REGION, account: str = DEFAULT_ACCOUNT,
                     client_config: Optional[Config] = None) -> Emulator:
    """:func:`connect` when a URL is given or in $SAGEMAKER_EMULATOR_URL (``binary``, ``args``
    and ``log_path`` then do not apply), else :func:`start`: the same tests run against a
    container in CI and against a local build elsewhere."""
    url = url or os.environ.get(URL_ENV)
    if url:
        return connect(url, admin_token=admin_token, timeout=timeout, region=region,
                       account=account, client_config=client_config)
    return start(binary, args, admin_token=admin_token, log_path=log_path, start_timeout=timeout,
                 region=region, account=account, client_config=client_config)
