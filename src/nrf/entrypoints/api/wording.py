"""A message shared with `nrf assess` names the API's parameter, never the command's flag.

The boundary readers and validators are the CLI's own, and a hint in them may name an option
as the command line spells it (``--layer NAME``). Someone using the API or the form has no
command line, so each flag is worded here as what they can send instead, or, for an option
the API does not have, as what to do; an unknown flag loses its dashes rather than be shown.
"""

from __future__ import annotations

import re

# The flag (with its metavar, if any) -> what an API or form user gives instead.
API_NAMES = {
    "--layer": "the `layer` parameter or form field",
    "--columns": "the `columns` parameter or form field",
    "--rules": "the `rules` parameter or form field",
    "--quote-date": "the `quoteDate` parameter",
    "--dwellings": "the `dwellings` form field (or a dwellings property on the feature)",
    # No API counterpart: a file sent over HTTP states its CRS (a GeoJSON crs member, a .prj).
    "--crs": "a CRS stated in the file (a .prj beside the .shp, or a GeoJSON crs member) such as",
    # The API's ceiling is the service's (NRF_MAX_SITES_PER_JOB), not the caller's to raise.
    "--max-sites": "a file with fewer sites",
}
# A flag named again in one message: said once in full, then briefly.
AGAIN = {"--crs": "one such as"}
# A flag, in backticks or not, with the metavar `nrf assess --help` shows after it, if any.
_FLAG = re.compile(r"(?<![\w-])`?(--[a-z][a-z0-9-]*)`?(?: (?:NAME|MAP|CRS|N|PATH)\b)?")


def for_api(message: str) -> str:
    """``message`` with every command-line flag (and its metavar) put in the API's words."""
    said: set[str] = set()

    def worded(flag: re.Match[str]) -> str:
        name = flag.group(1)
        again = name in said and name in AGAIN
        said.add(name)
        return AGAIN[name] if again else API_NAMES.get(name, name[2:])

    return _FLAG.sub(worded, message)
