"""Append three-event commands to a campaign forever, until the test kills this process; after each, print how many
are in.

Usage: python crash_writer.py DATABASE_URL CAMPAIGN_ID
"""

from __future__ import annotations

import sys

from herotable.store import NewEvent, open_store

AT = "2024-05-01T19:30:00+00:00"


def main(url: str, campaign_id: str) -> None:
    store = open_store(url)
    number = 0
    while True:
        head = store.head(campaign_id)
        store.append(
            campaign_id,
            head,
            [NewEvent("test.part", {"part": part, "of": 3, "pad": "x" * 2000}, f"k{number}", AT) for part in range(3)],
        )
        number += 1
        print(number, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
