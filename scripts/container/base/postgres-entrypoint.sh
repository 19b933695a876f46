#!/bin/sh
# Entrypoint of the postgres:15 stand-in (base/postgres.Containerfile): on the first start, an
# empty $PGDATA is initialised with POSTGRES_USER (default postgres) and POSTGRES_PASSWORD
# (required), POSTGRES_DB (default: the user's name) is created, and connections from other
# containers are accepted with a password. Then the server runs in the foreground.
set -eu
if [ "${1#-}" != "$1" ]; then set -- postgres "$@"; fi
if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres: the database is not initialised and POSTGRES_PASSWORD is not set" >&2
    exit 1
  fi
  user=${POSTGRES_USER:-postgres}
  db=${POSTGRES_DB:-$user}
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.auto.conf"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$user\";" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "postgres: initialised $PGDATA (user $user, database $db)"
fi
exec "$@"
