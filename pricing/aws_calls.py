"""The seam to AWS: one call at a time, with bounded retries, every failure one line; and which
endpoint serves a region (partitions differ: the Price List API answers from three regions of the
commercial partition and from cn-northwest-1 in China, and not at all in GovCloud; botocore's
``endpoints.json``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    PartialCredentialsError,
    ReadTimeoutError,
)
from botocore.parsers import ResponseParserError

from tco.pricing.errors import PricingError

# Bounded retries with backoff (botocore "standard" mode retries throttling and 5xx), timeouts.
MAX_ATTEMPTS = 5
RETRY_CONFIG = Config(
    retries={"mode": "standard", "total_max_attempts": MAX_ATTEMPTS},  # first try included
    connect_timeout=5,  # seconds
    read_timeout=30,  # seconds
)


class LivePriceError(PricingError):
    """A live AWS call failed; the message says what, why and what to do."""


T = TypeVar("T")


class AmbiguousPrice(LivePriceError):
    """AWS answered with two candidates for one price: never guessed, never a mere warning."""


PARTITIONS = {  # region prefix -> partition (botocore endpoints.json "regionRegex")
    "cn-": "aws-cn",
    "us-gov-": "aws-us-gov",
    "us-iso": "aws-iso",
    "eu-isoe-": "aws-iso-e",
    "eusc-": "aws-eusc",
}


def partition(region: str) -> str:
    """The AWS partition a region belongs to ('aws', 'aws-cn', 'aws-us-gov', ...)."""
    return next((p for prefix, p in PARTITIONS.items() if region.startswith(prefix)), "aws")


# The currency each partition quotes prices in: AWS China (Beijing, operated by Sinnet; Ningxia,
# by NWCD) in CNY, every other partition in USD (botocore's partitions; the China console and
# Price List answers quote CNY).
QUOTE_CURRENCY = {"aws-cn": "CNY"}


def quote_currency(region: str) -> str:
    """The currency AWS quotes prices in for ``region``."""
    return QUOTE_CURRENCY.get(partition(region), "USD")


def pricing_endpoint(region: str) -> str:
    """The Price List endpoint to use for ``region`` (the API exists in few regions)."""
    part = partition(region)
    if part == "aws-cn":
        return "cn-northwest-1"
    if part != "aws":
        raise LivePriceError(
            f"the AWS Price List API has no endpoint in the {part} partition of {region};"
            " give usd_per_hour in the scenario"
        )
    if re.match(r"^(eu|me|af|il)-", region):
        return "eu-central-1"
    if region.startswith("ap-"):
        return "ap-south-1"
    return "us-east-1"


def savings_plans_region(region: str) -> str | None:
    """Where to ask for Savings Plan rates of ``region``: the global endpoint (through
    us-east-1) in the commercial partition, the region itself in China, None elsewhere."""
    part = partition(region)
    return {"aws": "us-east-1", "aws-cn": region}.get(part)


def call(what: str, fn: Callable[[], T]) -> T:
    """Run one AWS call; turn every failure into a one-line LivePriceError."""
    try:
        return fn()
    except (NoCredentialsError, PartialCredentialsError):
        raise LivePriceError(
            f"{what}: no AWS credentials found; set AWS_PROFILE or AWS_ACCESS_KEY_ID/"
            "AWS_SECRET_ACCESS_KEY (SSO users: run `aws sso login`), or use --prices snapshot"
        ) from None
    except ClientError as exc:
        err = exc.response.get("Error", {})
        code = str(err.get("Code", "?"))
        msg = str(err.get("Message", "")).strip().rstrip(".")
        if code in (
            "AccessDenied",
            "AccessDeniedException",
            "UnauthorizedOperation",
            "UnrecognizedClientException",
            "InvalidClientTokenId",
            "AuthFailure",
        ):
            raise LivePriceError(
                f"{what}: access denied ({code}); the credentials need pricing:GetProducts, "
                "savingsplans:DescribeSavingsPlansOfferingRates and ec2:Describe* permissions,"
                " or use --prices snapshot"
            ) from None
        if code in (
            "ThrottlingException",
            "Throttling",
            "RequestLimitExceeded",
            "TooManyRequestsException",
        ):
            raise LivePriceError(
                f"{what}: AWS throttled the request even after retries ({code}); try again later"
                " or use --prices cache"
            ) from None
        raise LivePriceError(f"{what}: AWS error {code}: {msg or 'no message'}") from None
    except (ConnectTimeoutError, ReadTimeoutError, EndpointConnectionError) as exc:
        raise LivePriceError(
            f"{what}: cannot reach AWS ({type(exc).__name__}); check the network or use"
            " --prices snapshot"
        ) from None
    except ResponseParserError:  # e.g. a 403 from a proxy with an empty or HTML body
        raise LivePriceError(
            f"{what}: AWS's answer could not be read (not the API's format: a proxy or an"
            " outage?); try again or use --prices snapshot"
        ) from None
    except BotoCoreError as exc:
        raise LivePriceError(f"{what}: {type(exc).__name__}: {exc}") from None
