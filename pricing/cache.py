"""The on-disk cache of live AWS answers: one JSON file per region and instance type.

Files live under the user's cache directory (``platformdirs``; ``TCO_CACHE_DIR`` overrides) and
carry their fetch time and source. Writes are atomic (a temporary file, then ``os.replace``), so a
crash never leaves half a file. A file that cannot be read or does not have the expected shape is
reported and ignored, never trusted.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from tco.pricing.entry import PriceEntry

CACHE_SCHEMA = "tco-price-cache/1"
DEFAULT_TTL = dt.timedelta(days=7)


def default_dir() -> Path:
    """``$TCO_CACHE_DIR``, or the platform's user cache directory for tco."""
    env = os.environ.get("TCO_CACHE_DIR")
    return Path(env) if env else Path(platformdirs.user_cache_dir("tco")) / "prices"


MAX_ENTRY_BYTES = 1 << 20  # an entry is a few kB; anything larger is not one


def _read_small(p: Path) -> str:
    """The text of a cache file: a regular file of at most ``MAX_ENTRY_BYTES``, opened without
    blocking (a FIFO planted in the cache must not hang a run, nor a link to /dev/zero fill
    memory); OSError or ValueError otherwise. (The twin of the simulator's
    ``core.input_files.read_input``, which pricing, the floor below it, cannot import.)"""
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ValueError("not a regular file")
        data = f.read(MAX_ENTRY_BYTES + 1)
    if len(data) > MAX_ENTRY_BYTES:
        raise ValueError(f"larger than {MAX_ENTRY_BYTES:,} bytes")
    return data.decode("utf-8")


@dataclass(frozen=True)
class Cached:
    """A cached entry, when it was fetched, and from where."""

    entry: PriceEntry
    fetched_at: dt.datetime
    source: str

    def age(self, now: dt.datetime) -> dt.timedelta:
        return now - self.fetched_at


@dataclass
class PriceCache:
    """Read and write cached live entries; ``warnings`` collects the files that were ignored."""

    directory: Path
    ttl: dt.timedelta = DEFAULT_TTL

    def __post_init__(self) -> None:
        self.warnings: list[str] = []

    def path(self, instance_type: str, region: str) -> Path:
        return self.directory / region / f"{instance_type}.json"

    def get(self, instance_type: str, region: str) -> Cached | None:
        """The cached entry, or None (missing, or corrupt: then a warning says so)."""
        p = self.path(instance_type, region)
        if not p.exists():
            return None
        try:
            doc = json.loads(_read_small(p))
            if doc.get("schema") != CACHE_SCHEMA:
                raise ValueError(f"schema is {doc.get('schema')!r}, expected {CACHE_SCHEMA!r}")
            entry = PriceEntry.from_dict(instance_type, doc["entry"])
            fetched = dt.datetime.fromisoformat(doc["fetched_at"])
            if fetched.tzinfo is None:
                raise ValueError("fetched_at has no time zone")
            return Cached(entry, fetched, str(doc["source"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            self.warnings.append(f"price cache file {p} is corrupt ({exc}); ignored")
            return None

    def put(
        self,
        instance_type: str,
        region: str,
        entry: PriceEntry,
        fetched_at: dt.datetime,
        source: str = "aws-api",
    ) -> Path:
        """Store an entry atomically."""
        p = self.path(instance_type, region)
        p.parent.mkdir(parents=True, exist_ok=True)
        doc = {
            "schema": CACHE_SCHEMA,
            "instance_type": instance_type,
            "region": region,
            "fetched_at": fetched_at.isoformat(),
            "source": source,
            "entry": entry.to_dict(),
        }
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1, sort_keys=True)
            os.replace(tmp, p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return p
