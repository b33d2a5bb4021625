"""The OpenAPI document of the quote API: a description of its HTTP routes, split by path."""
