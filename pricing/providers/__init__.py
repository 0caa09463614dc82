"""GPU clouds beside AWS, each a plug-in of the price book (see ``registry``). Importing this
package registers every provider below; adding one is a module and its name here."""

from tco.pricing.providers import (  # noqa: F401  (each registers itself)
    azure,
    coreweave,
    gcp,
    lambda_cloud,
    nebius,
    oci,
    runpod,
    vast,
)
from tco.pricing.providers.registry import (
    AWS,
    Offer,
    Provider,
    get,
    known,
    known_regions,
    names,
    qualified,
    register_user,
    shipped,
    split,
)

__all__ = [
    "AWS",
    "Offer",
    "Provider",
    "get",
    "known",
    "known_regions",
    "names",
    "qualified",
    "register_user",
    "shipped",
    "split",
]
