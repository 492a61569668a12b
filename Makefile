# The two commands a newcomer needs (see README.md).
.PHONY: run test test-fast install loadtest

PYTHON ?= python3
# The installer: uv, from PyPI into the venv. It resolves and installs in seconds where
# pip spent a minute reading PyPI's index pages; the build (mypyc) is the same. As pip
# does, it compiles the packages' bytecode at install (--compile-bytecode), so no
# process compiles them again, even where PYTHONDONTWRITEBYTECODE keeps it from saving.
UV_VERSION := 0.13.10
# Installed once: uv runs again only when a pyproject.toml is newer than this stamp
# (or .venv is gone). `rm .venv/.installed` forces a reinstall.
STAMP := .venv/.installed

$(STAMP): pyproject.toml clients/python/pyproject.toml
	@test -x .venv/bin/python || $(PYTHON) -m venv .venv
	@test -x .venv/bin/uv || .venv/bin/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	.venv/bin/uv pip install --quiet --compile-bytecode --python .venv/bin/python -e ./clients/python -e '.[dev,loadtest]'
	@touch $@

install: $(STAMP)

# The service on embedded defaults: in-memory store, local bot process pool, finished
# games archived in SQLite under ~/.local/share/gamehost (docs/archive.md); gRPC on
# 50051, the web client and HTTP/JSON API (docs/http-api.md) on 8080.
run: $(STAMP)
	@echo "gamehost: web client and HTTP API at http://127.0.0.1:8080/ (gRPC on 127.0.0.1:50051)"
	.venv/bin/gamehost serve --port 50051 --http-port 8080

# Installs what is missing, starts a Redis when none answers, runs ruff and pytest.
test:
	scripts/test.sh

# The edit loop: the same, without the tests that start processes of their own or run
# long (pytest markers procs and slow; docs/operations.md, "Tests"). CI runs `make test`.
test-fast:
	scripts/test.sh -m "not procs and not slow" -n auto

# The load test (docs/loadtest/README.md): starts Redis or a prefix on the local one, two
# serving processes, a Celery worker and an echo server; steps users up; writes the
# report to docs/loadtest/. A few minutes on two cores. LOADTEST_ARGS: more flags.
loadtest: $(STAMP)
	.venv/bin/python -m loadtest $(LOADTEST_ARGS)
