"""Whom a rate limit counts a request from: an IPv4 address whole, an IPv6 one by its /64.

One IPv6 home or cloud allocation is at least a /64, and its host picks any of those 2**64
addresses itself (privacy addresses change at will), so counting IPv6 addresses one by one
would give one client a fresh bucket per request. An IPv4-mapped address (``::ffff:a.b.c.d``,
as a dual-stack socket reports an IPv4 peer) is that IPv4 address, so one client is one bucket
whichever way it connects. Text that is no address is counted as given: it cannot be widened.
"""

from __future__ import annotations

import ipaddress

PREFIX = 64  # bits of an IPv6 address that name one allocation (a home's or a cloud host's)


def client_prefix(address: str) -> str:
    """``203.0.113.9`` as itself, ``2001:db8:1:2::5`` as ``2001:db8:1:2::/64``."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    host_bits = 128 - PREFIX
    return str(ipaddress.IPv6Network((int(ip) >> host_bits << host_bits, PREFIX)))
