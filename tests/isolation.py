"""What keeps one test process apart from every other on the machine: xdist workers of one run, and other clones
testing at the same time, each get their own PostgreSQL database, Redis prefix and files."""

from __future__ import annotations

import os
import secrets

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
# random per test process, so two runs at once never meet on a shared server
RUN_ID = f"{secrets.token_hex(4)}_{WORKER}"
