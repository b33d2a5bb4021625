"""Make this Python look like Windows's for imports: POSIX-only modules raise ImportError.

Put this folder on PYTHONPATH; Python imports ``sitecustomize`` at start-up. Modules that
exist on Linux and macOS but not on Windows (fcntl, resource, pwd, grp, termios...) then
fail to import, as they would there, so a command's whole import path can be checked.
"""

import importlib.abc
import os
import sys

BLOCKED = frozenset(
    os.environ.get(
        "NRF_BLOCKED_MODULES", "fcntl,resource,pwd,grp,termios,syslog,_posixshmem"
    ).split(",")
)


class _Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in BLOCKED:
            raise ImportError(f"No module named {name!r} (blocked: not on Windows)", name=name)
        return None


for _name in BLOCKED:
    sys.modules.pop(_name, None)
sys.meta_path.insert(0, _Blocker())
