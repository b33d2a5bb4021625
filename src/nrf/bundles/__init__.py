"""Bundle tooling: writing, generating and building reference-data bundles (not an adapter)."""
