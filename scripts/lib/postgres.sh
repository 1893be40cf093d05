# A throw-away PostgreSQL server for scripts/test and scripts/bench. Source after common.sh.
#
#   pg_start_throwaway [--fast]
#       Installs PostgreSQL (Debian's `postgresql`) when it is missing, initialises a cluster in a
#       new temporary directory (superuser `feedline`, trust authentication, UTF-8), starts it on
#       127.0.0.1 on a free port with its Unix socket in that directory, waits until it accepts
#       connections and creates the database `feedline`. --fast turns off fsync,
#       synchronous_commit and full_page_writes (tests: nothing to keep; not for benchmarks).
#       Run as root, the server runs as the `postgres` user (initdb refuses root); otherwise as the
#       current user. The server is stopped and the directory removed when the script exits, also
#       on failure, Ctrl-C (INT) and TERM (see on_exit below).
#       Exports:
#         FEEDLINE_TEST_POSTGRES_URL  postgres://feedline@127.0.0.1:PORT/feedline
#         PG_PORT, PG_SOCKET_DIR      for libpq tools (psql -h "$PG_SOCKET_DIR" -p "$PG_PORT" -U feedline)
#         PG_BIN                      the server's bin directory (psql, createdb, pg_ctl, …)
#   pg_ensure_installed  only the installation and PG_BIN (pg_start_throwaway does it too): call it
#                        first where a failed installation should stop a script before long work
#   pg_url DBNAME        postgres://feedline@127.0.0.1:PORT/DBNAME
#   pg_conninfo DBNAME   the same as a libpq key/value string (TCP too, like the URL)
#   pg_psql DBNAME ARGS… psql -X -q -v ON_ERROR_STOP=1 on that database
#   pg_createdb DBNAME   a new, empty database
#   pg_stop_throwaway    stops the server and removes the directory now (idempotent; also run on exit)
#
#   on_exit COMMAND      runs COMMAND (a string, eval'ed) when the script exits, in reverse order of
#                        registration, after any EXIT trap that was set before the first on_exit.
#                        INT and TERM make the script exit (status 130 / 143), so they run too.
#                        Note: bash runs a trap only once the foreground command has returned.

_on_exit_cmds=()
_on_exit_prev=""
_on_exit_installed=0

