"""The ground floor: what every room of the simulator uses and that knows none of them. Errors a
user can fix, the strict field types of a scenario, every default number with its source, the
limits on work, months in hours, atomic file writes, reading a user's file, a quote (a figure
with its unit, source and date). Imports nothing of the simulator.
"""
