"""Test support: in-memory reference data, local servers and helpers."""
