# The nrf worker for ECS: `nrf worker` is PID 1's exec-form command, so SIGTERM reaches the supervisor.
# Built from uv.lock in a build stage; the runtime stage gets only the finished virtualenv, so uv,
# pip's caches and the build backend never ship.
#
# The base is the official python:3.11-slim multi-platform index, pinned by digest so a rebuild
# gets the same bytes. To move to a newer patch release, look the digest up and replace it in both
# FROM lines:  docker buildx imagetools inspect python:3.11-slim
ARG PYTHON_IMAGE=python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv
# The same uv version as scripts/uv.
RUN pip install uv==0.13.9
WORKDIR /app
# Dependencies first (their layer is reused while only src/ changes), exactly as locked.
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --frozen --no-install-project --no-editable
# shapely, pyproj and pyogrio ship wheels with GEOS, PROJ and GDAL inside: no system packages needed.
COPY src ./src
RUN uv sync --frozen --no-editable

FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/app/.venv/bin:$PATH
WORKDIR /app
# The virtualenv's python links to /usr/local/bin/python3.11, the same in both stages (one base).
COPY --from=build /app/.venv /app/.venv

# A fixed non-root uid, so volume permissions and ECS task definitions can name it.
RUN useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin nrf \
    && mkdir -p /app/results \
    && chown nrf /app/results
# ECS runs the root filesystem read-only (deploy/cloudformation): /tmp, where the processes write,
# is mounted over. Declared here, so a Fargate bind mount there starts with /tmp's 1777.
VOLUME ["/tmp"]
USER 10001

ENV NRF_RESULTS_DIR=/app/results \
    AWS_HEALTH_PORT=8085
EXPOSE 8085

# /health only: /ready also turns 503 while draining, which is not a reason to replace the task.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; port = os.environ.get('AWS_HEALTH_PORT', '8085'); sys.exit(0 if urllib.request.urlopen(f'http://127.0.0.1:{port}/health', timeout=4).status == 200 else 1)"]

ENTRYPOINT ["nrf"]
CMD ["worker"]
