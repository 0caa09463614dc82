"""tco: buy or rent GPUs for deep-learning training.

The library a notebook can use, under the ``tco`` command::

    import tco
    result = tco.run_file("scenarios/lab.yaml")
    result.comparison_frame()         # pandas DataFrame: one row per option
    tco.write_report(result, "out", formats=("html", "xlsx"))
    tco.summary.to_summary(result)    # the summary.json document

Names are imported on first use, so ``import tco`` (and ``tco --version``) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tco.pricing.book import PriceBook
    from tco.pricing.errors import PricingError
    from tco.reports import summary
    from tco.reports.build import write_report
    from tco.simulator.core.errors import ScenarioError
    from tco.simulator.engine.result import OptionResult, Result
    from tco.simulator.run import OddsRun, Prepared, prepare, run, run_file, simulate, version
    from tco.simulator.scenario.model import Scenario, load_scenario, loads_scenario

_HOMES = {
    "OddsRun": "tco.simulator.run",
    "OptionResult": "tco.simulator.engine.result",
    "PriceBook": "tco.pricing.book",
    "PricingError": "tco.pricing.errors",
    "Prepared": "tco.simulator.run",
    "Result": "tco.simulator.engine.result",
    "Scenario": "tco.simulator.scenario.model",
    "ScenarioError": "tco.simulator.core.errors",
    "load_scenario": "tco.simulator.scenario.model",
    "loads_scenario": "tco.simulator.scenario.model",
    "prepare": "tco.simulator.run",
    "run": "tco.simulator.run",
    "run_file": "tco.simulator.run",
    "simulate": "tco.simulator.run",
    "summary": "tco.reports.summary",
    "version": "tco.simulator.run",
    "write_report": "tco.reports.build",
}
__all__ = [
    "OddsRun",
    "OptionResult",
    "Prepared",
    "PriceBook",
    "PricingError",
    "Result",
    "Scenario",
    "ScenarioError",
    "load_scenario",
    "loads_scenario",
    "prepare",
    "run",
    "run_file",
    "simulate",
    "summary",
    "version",
    "write_report",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tco' has no attribute {name!r}")
    module = importlib.import_module(home)
    # ``tco.summary`` is the module; ``tco.run`` is the function of the module of that name.
    value = module if name == "summary" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
