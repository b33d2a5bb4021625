"""BoundaryDataRepository: the reference-data bundle read from a GeoPackage."""
