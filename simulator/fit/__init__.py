"""Which GPUs can train a model, how many per job, and where the run costs least (tco fit):
before any scenario, from the training model, the speed model and the price snapshots."""
