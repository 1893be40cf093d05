# Shared by scripts/run, scripts/test and scripts/bench.
# Installs the Debian packages feedline needs when they are missing (root: apt-get; otherwise
# it says what to install), and locates the Swift toolchain.

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
