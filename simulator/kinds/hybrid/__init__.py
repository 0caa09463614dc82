"""The hybrid kind, one room: its scenario section, plan and parts (``model``) and the kind
that registers itself (``kind``): jobs queue on an owned option and burst to a cloud option.
"""

from tco.simulator.kinds.hybrid import kind  # noqa: F401 (registers the kind)