_on_exit_run() {
    local status=$? i
    trap - EXIT
    for ((i = ${#_on_exit_cmds[@]} - 1; i >= 0; i--)); do
        eval "${_on_exit_cmds[$i]}" || true
    done
    _on_exit_cmds=()
    if [ -n "$_on_exit_prev" ]; then eval "$_on_exit_prev" || true; fi
    exit "$status"
}

_on_signal() { # SIGNAME STATUS
    trap - INT TERM
    echo "Interrupted (SIG$1): cleaning up" >&2
    exit "$2"     # runs the EXIT trap
}

on_exit() {
    local cmd="$1"
    if [ "$_on_exit_installed" = 0 ]; then
        # Keep an EXIT trap someone set before us: `trap -p EXIT` prints `trap -- 'CMD' EXIT`.
        local prev
        prev="$(trap -p EXIT)"
        if [ -n "$prev" ]; then
            eval "set -- $prev"
            _on_exit_prev="$3"
        fi
        trap _on_exit_run EXIT
        # An INT or TERM trap set before us stays; ours only where there was none.
        [ -n "$(trap -p INT)" ] || trap '_on_signal INT 130' INT
        [ -n "$(trap -p TERM)" ] || trap '_on_signal TERM 143' TERM
        _on_exit_installed=1
    fi
    _on_exit_cmds+=("$cmd")
}

# --- The server --------------------------------------------------------------------------------

PG_BIN="" PG_PORT="" PG_SOCKET_DIR="" _pg_dir="" _pg_as=()

_pg_find_bin() {
    local d
    d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    if [ -n "$d" ] && [ -x "$d/pg_ctl" ]; then PG_BIN="$d"; return 0; fi
    d="$(command -v pg_ctl 2>/dev/null || true)"
    if [ -n "$d" ] && [ -x "$(dirname "$d")/initdb" ]; then PG_BIN="$(dirname "$d")"; return 0; fi
    return 1
}

_pg_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null \
        || echo $((20000 + RANDOM % 20000))
}

# Runs a server command as the server's user, from the cluster directory (which that user can read).
_pg_run() { (cd "$_pg_dir" && "${_pg_as[@]}" "$@"); }

pg_ensure_installed() {
    if ! _pg_find_bin; then
        ensure_debs postgresql || return 1
        _pg_find_bin || { echo "error: PostgreSQL is installed but no initdb/pg_ctl found under /usr/lib/postgresql/*/bin" >&2; return 1; }
    fi
    command -v python3 >/dev/null 2>&1 || ensure_debs python3
}

pg_start_throwaway() {
    local fast=0
    [ "${1:-}" = --fast ] && fast=1
    if [ -n "$_pg_dir" ]; then echo "error: pg_start_throwaway: a server is already running ($_pg_dir)" >&2; return 1; fi
    pg_ensure_installed || return 1

    _pg_dir="$(mktemp -d "${TMPDIR:-/tmp}/feedline-pg.XXXXXX")" || return 1
    on_exit pg_stop_throwaway
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || { echo "error: running as root, but there is no 'postgres' user to run the server as" >&2; return 1; }
        chown postgres: "$_pg_dir" || return 1
        if command -v runuser >/dev/null 2>&1; then
            _pg_as=(runuser -u postgres --)
        else
            _pg_as=(_pg_su)
        fi
    else
        _pg_as=()
    fi
    PG_SOCKET_DIR="$_pg_dir"

    _pg_run "$PG_BIN/initdb" -D "$_pg_dir/data" -A trust -U feedline -E UTF8 --locale=C >"$_pg_dir/initdb.log" 2>&1 || {
        echo "error: initdb failed:" >&2; tail -20 "$_pg_dir/initdb.log" >&2; return 1
    }
    local opts="-c listen_addresses=127.0.0.1 -k $_pg_dir -c max_connections=250"
    [ "$fast" = 1 ] && opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    local attempt started=0
    for attempt in 1 2 3 4 5; do
        PG_PORT="$(_pg_free_port)"
        if _pg_run "$PG_BIN/pg_ctl" -D "$_pg_dir/data" -l "$_pg_dir/server.log" -w -t 60 -o "-p $PG_PORT $opts" start >/dev/null 2>&1; then
            started=1; break
        fi
        echo "note: the PostgreSQL server did not start on port $PG_PORT (attempt $attempt); retrying on another port" >&2
        _pg_run "$PG_BIN/pg_ctl" -D "$_pg_dir/data" -m immediate stop >/dev/null 2>&1 || true
    done
    if [ "$started" = 0 ]; then
        echo "error: the PostgreSQL server did not start; its log:" >&2; tail -20 "$_pg_dir/server.log" >&2; return 1
    fi
    local i
    for ((i = 0; i < 60; i++)); do
        "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U feedline -d postgres && break
        sleep 0.5
    done
    "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U feedline -d postgres \
        || { echo "error: the PostgreSQL server on port $PG_PORT does not accept connections" >&2; return 1; }
    pg_createdb feedline || return 1
    export PG_BIN PG_PORT PG_SOCKET_DIR
    export FEEDLINE_TEST_POSTGRES_URL
    FEEDLINE_TEST_POSTGRES_URL="$(pg_url feedline)"
    echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }') (throw-away) on 127.0.0.1:$PG_PORT, socket and data in $_pg_dir" >&2
}

_pg_su() { su postgres -s /bin/bash -c "$(printf '%q ' "$@")"; }

pg_url() { echo "postgres://feedline@127.0.0.1:$PG_PORT/$1"; }
pg_conninfo() { echo "host=127.0.0.1 port=$PG_PORT user=feedline dbname=$1"; }
pg_psql() { local db="$1"; shift; "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCKET_DIR" -p "$PG_PORT" -U feedline -d "$db" "$@"; }
pg_createdb() { "$PG_BIN/createdb" -h "$PG_SOCKET_DIR" -p "$PG_PORT" -U feedline "$1"; }

pg_stop_throwaway() {
    [ -n "$_pg_dir" ] || return 0
    local dir="$_pg_dir" pid=""
    if [ -f "$dir/data/postmaster.pid" ]; then
        pid="$(head -1 "$dir/data/postmaster.pid")"
        # A stopped server may linger as a zombie until init reaps it: alive means not state Z.
        if ! _pg_run "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w -t 20 stop >/dev/null 2>&1 \
            && [ -n "$pid" ] && [ -n "$(ps -o stat= -p "$pid" 2>/dev/null | grep -v '^Z')" ]; then
            echo "note: the PostgreSQL server (pid $pid) did not stop; killing it" >&2
            # pg_ctl starts the postmaster in a session of its own: its process group is the server.
            kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
            sleep 0.5
        fi
    fi
    rm -rf "$dir"
    _pg_dir="" PG_PORT="" PG_SOCKET_DIR=""
    unset FEEDLINE_TEST_POSTGRES_URL
}
