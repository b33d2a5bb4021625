"""BackendResults: Defra's backend over HTTP."""
