"""Nature Restoration Fund nutrient impact assessment."""

__version__ = "0.1.0"
