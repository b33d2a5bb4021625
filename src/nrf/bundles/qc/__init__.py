"""The bundle quality gate: rules over a staged or finished bundle GeoPackage, and its report."""
