"""Records of more than three fields are built with keywords, so a reordered field can't slip."""

import importlib
import inspect
import pkgutil

import attrs

import nrf

MOST_POSITIONAL_FIELDS = 3


def _records() -> list[type]:
    found: list[type] = []
    for module_info in pkgutil.walk_packages(nrf.__path__, "nrf."):
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == module.__name__ and attrs.has(value):
                found.append(value)
    return found


def _positional(record: type) -> list[str]:
    fields = [f for f in attrs.fields(record) if f.init]
    if len(fields) <= MOST_POSITIONAL_FIELDS:
        return []
    return [f.name for f in fields if not f.kw_only]


def test_every_record_over_three_fields_is_keyword_only() -> None:
    records = _records()
    # The walk must see the records it polices, or the check below passes on nothing.
    names = {r.__qualname__ for r in records}
    assert {"Development", "Piece", "RawFeature", "SiteAssessment", "WorkerSettings"} <= names
    offenders = {f"{r.__module__}.{r.__qualname__}": _positional(r) for r in records}
    assert {name: fields for name, fields in offenders.items() if fields} == {}


def test_the_check_flags_a_positional_record() -> None:
    @attrs.frozen
    class Loose:
        a: int
        b: int
        c: int
        d: int

    @attrs.frozen
    class Small:
        a: int
        b: int
        c: int

    assert _positional(Loose) == ["a", "b", "c", "d"]
    assert _positional(Small) == []
