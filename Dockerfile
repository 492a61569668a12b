# One image for every role: the rules service (gamehost serve) and the Celery
# workers (gamehost worker). Runs as an unprivileged user.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml setup.py README.md ./
COPY games games
COPY bots bots
COPY services services
COPY workers workers
COPY gamehost gamehost
COPY clients clients
COPY web web
# The client distribution (gamehost: CLI, gamehost.v1) and the server (gamehost-server),
# its engines and bots compiled by mypyc (setup.py): a C compiler for the build only.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
 && pip install --no-cache-dir ./clients/python . \
 && apt-get purge -y gcc libc6-dev && apt-get autoremove -y && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin gamehost \
 && mkdir -p /tmp/metrics && chown gamehost /tmp/metrics
USER 10001
# Multiprocess metrics (serve --processes, prefork workers) write here; emptied at start.
ENV PROMETHEUS_MULTIPROC_DIR=/tmp/metrics PYTHONUNBUFFERED=1
EXPOSE 50051 8080 9100
# The gRPC health check; exit 0 only when SERVING. (Workers override or disable it.)
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["gamehost", "health", "--target", "127.0.0.1:50051", "--timeout", "3"]
# gRPC on 50051; the HTTP/JSON gateway and the web client on 8080 (docs/http-api.md).
CMD ["gamehost", "serve", "--host", "0.0.0.0", "--port", "50051", "--metrics-port", "9100", \
     "--http-port", "8080", "--http-web-dir", "/app/web"]
