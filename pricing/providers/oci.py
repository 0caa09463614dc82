"""Oracle Cloud (OCI): GPU instances from the bundled snapshot: GPU list prices identical in every
region read (shared clouds README)."""

from tco.pricing.providers.registry import register
from tco.pricing.providers.snapshot import SnapshotProvider

register(
    SnapshotProvider(
        "oci",
        "Oracle Cloud (OCI)",
        default_region="us-phoenix-1",
        billing_note=(
            "GPU list prices identical in every region read (shared clouds README); billed by"
            " the kind's rule (per second, 60 s minimum), an assumption: the data gives no "
            "billing increment"
        ),
    )
)
