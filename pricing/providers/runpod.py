"""RunPod: GPU instances from the bundled snapshot: Secure Cloud; regions are country codes; only
some GPU groups were read (shared clouds README)."""

from tco.pricing.providers.registry import register
from tco.pricing.providers.snapshot import SnapshotProvider

register(
    SnapshotProvider(
        "runpod",
        "RunPod",
        default_region="US",
        billing_note=(
            "Secure Cloud; regions are country codes; only some GPU groups were read (shared "
            "clouds README); billed by the kind's rule (per second, 60 s minimum), an "
            "assumption: the data gives no billing increment"
        ),
    )
)
