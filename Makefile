# The two commands a newcomer needs (see README.md).
.PHONY: run test install loadtest

install:
	@test -x .venv/bin/python || python3 -m venv .venv
	@.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ./clients/python -e '.[dev,loadtest]'

# The service on embedded defaults: in-memory store, local bot process pool.
run: install
	.venv/bin/gamehost serve --port 50051

# Installs what is missing, starts a Redis when none answers, runs ruff and pytest.
test:
	scripts/test.sh

# The load test (docs/loadtest/README.md): starts Redis or a prefix on the local one, two
# serving processes, a Celery worker and an echo server; steps users up; writes the
# report to docs/loadtest/. A few minutes on two cores. LOADTEST_ARGS: more flags.
loadtest: install
	.venv/bin/python -m loadtest $(LOADTEST_ARGS)
