"""The work to be done: the job stream (``jobs``) drawn from job classes (``arrivals``, ``spec``)
or replayed from a trace (``replayed``, ``traces/``), the two merged (``merge``), and how long a
job runs on given hardware (``speed``, ``calibration``). Imports only ``core``.
"""
