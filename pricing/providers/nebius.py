"""Nebius: GPU instances from the bundled snapshot: SkyPilot's catalog; a later Nebius page shows
higher H100 prices (shared clouds README, cross-check 5)."""

from tco.pricing.providers.registry import register
from tco.pricing.providers.snapshot import SnapshotProvider

register(
    SnapshotProvider(
        "nebius",
        "Nebius",
        default_region="us-central1",
        billing_note=(
            "SkyPilot's catalog; a later Nebius page shows higher H100 prices (shared clouds "
            "README, cross-check 5); billed by the kind's rule (per second, 60 s minimum), an"
            " assumption: the data gives no billing increment"
        ),
    )
)
