"""Write tests/slow_tests.txt, the tests the fast tier leaves out, from a measured run.

A test is slow when its call took SLOW_S or more in a run of the whole suite with pytest's
durations (the fast tier, ``python -m pytest -m "not slow"``, is a developer's loop of under
two minutes of CPU; the README's test command still runs every test). Measure on a quiet
machine, then write the list:

    python -m pytest -p no:cacheprovider --durations=0 --durations-min=0.3 > /tmp/durations.txt
    python scripts/slow_tests.py /tmp/durations.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SLOW_S = 0.5  # 0.8 until 0.26.0: the fast tier had grown past two minutes of CPU
OUT = Path(__file__).resolve().parent.parent / "tests" / "slow_tests.txt"
LINE = re.compile(r"\s*([\d.]+)s call\s+(\S.*?)\s*$")  # an id may hold spaces

HEADER = """\
# Tests the fast tier (python -m pytest -m "not slow") leaves out: each took 0.5 s or more in a
# measured run of the whole suite (scripts/slow_tests.py writes this file; tests marked heavy
# are left out of both tiers' default runs anyway). One pytest node id a line.
"""


def main(log: str) -> None:
    slow = sorted(
        {
            m.group(2)
            for m in map(LINE.match, Path(log).read_text().splitlines())
            if m and float(m.group(1)) >= SLOW_S
        }
    )
    if not slow:
        sys.exit(f"{log}: no test call of {SLOW_S} s or more (a --durations=0 log?)")
    OUT.write_text(HEADER + "\n".join(slow) + "\n")
    print(f"{OUT}: {len(slow)} tests")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
