"""Renderers: the result documents (legacy CSV, JSON, GeoJSON)."""
