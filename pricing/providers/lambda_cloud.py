"""Lambda: GPU instances from the bundled snapshot: Lambda lists every type in all 17 regions at one
price (a listing, not stock; shared clouds README)."""

from tco.pricing.providers.registry import register
from tco.pricing.providers.snapshot import SnapshotProvider

register(
    SnapshotProvider(
        "lambda",
        "Lambda",
        default_region="us-east-1",
        billing_note=(
            "Lambda lists every type in all 17 regions at one price (a listing, not stock; "
            "shared clouds README); billed by the kind's rule (per second, 60 s minimum), an "
            "assumption: the data gives no billing increment"
        ),
    )
)
