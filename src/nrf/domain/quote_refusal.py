"""Whether a Defra quote is answered with a levy, or else the one reason why not (a code).

No PATCH goes for a site without a levy: the job fails at once, because retrying cannot help
until the bundle changes. Besides the assessment's own refusals (an excluded area first: its
route is a Habitats Regulations Assessment whatever else is true), the EDPs the message names
are checked against the bundle: a name its EDP layer does not hold, or holds under two ids,
is ``edp_unknown``; names other than those of the EDPs the boundary meets, ``edp_mismatch``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from nrf.domain.results import AssessmentRun, LevyRefusal, SiteAssessment

EXCLUDED_AREA = "excluded_area"


def _key(name: str) -> str:
    """Names compare without regard to case or runs of spaces."""
    return " ".join(name.split()).casefold()


def matched_label(labels: tuple[str, ...], edp_name: str) -> str:
    """The message's own spelling of the EDP it was priced in (the backend claims its row by
    that exact text); the bundle's name when the message named none that matches."""
    return next((label for label in labels if _key(label) == _key(edp_name)), edp_name)


def _listed(names: Iterable[str]) -> str:
    ordered = sorted(set(names))
    shown = [f"'{n}'" if n.strip() else "an EDP without a name" for n in ordered]
    return ", ".join(shown) if shown else "no EDP"


def label_refusal(
    labels: tuple[str, ...], site: SiteAssessment, edp_names: Mapping[int, str]
) -> LevyRefusal | None:
    """``edp_unknown`` or ``edp_mismatch`` for the message's EDP names, else None."""
    if not labels:
        return None  # the message named none: the bundle's geometry alone decides
    ids_by_name: dict[str, set[int]] = {}
    for edp_id, name in edp_names.items():
        ids_by_name.setdefault(_key(name), set()).add(edp_id)
    unknown = [label for label in labels if len(ids_by_name.get(_key(label), ())) != 1]
    if unknown:
        twice = [label for label in unknown if ids_by_name.get(_key(label))]
        detail = (
            f"it holds {_listed(twice)} under more than one id"
            if len(twice) == len(unknown)
            else "it has no EDP of that name"
        )
        return LevyRefusal(
            "edp_unknown",
            f"The quote names {_listed(unknown)} as its EDP, but this bundle's EDP layer cannot "
            f"identify it ({detail}), so no levy can be priced until the data is corrected.",
        )
    named = {next(iter(ids_by_name[_key(label)])) for label in labels}
    found = {e.edp_id for e in site.edps}
    if named != found:
        return LevyRefusal(
            "edp_mismatch",
            f"The quote names {_listed(labels)} as its EDP, but in this bundle the boundary "
            f"meets {_listed(e.edp_name for e in site.edps)}, so no levy is priced until "
            "they agree.",
        )
    return None


def quote_refusal(
    run: AssessmentRun, labels: tuple[str, ...], edp_names: Mapping[int, str]
) -> LevyRefusal | None:
    """Why a one-development quote gets no levy (and no PATCH), or None when it is priced."""
    if not run.sites:
        if run.out_of_scope:
            out = run.out_of_scope[0]
            return LevyRefusal(out.reason_code, out.reason)
        return LevyRefusal("no_site", "The quote had no site to assess.")
    site = run.sites[0]
    refused = site.levy_refusal
    if refused is not None and refused.code == EXCLUDED_AREA:
        return refused
    by_label = label_refusal(labels, site, edp_names)
    if by_label is not None:
        return by_label
    if refused is not None:
        return refused
    if site.pricing is None:
        return LevyRefusal("no_levy", "No levy was priced for this site.")
    return None
