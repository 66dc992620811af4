"""boto3 clients pointed at the emulator, using the service models bundled with this package."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import boto3.session
import botocore.session
from botocore.client import BaseClient
from botocore.config import Config

DEFAULT_REGION = "us-west-2"
DEFAULT_ACCOUNT = "123456789012"
# The emulator accepts any secret unless started with --credentials.
SECRET_ACCESS_KEY = "x"

_MODELS = Path(__file__).resolve().parent / "_models"

# No retries: the emulator is local and answers at once, and a retried 500 would only hide a
# --check-responses failure and slow the test down. No proxy: see admin._OPENER.
_DEFAULT_CONFIG = Config(retries={"total_max_attempts": 1}, proxies={},
                         connect_timeout=5, read_timeout=30)


def models_path() -> Optional[Path]:
    """The emulator's own service models (the repository's api/, botocore layout) as bundled
    into this package at build time; None if the package was built without them."""
    return _MODELS if _MODELS.is_dir() else None


def check_account(account: str) -> str:
    """The emulator takes a 12-digit access key id as the caller's account; any other key
    would land in its --account-id, which is rarely what a test means."""
    if not re.fullmatch(r"\d{12}", account):
        raise ValueError(f"account must be 12 digits, got {account!r}")
    return account


def make_session() -> boto3.session.Session:
    """A boto3 session whose loader finds the bundled models before botocore's own.

    Older botocore (Debian 12 has 1.29) lacks the training-plan operations and members the
    emulator serves. Its loader search path is changed for this session only: setting
    AWS_DATA_PATH would also change every other client in the process, and only works before
    botocore is imported.
    """
    core = botocore.session.Session()
    models = models_path()
    if models is not None:
        core.get_component("data_loader").search_paths.insert(0, str(models))
    return boto3.session.Session(botocore_session=core)


def make_client(session: boto3.session.Session, service: str, *, endpoint_url: str, region: str,
                account: str, config: Optional[Config] = None) -> BaseClient:
    """A ``service`` client (``sagemaker``, ``sagemaker-runtime``) of ``session`` acting as
    ``account`` in ``region``; ``config`` is merged over this package's defaults."""
    merged = _DEFAULT_CONFIG if config is None else _DEFAULT_CONFIG.merge(config)
    return session.client(service, endpoint_url=endpoint_url, region_name=region,
                          aws_access_key_id=check_account(account),
                          aws_secret_access_key=SECRET_ACCESS_KEY, config=merged)
