"""Performance benchmark of the assessment against naive, in-memory and PostGIS methods."""
