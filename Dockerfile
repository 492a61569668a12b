# One image for every role: the rules service and (later) Celery workers.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY games games
COPY bots bots
COPY services services
COPY workers workers
COPY gamehost gamehost
RUN pip install --no-cache-dir .
EXPOSE 50051 9100
CMD ["gamehost", "serve", "--host", "0.0.0.0", "--port", "50051", "--redis", "redis://redis:6379/0", "--metrics-port", "9100"]
