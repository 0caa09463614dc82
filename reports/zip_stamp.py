"""A zip file (an xlsx) written without the clock: two identical runs give the same bytes."""

from __future__ import annotations

import datetime as dt
import os
import re
import zipfile
from pathlib import Path

ZIP_EPOCH = dt.datetime(1980, 1, 1, tzinfo=dt.UTC)


def stamp() -> tuple[int, int, int, int, int, int]:
    """The date written into the workbook: SOURCE_DATE_EPOCH (the reproducible-builds
    convention) when set, else 1980-01-01 00:00 UTC, the earliest a zip entry can carry."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch.isdigit() else ZIP_EPOCH
    return max(when, ZIP_EPOCH).timetuple()[:6]


def reproducible(path: Path) -> None:
    """Rewrite the saved workbook without the clock: openpyxl stamps the document's created and
    modified times and every zip entry with the time of saving, so two identical runs would
    differ. Same entries, same order, same compression."""
    when = stamp()
    iso = dt.datetime(*when).strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    with zipfile.ZipFile(path) as z:
        entries = [(info, z.read(info.filename)) for info in z.infolist()]
    with zipfile.ZipFile(path, "w") as out:
        for info, data in entries:
            if info.filename == "docProps/core.xml":
                data = re.sub(
                    rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)",
                    rb"\g<1>" + iso + rb"\g<2>",
                    data,
                )
            entry = zipfile.ZipInfo(info.filename, date_time=when)
            entry.compress_type = info.compress_type
            entry.external_attr = info.external_attr
            out.writestr(entry, data)
