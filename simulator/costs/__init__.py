"""Money, independent of any kind: the monthly ledger and its declared categories (``ledger``),
hourly usage from intervals (``usage``), NPV, depreciation and break-even (``finance``), loans,
leases and escalation (``financing``), the reporting currency (``money``), and the costs of the
scenario's data (``data``). Imports only ``core``.
"""
