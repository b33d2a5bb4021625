"""`python -m nrf`: the `nrf` command, for an environment whose scripts folder is not on PATH."""

from nrf.entrypoints.cli import main

raise SystemExit(main())
