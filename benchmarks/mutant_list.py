"""The mutants ``python -m benchmarks.mutants`` makes: each a change a test must catch, and why.

Each is one exact piece of source text and what it becomes. The original must occur exactly
once in its file (tests/unit/test_mutant_list.py), so a list that no longer matches the code
fails at once rather than testing nothing; each names the tests that must fail on it (files,
or ``file::test`` to keep a slow file's share short) and what a survivor would let through.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

_CHARGING = "src/nrf/domain/charging.py"
_ROUNDING = "src/nrf/domain/levy_rounding.py"
_GEOGRAPHY = "src/nrf/domain/edp_geography.py"
_BOUNDED = "src/nrf/adapters/site_boundaries/bounded_read.py"
_ZIP = "src/nrf/adapters/site_boundaries/boundary_zip.py"
_WKB = "src/nrf/adapters/site_boundaries/wkb_vertices.py"
_SHAPEFILE = "src/nrf/adapters/site_boundaries/shapefile_records.py"
_DBF = "src/nrf/adapters/site_boundaries/dbf_records.py"
_PATCH = "src/nrf/schemas/backend-quote-patch.schema.json"

_LEVY_TESTS = ("tests/unit/test_levy_charging_by_hand.py", "tests/unit/test_levy_rounding_rules.py")
_GEOGRAPHY_TESTS = ("tests/unit/test_assessment_levy.py",)
_BOUNDED_TESTS = ("tests/unit/test_bounded_read.py",)
_FILES = "tests/integration/test_boundary_files.py"
_ONCE = ("tests/integration/test_shapefile_exactly_once.py",)
_COUNTS = "tests/integration/test_boundary_true_counts.py"
_PATCH_TESTS = ("tests/unit/test_quote_update.py",)
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, kw_only=True)
class Mutant:
    name: str
    file: str  # relative to the repository's root
    original: str  # occurs exactly once in ``file``
    mutated: str
    tests: tuple[str, ...]  # pytest arguments: files or node ids
    why: str  # what would go wrong, unnoticed, if it survived


def problems(mutant: Mutant, root: Path = ROOT) -> list[str]:
    """Why ``mutant`` cannot be made in the tree at ``root`` (an empty list when it can)."""
    found: list[str] = []
    path = root / mutant.file
    if not path.is_file():
        return [f"{mutant.name}: no file {mutant.file}"]
    count = path.read_text(encoding="utf-8").count(mutant.original)
    if count != 1:
        found.append(f"{mutant.name}: its original text occurs {count} times in {mutant.file}")
    if mutant.original == mutant.mutated:
        found.append(f"{mutant.name}: the mutant is the original")
    if not mutant.tests:
        found.append(f"{mutant.name}: no tests named")
    for test in mutant.tests:
        if not (root / test.split("::")[0]).is_file():
            found.append(f"{mutant.name}: no test file {test.split('::')[0]}")
    return found


MUTANTS: tuple[Mutant, ...] = (
    # Issue 31's survivors: each made by hand once; here so they stay killed.
    Mutant(
        name="charge_on_ignores_the_edp",
        file=_CHARGING,
        original="c for c in charges if c.edp_id == edp_id and c.covers(day)",
        mutated="c for c in charges if c.covers(day)",
        tests=_LEVY_TESTS,
        why="a Norfolk site priced at another EDP's charge (£99,990.00 for 10 homes)",
    ),
    Mutant(
        name="excluded_area_without_the_noise_floor",
        file=_GEOGRAPHY,
        original="if area > MIN_OVERLAP_M2)",
        mutated="if area > 0)",
        tests=_GEOGRAPHY_TESTS,
        why="a boundary drawn along an excluded zone's edge refused as inside it",
    ),
    Mutant(
        name="cpu_limit_armed_once_per_stream",
        file=_BOUNDED,
        original="            _limit_cpu(limits)  # the deadline again, for the next item\n",
        mutated="",
        tests=_BOUNDED_TESTS,
        why="a long streamed file refused as timed out because its later items share one budget",
    ),
    Mutant(
        name="out_of_memory_exit_read_as_unreadable",
        file=_BOUNDED,
        original="        if code == _OUT_OF_MEMORY:\n            return too_large(limits)\n",
        mutated="",
        tests=_BOUNDED_TESTS,
        why="a file too large to read told it is damaged (unreadable_file), not read_too_large",
    ),
    Mutant(
        name="patch_catchment_takes_unknown_keys",
        file=_PATCH,
        original='"catchment": {\n      "type": "object",\n      "additionalProperties": false,',
        mutated='"catchment": {\n      "type": "object",\n      "additionalProperties": true,',
        tests=_PATCH_TESTS,
        why="a PATCH with a key Defra's Joi schema refuses passes nrf's checks, then fails live",
    ),
    Mutant(
        name="patch_impact_takes_unknown_keys",
        file=_PATCH,
        original='"impact": {\n          "type": "object",\n'
        '          "additionalProperties": false,',
        mutated='"impact": {\n          "type": "object",\n          "additionalProperties": true,',
        tests=_PATCH_TESTS,
        why="a PATCH with a key Defra's Joi schema refuses passes nrf's checks, then fails live",
    ),
    Mutant(
        name="patch_band_takes_unknown_keys",
        file=_PATCH,
        original='"band": {\n          "type": "object",\n          "additionalProperties": false,',
        mutated='"band": {\n          "type": "object",\n          "additionalProperties": true,',
        tests=_PATCH_TESTS,
        why="a PATCH with a key Defra's Joi schema refuses passes nrf's checks, then fails live",
    ),
    Mutant(
        name="patch_empty_catchment_id",
        file=_PATCH,
        original='"catchmentId": {"oneOf": [{"type": "string", "minLength": 1}',
        mutated='"catchmentId": {"oneOf": [{"type": "string", "minLength": 0}',
        tests=_PATCH_TESTS,
        why='an empty catchmentId (Joi refuses "") sent instead of null',
    ),
    Mutant(
        name="quote_day_in_local_time",
        file=_CHARGING,
        original="return datetime.fromtimestamp(epoch_seconds, UTC).date()",
        mutated="return datetime.fromtimestamp(epoch_seconds).date()",
        tests=("tests/unit/test_quote_dates.py",),
        why="a quote near midnight dated by the server's time zone: a day's charge off",
    ),
    # Charging and its rounding rule.
    Mutant(
        name="half_up_rounds_half_to_even",
        file=_CHARGING,
        original="return value.quantize(PENNY, rounding=ROUND_HALF_UP)",
        mutated="return value.quantize(PENNY)",
        tests=_LEVY_TESTS,
        why="half a penny rounded to even (Python's round): quotes a penny short of Defra's",
    ),
    Mutant(
        name="exact_total_truncated",
        file=_CHARGING,
        original="pennies = (value * 100 + Fraction(1, 2)).__floor__()",
        mutated="pennies = (value * 100).__floor__()",
        tests=_LEVY_TESTS,
        why="an indexed total rounded down, not half up, under Defra's newest rule",
    ),
    Mutant(
        name="index_factors_inverted",
        file=_CHARGING,
        original="per_unit = half_up(base * now.index_factor / start.index_factor)",
        mutated="per_unit = half_up(base * start.index_factor / now.index_factor)",
        tests=_LEVY_TESTS,
        why="a later year's charge deflated instead of indexed up",
    ),
    Mutant(
        name="provisional_amount_rounded_per_unit_always",
        file=_CHARGING,
        original="base_amount = half_up(base * units) if total_once else",
        mutated="base_amount = half_up(half_up(base) * units) if total_once else",
        tests=_LEVY_TESTS,
        why="a fractional base charge rounded per unit under the round-the-total rule",
    ),
    Mutant(
        name="vat_left_out_of_the_total",
        file=_CHARGING,
        original="amount_including_vat=adjusted + vat,",
        mutated="amount_including_vat=adjusted,",
        tests=_LEVY_TESTS,
        why="the amount including VAT quoted without the VAT",
    ),
    Mutant(
        name="two_edps_priced_as_one",
        file=_CHARGING,
        original="if len(edps) > 1:",
        mutated="if len(edps) > 2:",
        tests=_LEVY_TESTS,
        why="a site across two EDPs quoted (it fails at unpacking, or worse, silently)",
    ),
    Mutant(
        name="unstated_rounding_reads_as_the_new_rule",
        file=_ROUNDING,
        original="UNSTATED = LevyRounding.PER_UNIT",
        mutated="UNSTATED = LevyRounding.ROUND_TOTAL",
        tests=_LEVY_TESTS,
        why="an older bundle's figures changed by a rule it was never checked under",
    ),
    # EDP geography.
    Mutant(
        name="overlapping_polygons_summed",
        file=_GEOGRAPHY,
        original="    return float(shapely.union_all(pieces).area)\n",
        mutated="    return math.fsum(float(p.area) for p in pieces)\n",
        tests=_GEOGRAPHY_TESTS,
        why="an overlap of two polygons of one EDP counted twice: over 100 % of a site",
    ),
    Mutant(
        name="touching_catchment_listed",
        file=_GEOGRAPHY,
        original="        for name, a in sorted(areas.items())\n        if a > 0\n",
        mutated="        for name, a in sorted(areas.items())\n",
        tests=_GEOGRAPHY_TESTS,
        why="a catchment the site only touches listed with 0 % and sent to the backend",
    ),
    Mutant(
        name="edp_contact_needs_area",
        file=_GEOGRAPHY,
        original="    areas = edp_areas(site, edps)\n    if not areas:",
        mutated="    areas = {k: a for k, a in edp_areas(site, edps).items() if a > 0}\n"
        "    if not areas:",
        tests=_GEOGRAPHY_TESTS,
        why="a site drawn along two EDPs' shared edge priced as in one (Defra refuses it)",
    ),
    Mutant(
        name="shares_in_whole_percents",
        file=_GEOGRAPHY,
        original="return round2(100 * area / site.area)",
        mutated="return float(round(100 * area / site.area))",
        tests=_GEOGRAPHY_TESTS,
        why="shares cut to whole percents: 14.29 % of a site sent to the backend as 14 %",
    ),
    # Bounded reads: the forked reader, zips and the vertex walk.
    Mutant(
        name="memory_ceiling_not_lowered",
        file=_BOUNDED,
        original="resource.setrlimit(resource.RLIMIT_AS, (_within(cap, hard), hard))",
        mutated="resource.setrlimit(resource.RLIMIT_AS, (hard, hard))",
        tests=_BOUNDED_TESTS,
        why="a read allowed to take all the process's memory: the OOM killer, not a refusal",
    ),
    Mutant(
        name="sigxcpu_read_as_unreadable",
        file=_BOUNDED,
        original="        if code == -signal.SIGXCPU:\n            return timed_out(limits)\n",
        mutated="",
        tests=_BOUNDED_TESTS,
        why="a read stopped by its CPU limit told it is damaged, not read_timed_out",
    ),
    Mutant(
        name="childs_stderr_unbounded",
        file=_BOUNDED,
        original="text = errors.read(STDERR_BYTES).decode",
        mutated="text = errors.read().decode",
        tests=("tests/integration/test_reader_stderr.py",),
        why="8 MB of a CRS definition written to the log as one line",
    ),
    Mutant(
        name="child_keeps_the_parents_stderr",
        file=_BOUNDED,
        original="        os.dup2(errors.fileno(), 2)\n",
        mutated="",
        tests=("tests/integration/test_reader_stderr.py",),
        why="GDAL's stderr, holding text from the file, forges the API's access-log lines",
    ),
    Mutant(
        name="unzipped_file_held_to_the_zip_limit_only",
        file=_ZIP,
        original="    if declared > limits.max_file_bytes:\n",
        mutated="    if declared > limits.max_decompressed_bytes:\n",
        tests=(
            "tests/integration/test_upload_costs.py::"
            "test_a_kmz_expanding_past_the_file_limit_is_refused_on_every_way_in",
        ),
        why="a 194 kB KMZ of a 190 MiB KML extracted and read: hundreds of MB per upload",
    ),
    Mutant(
        name="zip_lying_sizes_believed",
        file=_ZIP,
        original="            if budget < 0:\n",
        mutated="            if False:\n",
        tests=(
            f"{_FILES}::test_a_zip_that_lies_about_its_sizes_is_refused",
            f"{_FILES}::test_extraction_counts_the_bytes_it_writes",
        ),
        why="a zip whose headers understate its size expands without bound",
    ),
    Mutant(
        name="zip_symlink_followed",
        file=_ZIP,
        original="symlink = (info.external_attr >> 16) & 0o170000 == _SYMLINK",
        mutated="symlink = False",
        tests=(f"{_FILES}::test_zip_symlinks_are_unsafe",),
        why="a zipped symlink extracted: a server file read as the boundary",
    ),
    Mutant(
        name="zip_path_climbing_allowed",
        file=_ZIP,
        original='climbs = ".." in re.split(r"[/\\\\]", name)',
        mutated="climbs = False",
        tests=(f"{_FILES}::test_zip_unsafe_paths_refuse_the_whole_zip",),
        why="a zip entry named ../../x accepted, though nothing may come from outside it",
    ),
    Mutant(
        name="gpkg_extended_type_walked",
        file=_WKB,
        original="if envelope is None or flags & 0b100000:",
        mutated="if envelope is None:",
        tests=("tests/integration/test_upload_costs.py",),
        why="an extended-type geometry's bytes walked as WKB: a wrong count, not a refusal",
    ),
    Mutant(
        name="wkb_ewkb_z_flag_ignored",
        file=_WKB,
        original=" + bool(raw & 0x80000000) + ",
        mutated=" + ",
        tests=("tests/unit/test_wkb_vertices.py",),
        why="an EWKB Z geometry walked with the wrong stride: its vertices miscounted",
    ),
    Mutant(
        name="wkb_vertices_not_counted",
        file=_WKB,
        original="count, at = count + points, at + points * width",
        mutated="count, at = count + 1, at + points * width",
        tests=(
            "tests/integration/test_boundary_costly_files.py::"
            "test_too_many_vertices_is_counted_from_the_file_before_building",
            "tests/unit/test_wkb_vertices.py",
        ),
        why="a GeoPackage polygon of millions of vertices built before any limit is checked",
    ),
    # The shapefile reader: deleted records, counts that disagree, the .shx's tiling.
    Mutant(
        name="deleted_records_counted_as_sites",
        file=_SHAPEFILE,
        original="return shapes - len(deleted_records(dbf, rows))",
        mutated="return shapes",
        tests=_ONCE,
        why="a file with a deleted record refused or paged wrongly: a site lost, another doubled",
    ),
    Mutant(
        name="deleted_flag_misread",
        file=_DBF,
        original="_DELETED = 0x2A",
        mutated="_DELETED = 0x20",
        tests=_ONCE,
        why="every record taken as deleted, or none: sites dropped or doubled",
    ),
    Mutant(
        name="deleted_position_within_its_block",
        file=_DBF,
        original="deleted.add(first + at)",
        mutated="deleted.add(at)",
        tests=(*_ONCE, "tests/unit/test_dbf_records.py"),
        why="a deleted record past the first 8,192 taken as one in the first: a wrong site dropped",
    ),
    Mutant(
        name="dbf_and_shx_counts_not_compared",
        file=_SHAPEFILE,
        original="    if rows != shapes:\n",
        mutated="    if rows > shapes:\n",
        tests=(_COUNTS,),
        why="a .dbf cut to 1 row while the .shx indexes 3 shapes quoted as 1 site",
    ),
    Mutant(
        name="shx_tiling_not_checked",
        file=_SHAPEFILE,
        original="    _check_tiling(spans, size)\n",
        mutated="",
        tests=_ONCE,
        why="a .shp of 3 polygons under a .shx of 1 quoted as 1; repeated offsets priced twice",
    ),
    Mutant(
        name="shx_overlap_allowed",
        file=_SHAPEFILE,
        original="        if start < end:\n",
        mutated="        if start < end and stop != end:\n",
        tests=_ONCE,
        why="an entry repeating the one before passes as a site: one polygon priced twice",
    ),
    Mutant(
        name="shp_tail_unindexed_allowed",
        file=_SHAPEFILE,
        original="    if end != size:\n",
        mutated="    if end > size:\n",
        tests=_ONCE,
        why="polygons after the .shx's last entry silently not quoted",
    ),
    # The PATCH schema, beyond the survivors above.
    Mutant(
        name="patch_top_level_takes_unknown_keys",
        file=_PATCH,
        original='"type": "object",\n  "additionalProperties": false,',
        mutated='"type": "object",\n  "additionalProperties": true,',
        tests=_PATCH_TESTS,
        why="a PATCH with a key Defra's Joi schema refuses passes nrf's checks, then fails live",
    ),
    Mutant(
        name="patch_band_of_5",
        file=_PATCH,
        original='"minimum": 1,\n      "maximum": 4',
        mutated='"minimum": 1,\n      "maximum": 5',
        tests=_PATCH_TESTS,
        why="a band Defra does not have accepted",
    ),
    Mutant(
        name="patch_edp_type_any_text",
        file=_PATCH,
        original='"edpType": {"const": "NUTRIENT"}',
        mutated='"edpType": {"type": "string"}',
        tests=_PATCH_TESTS,
        why="an EDP type other than NUTRIENT accepted",
    ),
    Mutant(
        name="patch_negative_money",
        file=_PATCH,
        original='"type": "number",\n      "minimum": 0,\n      "x-maxDecimalPlaces": 2',
        mutated='"type": "number",\n      "x-maxDecimalPlaces": 2',
        tests=_PATCH_TESTS,
        why="a negative levy accepted",
    ),
    Mutant(
        name="patch_levy_fields_optional",
        file=_PATCH,
        original='"required": ["amountExcludingVat", "amountInflationAdjusted", "baseAmount", '
        '"modelVersion"]',
        mutated='"required": ["amountExcludingVat"]',
        tests=_PATCH_TESTS,
        why="a PATCH missing the provisional amount or the model version accepted",
    ),
)
