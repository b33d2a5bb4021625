"""Pure domain core: values, formulas and ports; no I/O and no infrastructure imports."""
