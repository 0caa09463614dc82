"""Training work as people plan it: a model's size, tokens and precision. The run resolved
(``work``), its compute (``compute``) and its memory on each GPU (``memory``); how fast a GPU
runs it is the speed model's (``workload.mfu``)."""
