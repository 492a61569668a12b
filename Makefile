# The two commands a newcomer needs (see README.md).
.PHONY: run test install

install:
	@test -x .venv/bin/python || python3 -m venv .venv
	@.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ./clients/python -e '.[dev]'

# The service on embedded defaults: in-memory store, local bot process pool.
run: install
	.venv/bin/gamehost serve --port 50051

# Installs what is missing, starts a Redis when none answers, runs ruff and pytest.
test:
	scripts/test.sh
