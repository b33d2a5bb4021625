"""Remove staging files left by a build that was killed (SIGKILL, power loss) before clean-up.

A build stages its bundle in ``.NAME.<pid>.tmp`` beside the target and removes it on any
error or signal it can catch; only a kill it cannot catch leaves one behind. The next build
to the same target removes every such file whose process is gone, and leaves alone one whose
process still runs (another build writing the same target). Where that cannot be asked
safely (Windows), nothing is swept.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

# Only POSIX can ask whether a process runs with os.kill(pid, 0): on Windows that call would
# end the process (TerminateProcess), so there every staging file is taken to be in use.
CAN_PROBE = os.name == "posix"


def _alive(pid: int) -> bool:
    if not CAN_PROBE:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def sweep_stale_staging(output: Path) -> list[Path]:
    """Delete the staging files of dead builds of ``output``; returns what was removed."""
    pattern = re.compile(rf"\.{re.escape(output.name)}\.(\d+)\.tmp")
    removed = []
    with contextlib.suppress(OSError):
        for path in output.parent.iterdir():
            found = pattern.fullmatch(path.name)
            if found and int(found.group(1)) != os.getpid() and not _alive(int(found.group(1))):
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed.append(path)
    return removed
