"""Vast.ai: GPU instances from the bundled snapshot: the median of the marketplace's offers of a
type on one day, often one offer (shared clouds README)."""

from tco.pricing.providers.registry import register
from tco.pricing.providers.snapshot import SnapshotProvider

register(
    SnapshotProvider(
        "vast",
        "Vast.ai",
        default_region="marketplace",
        billing_note=(
            "the median of the marketplace's offers of a type on one day, often one offer "
            "(shared clouds README); billed by the kind's rule (per second, 60 s minimum), an"
            " assumption: the data gives no billing increment"
        ),
    )
)
