"""Option kinds, one module each; importing this package registers the built-in ones.

See :mod:`tco.simulator.kinds.registry` for the protocol a kind implements. A new kind is one
module and one line below.
"""

from tco.simulator.kinds import (  # noqa: F401 (register)
    bare_metal,
    hybrid,
    on_demand,
    owned,
    savings_plan,
    spot,
)
from tco.simulator.kinds.registry import Context, Kind, get, names, of, register, registered

__all__ = ["Context", "Kind", "get", "names", "of", "register", "registered"]
