"""`--help` of every `nrf` command ends with an example and the exit codes.

Examples are kept here, by command path, and added to the parsers once they are built, so
a new subcommand needs one line below (a unit test names any command that lacks one).
"""

from __future__ import annotations

import argparse

from nrf.entrypoints import exit_codes

SAMPLE = "src/nrf/data/samples/defra-rlb-samples/BnW_cleaned_110925/BnW_cleaned_110925.shp"

EXAMPLES: dict[str, str] = {
    "": f"nrf assess {SAMPLE} --output out/sites.csv",
    "assess": (
        f"nrf assess {SAMPLE}\n"
        "  nrf assess sites/ --output out/sites.csv     (a shapefile's folder; also writes\n"
        "                                               out/sites.levy.csv for Excel)\n"
        "  nrf assess sites.gpkg --layer boundaries --output out/sites.geojson\n"
        "  nrf assess sites.shp --crs EPSG:27700        (a .shp without its .prj)\n"
        "  nrf assess county.geojson --max-sites 60000 --output out/county.csv"
    ),
    "bundle": "nrf bundle generate out/bundle.gpkg --polygons 100000",
    "bundle generate": (
        "nrf bundle generate out/bundle.gpkg --polygons 100000\n"
        "  nrf bundle generate out/norfolk.gpkg --norfolk-demo"
    ),
    "worker": "AWS_SQS_QUEUE_NAME=nrf_impact_assessment_queue nrf worker   (see docs/worker.md)",
    "dlq": "AWS_SQS_QUEUE_NAME=nrf_impact_assessment_queue nrf dlq",
    "submit": "nrf submit sites.geojson --email planner@example.gov.uk --job-prefix batch7",
    "health": "nrf health --url http://127.0.0.1:8085",
    "demo": "nrf demo --results out/demo-results --limit 20",
    "bundle build": (
        "nrf bundle build iat_input/ --output out/nrf-2026.11.gpkg --version 2026.11 \\\n"
        "      --levy-charges charges.csv --inflation-index index.csv --default-occupancy 2.4 \\\n"
        "      --default-water-usage 120"
    ),
    "bundle check": "nrf bundle check out/nrf-2026.11.gpkg",
    "bundle diff": "nrf bundle diff out/nrf-2026.10.gpkg out/nrf-2026.11.gpkg --sites s.geojson",
    "bundle publish": "nrf bundle publish out/nrf-2026.11.gpkg s3://nrf-reference-data/bundles/",
    "serve": (
        "NRF_API_KEYS=$(openssl rand -hex 24) NRF_REFERENCE_DATA=s3://bucket/key.gpkg \\\n"
        "      NRF_REFERENCE_DATA_SHA256=<digest> nrf serve --bind 0.0.0.0:8080"
    ),
    "status": "AWS_SQS_QUEUE_NAME=nrf_impact_assessment_queue nrf status --json",
    "housekeep": "AWS_SQS_QUEUE_NAME=nrf_impact_assessment_queue nrf housekeep --dry-run",
}


def subcommands(
    parser: argparse.ArgumentParser, path: str = ""
) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every (command path, parser) under ``parser``, itself first ("" for the top)."""
    found = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += subcommands(child, f"{path} {name}".strip())
    return found


def finish_help(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give every command's help its example (when one is known) and its rows of the exit codes."""
    for path, command in subcommands(parser):
        parts = [command.epilog] if command.epilog else []
        if path in EXAMPLES:
            parts.append(f"example:\n  {EXAMPLES[path]}")
        parts.append(exit_codes.help_section(path))
        command.epilog = "\n\n".join(parts)
        command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser
