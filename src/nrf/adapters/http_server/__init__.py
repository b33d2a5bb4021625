"""How the quote API and the worker's health server take connections: hypercorn under gunicorn."""
