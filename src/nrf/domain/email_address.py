"""The one email-address rule, used where a job is read and where an email is sent.

Deliberately strict: one @, dot-separated atoms, a dotted domain of letters, digits and
inner hyphens ending in a letters-only top-level label. A rare valid address may be
refused; a typo is never sent, and a job never carries an address no notifier would take.
"""

from __future__ import annotations

import re

MAX_EMAIL_LENGTH = 254
_EMAIL = re.compile(
    r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}"
)


def is_valid_email(address: str) -> bool:
    return len(address) <= MAX_EMAIL_LENGTH and _EMAIL.fullmatch(address) is not None
