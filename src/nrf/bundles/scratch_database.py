"""A private temporary SQLite database for rows too many to hold: on disk, its cache capped.

SQLite makes the file itself for the name "" and deletes it when the connection closes; the
page cache is capped (``CACHE_KIB``) so memory does not grow with the rows, and nothing is
journalled or committed, because the file is thrown away.
"""

from __future__ import annotations

import sqlite3

CACHE_KIB = 8 * 1024


def scratch_database(*schema: str) -> sqlite3.Connection:
    """A new scratch database with ``schema``'s statements run, inside an open transaction."""
    db = sqlite3.connect("", isolation_level=None)
    db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    db.execute("PRAGMA journal_mode=OFF")
    for statement in schema:
        db.execute(statement)
    db.execute("BEGIN")  # never committed: the file is thrown away
    return db
