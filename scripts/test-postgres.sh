#!/usr/bin/env bash
# Makes PostgreSQL ready for the test suites on a Debian machine (run as root): starts the
# newest cluster Debian's postgresql made, and makes the role the tests use by default
# (jumpseat_test, may CREATE DATABASE, password jumpseat_test, reached on 127.0.0.1:5432).
# Each test file makes and drops a database of its own. .ci/run calls this.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "test-postgres: needs root (pg_ctlcluster, runuser)" >&2; exit 1; }
command -v pg_ctlcluster >/dev/null || { echo "test-postgres: install postgresql first (apt-get install -y postgresql)" >&2; exit 1; }
version="$(ls /etc/postgresql | sort -V | tail -1)"
[ -n "$version" ] || { echo "test-postgres: no cluster under /etc/postgresql" >&2; exit 1; }
if ! pg_ctlcluster "$version" main status >/dev/null 2>&1; then
  pg_ctlcluster "$version" main start
fi
runuser -u postgres -- psql -v ON_ERROR_STOP=1 -q <<'SQL'
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'jumpseat_test') THEN
    CREATE ROLE jumpseat_test LOGIN CREATEDB PASSWORD 'jumpseat_test';
  END IF;
END $$;
SQL
echo "test-postgres: PostgreSQL $version is running; tests use postgres://jumpseat_test:***@127.0.0.1:5432/postgres"
