"""`nrf serve`: the quote API (Falcon under gunicorn), its report form and its OpenAPI document."""
