"""`python -m nrf`: the `nrf` command, for an environment whose scripts folder is not on PATH."""

from nrf.entrypoints.cli import main

if __name__ == "__main__":  # importing the module (as the import check does) runs nothing
    raise SystemExit(main())
