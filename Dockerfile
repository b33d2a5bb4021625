# The nrf worker for ECS: `nrf worker` is PID 1's exec-form command, so SIGTERM reaches the supervisor.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# shapely, pyproj and pyogrio ship wheels with GEOS, PROJ and GDAL inside: no system packages needed.
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install . \
    && rm -rf /app/src

# A fixed non-root uid, so volume permissions and ECS task definitions can name it.
RUN useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin nrf \
    && mkdir -p /app/results \
    && chown nrf /app/results
USER 10001

ENV NRF_RESULTS_DIR=/app/results \
    AWS_HEALTH_PORT=8085
EXPOSE 8085

# /health only: /ready also turns 503 while draining, which is not a reason to replace the task.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; port = os.environ.get('AWS_HEALTH_PORT', '8085'); sys.exit(0 if urllib.request.urlopen(f'http://127.0.0.1:{port}/health', timeout=4).status == 200 else 1)"]

ENTRYPOINT ["nrf"]
CMD ["worker"]
