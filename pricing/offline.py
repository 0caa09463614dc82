"""Offline AWS: moto's ``mock_aws`` for EC2, plus replayed Pricing and Savings Plans answers.

``with offline_session() as session:`` gives a boto3 session whose calls never leave the
process: the real fetch code (``pricing.aws``) runs against it unchanged.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import boto3

from tco.pricing import replay

_DUMMY = {
    "AWS_ACCESS_KEY_ID": "offline",
    "AWS_SECRET_ACCESS_KEY": "offline",
    "AWS_SESSION_TOKEN": "offline",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@contextlib.contextmanager
def offline_session() -> Iterator[Any]:
    """A boto3 session served by moto and the snapshot replay; environment restored after."""
    from moto import mock_aws  # imported here: moto is slow to import and only needed offline

    saved = {k: os.environ.get(k) for k in (*_DUMMY, "AWS_PROFILE")}
    os.environ.update(_DUMMY)
    os.environ.pop("AWS_PROFILE", None)
    try:
        with mock_aws():
            session = boto3.Session(region_name="us-east-1")
            replay.install(session)
            yield session
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
