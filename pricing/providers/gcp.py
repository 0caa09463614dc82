"""Google Cloud: GPU instances from the bundled snapshot: GPU and host VM prices summed as
SkyPilot's gcp_catalog.py does; us-east4 by default because rows of other regions are often SUSPECT
(shared clouds README)."""

from tco.pricing.providers.registry import register
from tco.pricing.providers.snapshot import SnapshotProvider

register(
    SnapshotProvider(
        "gcp",
        "Google Cloud",
        default_region="us-east4",
        billing_note=(
            "GPU and host VM prices summed as SkyPilot's gcp_catalog.py does; us-east4 by "
            "default because rows of other regions are often SUSPECT (shared clouds README); "
            "billed by the kind's rule (per second, 60 s minimum), an assumption: the data "
            "gives no billing increment"
        ),
    )
)
