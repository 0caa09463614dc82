"""CoreWeave: GPU instances from the bundled snapshot: a third-party transcription of
coreweave.com/pricing read 2026-09-20 (secondary; shared clouds README)."""

from tco.pricing.providers.registry import register
from tco.pricing.providers.snapshot import SnapshotProvider

register(
    SnapshotProvider(
        "coreweave",
        "CoreWeave",
        default_region="north-america",
        billing_note=(
            "a third-party transcription of coreweave.com/pricing read 2026-09-20 (secondary;"
            " shared clouds README); billed by the kind's rule (per second, 60 s minimum), an"
            " assumption: the data gives no billing increment"
        ),
    )
)
