# shellcheck shell=bash
# Start a real Redis and a real PostgreSQL on 127.0.0.1 for the shared store suite, and export
#   CTXSIEVE_REDIS_URL=redis://127.0.0.1:<port>/0
#   CTXSIEVE_POSTGRES_URL=postgresql://ctxsieve:ctxsieve@127.0.0.1:<port>/ctxsieve
#
# Usage (CI, as root on Debian):   . .ci/services.sh        (source it: it exports variables)
# Stop them again:                  ctxsieve_services_stop
#
# Installs the Debian packages when missing (apt-get update first), runs both servers as
# background daemons under one state directory on free ports, waits until each accepts
# connections and creates the database. Idempotent: sourcing it again reuses servers that are
# still answering. It never calls `exit` (that would end the caller's shell), runs with its own
# shell options and restores the caller's (`set -euo pipefail` callers are fine); on failure it
# prints why and returns non-zero, which stops a `set -e` caller.

_ctxsieve_log() { printf 'services.sh: %s\n' "$*" >&2; }

_ctxsieve_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

_ctxsieve_pg_bin() {
    local d
    d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$d" ] && [ -x "$d/initdb" ] && printf '%s\n' "$d"
}

_ctxsieve_as_postgres() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

_ctxsieve_install() {
    if command -v redis-server >/dev/null && command -v redis-cli >/dev/null && [ -n "$(_ctxsieve_pg_bin)" ]; then
        return 0
    fi
    if [ "$(id -u)" != 0 ]; then
        _ctxsieve_log "redis-server or postgresql missing and not root: install them (apt-get install redis-server postgresql)"
        return 1
    fi
    _ctxsieve_log "installing redis-server and postgresql (Debian packages)"
    apt-get update -qq >&2 || return 1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server postgresql >&2 || return 1
}

_ctxsieve_redis_up() {
    [ -n "${1:-}" ] && redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null | grep -q PONG
}

_ctxsieve_pg_up() {
    [ -n "${1:-}" ] && "$(_ctxsieve_pg_bin)/pg_isready" -q -h 127.0.0.1 -p "$1" 2>/dev/null
}

_ctxsieve_start_redis() {
    local dir=$1 port
    port=$(_ctxsieve_free_port) || return 1
    mkdir -p "$dir/redis"
    redis-server --bind 127.0.0.1 --port "$port" --daemonize yes --dir "$dir/redis" \
        --pidfile "$dir/redis/redis.pid" --logfile "$dir/redis/redis.log" \
        --save '' --appendonly no >&2 || return 1
    local i
    for i in $(seq 1 100); do
        _ctxsieve_redis_up "$port" && { printf '%s\n' "$port" >"$dir/redis/port"; return 0; }
        sleep 0.1
    done
    _ctxsieve_log "Redis did not answer on 127.0.0.1:$port; log: $dir/redis/redis.log"
    tail -n 20 "$dir/redis/redis.log" >&2
    return 1
}

_ctxsieve_start_postgres() {
    local dir=$1 bin port
    bin=$(_ctxsieve_pg_bin) || { _ctxsieve_log "no PostgreSQL server binaries under /usr/lib/postgresql"; return 1; }
    port=$(_ctxsieve_free_port) || return 1
    rm -rf "$dir/pg"
    mkdir -p "$dir/pg/sock"
    printf 'ctxsieve\n' >"$dir/pg/pwfile"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$dir/pg"
    # password auth over TCP (so the suite exercises credentials), trust on the private socket
    _ctxsieve_as_postgres "$bin/initdb" -D "$dir/pg/data" -U postgres --auth-local=trust \
        --auth-host=scram-sha-256 --no-sync -E UTF8 >"$dir/pg/initdb.log" 2>&1 \
        || { cat "$dir/pg/initdb.log" >&2; return 1; }
    _ctxsieve_as_postgres "$bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/postgres.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir/pg/sock -c fsync=off" start >&2 \
        || { tail -n 20 "$dir/pg/postgres.log" >&2; return 1; }
    _ctxsieve_as_postgres "$bin/psql" -q -h "$dir/pg/sock" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
        -c "CREATE ROLE ctxsieve LOGIN PASSWORD 'ctxsieve'" -c "CREATE DATABASE ctxsieve OWNER ctxsieve" >&2 \
        || return 1
    printf '%s\n' "$port" >"$dir/pg/port"
}

ctxsieve_services_stop() {
    local dir=${CTXSIEVE_SERVICES_DIR:-${TMPDIR:-/tmp}/ctxsieve-services} bin
    if [ -f "$dir/redis/port" ]; then
        redis-cli -h 127.0.0.1 -p "$(cat "$dir/redis/port")" shutdown nosave >/dev/null 2>&1 || true
    fi
    bin=$(_ctxsieve_pg_bin)
    if [ -n "$bin" ] && [ -d "$dir/pg/data" ]; then
        _ctxsieve_as_postgres "$bin/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -f "$dir/redis/port" "$dir/pg/port"
}

_ctxsieve_services() {
    local dir=${CTXSIEVE_SERVICES_DIR:-${TMPDIR:-/tmp}/ctxsieve-services}
    _ctxsieve_install || return 1
    mkdir -p "$dir" && chmod 755 "$dir" || return 1
    local rport="" pport=""
    [ -f "$dir/redis/port" ] && rport=$(cat "$dir/redis/port")
    [ -f "$dir/pg/port" ] && pport=$(cat "$dir/pg/port")
    if ! _ctxsieve_redis_up "$rport"; then
        _ctxsieve_start_redis "$dir" || return 1
        rport=$(cat "$dir/redis/port")
    fi
    if ! _ctxsieve_pg_up "$pport"; then
        # a stale server from an earlier run may still hold the data directory
        if [ -d "$dir/pg/data" ]; then
            _ctxsieve_as_postgres "$(_ctxsieve_pg_bin)/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null 2>&1 || true
        fi
        _ctxsieve_start_postgres "$dir" || return 1
        pport=$(cat "$dir/pg/port")
    fi
    export CTXSIEVE_REDIS_URL="redis://127.0.0.1:$rport/0"
    export CTXSIEVE_POSTGRES_URL="postgresql://ctxsieve:ctxsieve@127.0.0.1:$pport/ctxsieve"
    _ctxsieve_log "Redis on 127.0.0.1:$rport, PostgreSQL on 127.0.0.1:$pport (state in $dir)"
}

# run with known options and give the caller its own back (not via $(set +o): a command
# substitution does not see errexit, so it would "restore" it off)
_ctxsieve_flags=$-
_ctxsieve_pipefail=0
shopt -qo pipefail && _ctxsieve_pipefail=1
set +e +u +o pipefail
_ctxsieve_services
_ctxsieve_rc=$?
case $_ctxsieve_flags in *e*) set -e ;; esac
case $_ctxsieve_flags in *u*) set -u ;; esac
[ "$_ctxsieve_pipefail" = 1 ] && set -o pipefail
unset _ctxsieve_flags _ctxsieve_pipefail
return "$_ctxsieve_rc" 2>/dev/null || exit "$_ctxsieve_rc"
