"""The owned cluster as a SimPy queue: gang scheduling, FIFO and EASY backfill on a pool or placed
on servers (``scheduler``, ``placement``), servers of several models (``mixed``), failures and
repairs (``failures``), jobs stopped and queued again (``requeue``), checkpointed restarts
(``interruptions``) and the queue's input and output records (``queue_records``). It knows
nothing of kinds, costs or scenarios: kinds give it numbers. Imports only ``core``.
"""
