"""Option kinds, a module each or a room of modules (``owned/``, ``rented/``); importing this
package registers the built-in ones.

See :mod:`tco.simulator.kinds.registry` for the protocol a kind implements. A new kind is one
module and one line below.
"""

from tco.simulator.kinds import hybrid, owned, rented  # noqa: F401 (register)
from tco.simulator.kinds.registry import Context, Kind, get, names, of, register, registered

__all__ = ["Context", "Kind", "get", "names", "of", "register", "registered"]
