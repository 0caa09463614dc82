"""The owned kind, one room: its scenario section and plan (``model``), the sections inside it
(``parts``), the kind that registers itself (``kind``), its jobs queued on the cluster
(``queue``) or on servers of several models (``mixed``), a refresh and tranches of other models
(``generations``), and its ledger (``costs``).
"""

from tco.simulator.kinds.owned import kind  # noqa: F401 (registers the kind)
