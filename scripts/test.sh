#!/usr/bin/env bash
# Install what is missing, start what the tests need, run lint and the whole test suite.
# Usage: scripts/test.sh [pytest args]     (the same thing as `make test` and .ci/run)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# The Makefile's install: uv runs only when .venv is missing or a pyproject.toml changed.
make --no-print-directory install

# The suite starts hundreds of Python processes (servers, workers, the CLI): the first to
# import one of this checkout's modules keeps its bytecode for the rest (in __pycache__,
# which git ignores), as Python does by default, even where the environment turns that
# off. With PYTHONDONTWRITEBYTECODE set, each process compiled every module again.
unset PYTHONDONTWRITEBYTECODE

# Programs the tests start themselves, installed from Debian's packages when missing:
# redis-server (fault tests run a Redis of their own), openssl (the TLS test makes a
# certificate), promtool and prometheus (tests/deploy; Debian's prometheus ships both),
# chromium (tests/web drive it with Playwright; Playwright's own download needs internet),
# docker-compose (tests/deploy validate docker-compose.yml with `docker-compose config`,
# which needs no Docker daemon), h2load (nghttp2-client: tests/ladder/test_bounds.py
# floods the server with BotReply calls from it).
apt_missing=()
command -v redis-server >/dev/null || apt_missing+=(redis-server)
command -v openssl >/dev/null || apt_missing+=(openssl)
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
  apt_missing+=(prometheus)
fi
command -v docker-compose >/dev/null || apt_missing+=(docker-compose)
command -v h2load >/dev/null || apt_missing+=(nghttp2-client)
if [[ -z "${GAMEHOST_CHROMIUM:-}" ]] && ! command -v chromium >/dev/null; then
  apt_missing+=(chromium)
fi
if (( ${#apt_missing[@]} )); then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${apt_missing[@]}" >/dev/null
fi

# Services the script starts are stopped on exit.
cleanups=()
trap 'for c in "${cleanups[@]}"; do eval "$c"; done' EXIT

# A Redis for the tests: the machine's on 127.0.0.1:6379 if it answers, else one of our own.
redis_answers() {
  .venv/bin/python - "$1" <<'PY'
import sys, redis
try:
    redis.Redis.from_url(sys.argv[1], socket_connect_timeout=1).ping()
except Exception:
    sys.exit(1)
PY
}
if [[ -z "${GAMEHOST_TEST_REDIS_URL:-}" ]]; then
  if redis_answers redis://127.0.0.1:6379/0; then
    export GAMEHOST_TEST_REDIS_URL=redis://127.0.0.1:6379/0
  else
    port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    mkdir -p .ci-redis
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
      --dir "$root/.ci-redis" --daemonize yes --pidfile "$root/.ci-redis/redis.pid" \
      --logfile "$root/.ci-redis/redis.log"
    cleanups+=('kill "$(cat "$root/.ci-redis/redis.pid")" 2>/dev/null || true')
    export GAMEHOST_TEST_REDIS_URL="redis://127.0.0.1:$port/0"
    for _ in $(seq 50); do redis_answers "$GAMEHOST_TEST_REDIS_URL" && break; sleep 0.1; done
    redis_answers "$GAMEHOST_TEST_REDIS_URL" || { echo "our Redis did not start" >&2; exit 1; }
  fi
fi
echo "tests use Redis at $GAMEHOST_TEST_REDIS_URL"

# A PostgreSQL for the archive's tests (each makes and drops a database of its own): the
# machine's on 127.0.0.1:5432 if it answers, else one of our own (initdb + pg_ctl from
# Debian's postgresql package, installed when missing; run as the postgres user).
postgres_answers() {
  .venv/bin/python - "$1" <<'PY'
import sys, psycopg
try:
    psycopg.connect(sys.argv[1], connect_timeout=2).close()
except Exception:
    sys.exit(1)
PY
}
if [[ -z "${GAMEHOST_TEST_POSTGRES_URL:-}" ]]; then
  if postgres_answers postgresql://postgres@127.0.0.1:5432/postgres; then
    export GAMEHOST_TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres
  else
    pg_bin=$(dirname "$(command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | sort -V | tail -1 || true)")
    if [[ ! -x "$pg_bin/pg_ctl" ]]; then
      sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        postgresql >/dev/null
      pg_bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)")
    fi
    as_pg=(); [[ $(id -u) -eq 0 ]] && as_pg=(runuser -u postgres --)
    pg_dir=$(mktemp -d /tmp/gamehost-ci-postgres.XXXXXX)
    [[ $(id -u) -eq 0 ]] && chown postgres "$pg_dir"
    pg_port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "${as_pg[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -A trust -U postgres >/dev/null
    "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/postgres.log" -w \
      -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1" start >/dev/null
    cleanups+=("${as_pg[*]} $pg_bin/pg_ctl -D $pg_dir/data -m immediate stop >/dev/null 2>&1; rm -rf $pg_dir")
    export GAMEHOST_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$pg_port/postgres"
    postgres_answers "$GAMEHOST_TEST_POSTGRES_URL" || { echo "our PostgreSQL did not start" >&2; exit 1; }
  fi
fi
echo "tests use PostgreSQL at $GAMEHOST_TEST_POSTGRES_URL"

.venv/bin/ruff check .
.venv/bin/ruff format --check .  # the brief: run ruff before committing; CI holds it
if (( $# )); then
  .venv/bin/mypy  # --strict on games/ and bots/ ([tool.mypy] in pyproject.toml)
  exec .venv/bin/pytest "$@"
fi
# Beside the suite, on the CPU its waiting leaves idle: mypy (--strict on games/ and
# bots/, [tool.mypy] in pyproject.toml), and tests/games and tests/bots again on the
# pure-Python build (games/build.py), since the suite runs the compiled engines where
# the install compiled them. Left out of that pass: the soaks marked slow, which the
# suite ran (what differs is the build, and the soaks meet no refusal or edge case the
# rest do not), and the two files that run both builds whichever this process loaded
# (tests/games/test_builds.py, tests/bots/test_other_build.py).
# Their output is shown once the suite is done.
side=$(mktemp -d)
cleanups+=("rm -rf $side")
( .venv/bin/mypy >"$side/mypy.log" 2>&1; echo $? >"$side/mypy.rc" ) &
( GAMEHOST_PURE_PYTHON=1 .venv/bin/pytest -q -p no:cacheprovider -m 'not slow' tests/games tests/bots \
    --ignore tests/games/test_builds.py --ignore tests/bots/test_other_build.py \
    >"$side/pure.log" 2>&1; echo $? >"$side/pure.rc" ) &
# The whole suite, spread over pytest-xdist workers, two a core: most tests wait on
# processes and sockets, not the CPU. Each test keeps to its own Redis prefix, database,
# ports and folders (docs/operations.md, "Tests"). Whole files go to a worker, so a
# module's servers and databases are made once, not once a worker; files go out in the
# collection's order, which starts with the slow tests' files (tests/conftest.py).
suite=0
.venv/bin/pytest -n "$(( 2 * $(nproc) ))" --dist loadfile --no-loadscope-reorder || suite=$?
wait
echo "mypy:"; cat "$side/mypy.log"
echo "tests/games and tests/bots but the soaks again with GAMEHOST_PURE_PYTHON=1 (the pure build):"
tail -n 25 "$side/pure.log"
exit $(( suite || $(cat "$side/mypy.rc") || $(cat "$side/pure.rc") ))
