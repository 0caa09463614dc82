"""The network between a provider's instances: which link a shape gets, InfiniBand, RoCE or
Ethernet, and how sure that is (``data/cloud_links.csv``, each row with its source; read
``documented`` as the provider's own pages saying so, ``assumed`` as tco's guess). A shape no
row covers is taken to have 25 Gb/s Ethernet between instances, said as an assumption.

The link is what slows a job spread over several instances (``workload.speed``): a 64-GPU run
on InfiniBand clusters loses a few per cent to synchronising, on 25 Gb/s Ethernet a fifth. Its
bandwidth is a GPU's own link, as the owned catalogue counts it (``ib_hdr``: the brief's
measured 200 Gb/s; ``ib_ndr``: 400 Gb/s), so a cloud's 8-GPU host with eight 400 Gb/s NDR ports
syncs as an owned HGX server with the same ports does.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from fnmatch import fnmatchcase
from importlib import resources

LINKS_FILE = "cloud_links.csv"
STATUSES = ("documented", "assumed")


@dataclass(frozen=True)
class Link:
    """A shape's network between instances: a hardware-catalog interconnect name, the fabric
    in words, whether a source documents it, and the source."""

    inter_node: str
    fabric: str
    status: str
    source: str


DEFAULT = Link(
    "eth_25g",
    "Ethernet",
    "assumed",
    "ASSUMPTION: no source in tco's data gives this shape's network between instances; 25 Gb/s"
    " Ethernet is taken",
)


@functools.cache
def _rows() -> tuple[tuple[str, str, Link], ...]:
    text = resources.files("tco.pricing").joinpath("data", LINKS_FILE).read_text("utf-8")
    out = []
    for r in csv.DictReader(text.splitlines()):
        if r["status"] not in STATUSES:
            raise ValueError(f"{LINKS_FILE}: status {r['status']!r} not one of {STATUSES}")
        link = Link(r["inter_node"], r["fabric"], r["status"], r["source"])
        out.append((r["provider"], r["instance_types"], link))
    return tuple(out)


def link(provider: str, instance_type: str) -> Link:
    """The first row of the table whose provider and instance-type pattern match (shell
    wildcards), else :data:`DEFAULT`."""
    for p, pattern, found in _rows():
        if p == provider and fnmatchcase(instance_type, pattern):
            return found
    return DEFAULT
