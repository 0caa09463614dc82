"""What the answer adds to a run by running the engine again: the recommendation and the smallest
cluster meeting the level (``recommendation``), each kind's search (``optimize``), break-even
volumes (``breakeven``), what-ifs beyond prices (``what_if``) and price sensitivity
(``sensitivity``). Imports ``engine`` and below.
"""
