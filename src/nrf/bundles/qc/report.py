"""The quality-gate report: every finding kept (counted beyond a cap), written as JSON and Markdown.

Every failure is reported, but a broken 5 M-row layer must not make a 5 GB report, so each
(code, layer) keeps its first ``DETAIL_CAP`` findings in full and counts the rest. Text from
the delivery is escaped in the Markdown (``shown``).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from attrs import asdict, frozen

from nrf.bundles.qc.codes import CLEANED, ERROR, RULES, WARNING, severity

DETAIL_CAP = 10_000
PASSED, FAILED = "passed", "failed"


@frozen(kw_only=True)
class Finding:
    """One failure, warning or cleaning: rule code, layer/table, offending key or fid, detail."""

    code: str
    severity: str
    layer: str
    key: str
    detail: str


def shown(text: str) -> str:
    """Text from a delivery (names, keys, paths) as Markdown shows it and no more: HTML's
    ``&``, ``<`` and ``>`` as entities, so a name ``<script>`` is read, never run, by whatever
    renders qc.md; line breaks as spaces, so a name cannot start a heading or a list item."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(escaped.splitlines())


def report_paths(bundle: Path) -> tuple[Path, Path]:
    return bundle.with_suffix(".qc.json"), bundle.with_suffix(".qc.md")


class QcReport:
    """Collects findings and figures while the rules run."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.counts: Counter[tuple[str, str]] = Counter()
        self.figures: dict[str, Any] = {}

    def add(self, code: str, layer: str, key: object, detail: str) -> None:
        self.counts[(code, layer)] += 1
        if self.counts[(code, layer)] <= DETAIL_CAP:
            self.findings.append(
                Finding(
                    code=code, severity=severity(code), layer=layer, key=str(key), detail=detail
                )
            )

    def merge(self, other: QcReport) -> None:
        """Add another report's findings (a tile's, from a worker), keeping the caps."""
        for finding in other.findings:
            self.add(finding.code, finding.layer, finding.key, finding.detail)
        for (code, layer), n in other.counts.items():
            beyond = n - sum(1 for f in other.findings if (f.code, f.layer) == (code, layer))
            self.counts[(code, layer)] += beyond

    def count(self, level: str) -> int:
        return sum(n for (code, _), n in self.counts.items() if severity(code) == level)

    @property
    def passed(self) -> bool:
        return self.count(ERROR) == 0

    @property
    def outcome(self) -> str:
        return PASSED if self.passed else FAILED

    def codes(self, level: str = ERROR) -> set[str]:
        return {code for (code, _) in self.counts if severity(code) == level}

    def keys(self, code: str) -> list[str]:
        return [f.key for f in self.findings if f.code == code]

    def summary(self) -> str:
        return (
            f"{self.outcome}: {self.count(ERROR)} errors, {self.count(WARNING)} warnings, "
            f"{self.count(CLEANED)} cleanings"
        )

    def unread_line(self) -> str:
        """The sources a build could not read, named once where a reader starts."""
        unread = ", ".join(self.figures.get("unread", []))
        return f"not read: {unread} (the gate's rules that need them were not run)"

    def document(self, subject: str) -> dict[str, Any]:
        return {
            "subject": subject,
            "outcome": self.outcome,
            "errors": self.count(ERROR),
            "warnings": self.count(WARNING),
            "cleanings": self.count(CLEANED),
            "counts": [
                {"code": c, "layer": layer, "severity": severity(c), "count": n}
                for (c, layer), n in sorted(self.counts.items())
            ],
            "figures": self.figures,
            "findings": [asdict(f) for f in self.findings],
        }

    def markdown(self, subject: str) -> str:
        """Errors first (what stops the bundle), then warnings, the counts, the cleanings, and
        the figures last: a data manager reads what to fix before what was merely tidied."""
        lines = [f"# Quality gate: {shown(subject)}", "", f"**{self.summary()}**"]
        if self.figures.get("unread"):
            lines += ["", f"**{shown(self.unread_line())}**"]
        for level in (ERROR, WARNING):
            lines += self._section(level)
        if self.counts:
            lines += ["", "## counts", ""]
            lines += ["| code | severity | layer | count | meaning |", "|---|---|---|---|---|"]
            rank = {ERROR: 0, WARNING: 1, CLEANED: 2}
            for (code, layer), n in sorted(
                self.counts.items(), key=lambda item: (rank[severity(item[0][0])], item[0])
            ):
                lines.append(
                    f"| `{code}` | {severity(code)} | {shown(layer).replace('|', '&#124;')} | "
                    f"{n:,} | {RULES[code][1]} |"
                )
        lines += self._section(CLEANED)
        if self.figures:
            lines += ["", "## figures", ""]
            lines += [f"- {key}: {shown(json.dumps(value))}" for key, value in self.figures.items()]
        return "\n".join(lines) + "\n"

    def _section(self, level: str) -> list[str]:
        chosen = [f for f in self.findings if f.severity == level]
        if not chosen:
            return []
        return [
            "",
            f"## {level} ({self.count(level):,})",
            "",
            *[f"- `{f.code}` {shown(f.layer)} [{shown(f.key)}]: {shown(f.detail)}" for f in chosen],
        ]

    def write(self, bundle: Path) -> tuple[Path, Path]:
        """``BUNDLE.qc.json`` and ``BUNDLE.qc.md`` beside the bundle."""
        json_path, md_path = report_paths(bundle)
        json_path.write_text(json.dumps(self.document(bundle.name), indent=2) + "\n")
        md_path.write_text(self.markdown(bundle.name))
        return json_path, md_path
