# Shared by scripts/run, scripts/test and scripts/bench.
# Installs the Debian packages feedline needs when they are missing (root: apt-get; otherwise
# it says what to install), locates the Swift toolchain, and (for scripts/test) installs the
# Python package the metrics tests parse `feedline metrics` with.

FEEDLINE_DEBS=(libcurl4-openssl-dev libxml2-dev libsqlite3-dev sqlite3 pkg-config)

ensure_debs() {
    local missing=()
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Installing missing packages: ${missing[*]}" >&2
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    elif command -v sudo >/dev/null 2>&1; then
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "error: please install: ${missing[*]} (apt-get install -y ${missing[*]})" >&2
        return 1
    fi
}

ensure_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
            [ -x "$dir/swift" ] && export PATH="$dir:$PATH" && break
        done
    fi
    command -v swift >/dev/null 2>&1 || { echo "error: the Swift toolchain (6.1 or later) is not on PATH." >&2; return 1; }
}

# The Python package prometheus-client, whose text parser (prometheus_client.parser) the metrics
# tests read feedline's metrics with: pip, then pip --break-system-packages (a Debian python3 that
# refuses pip installs outside a virtual environment), then Debian's python3-prometheus-client.
ensure_prometheus_client() {
    command -v python3 >/dev/null 2>&1 || ensure_debs python3 || return 1
    python3 -c 'import prometheus_client.parser' >/dev/null 2>&1 && return 0
    echo "Installing the Python package prometheus-client (the metrics tests parse with it)" >&2
    python3 -m pip install -q prometheus-client >/dev/null 2>&1 \
        || python3 -m pip install -q --break-system-packages prometheus-client >/dev/null 2>&1 \
        || ensure_debs python3-prometheus-client \
        || true
    python3 -c 'import prometheus_client.parser' >/dev/null 2>&1 && return 0
    echo "error: the Python package prometheus-client could not be installed for $(command -v python3) (python3 -m pip install prometheus-client, or apt-get install python3-prometheus-client)" >&2
    return 1
}
