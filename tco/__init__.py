"""tco: buy or rent GPUs for deep-learning training.

The library a notebook can use, under the ``tco`` command::

    import tco
    result = tco.run_file("scenarios/lab.yaml")
    result.monthly_frame()            # pandas DataFrame
    tco.summary.to_summary(result)    # the summary.json document
"""

from __future__ import annotations

from tco.pricing.book import PriceBook
from tco.pricing.errors import PricingError
from tco.simulator import summary
from tco.simulator.errors import ScenarioError
from tco.simulator.result import OptionResult, Result
from tco.simulator.run import run, run_file, version
from tco.simulator.scenario import Scenario, load_scenario, loads_scenario

__all__ = [
    "OptionResult",
    "PriceBook",
    "PricingError",
    "Result",
    "Scenario",
    "ScenarioError",
    "load_scenario",
    "loads_scenario",
    "run",
    "run_file",
    "summary",
    "version",
]
