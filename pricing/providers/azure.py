"""Azure: GPU instances from the bundled snapshot: from a third-party fork of SkyPilot's catalog, US
regions only (shared clouds README)."""

from tco.pricing.providers.registry import register
from tco.pricing.providers.snapshot import SnapshotProvider

register(
    SnapshotProvider(
        "azure",
        "Azure",
        default_region="eastus",
        billing_note=(
            "from a third-party fork of SkyPilot's catalog, US regions only (shared clouds "
            "README); billed by the kind's rule (per second, 60 s minimum), an assumption: "
            "the data gives no billing increment"
        ),
    )
)
