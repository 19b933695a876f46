# Shared by scripts/container/setup.sh and test.sh (sourced, not run).
# The engine settings these machines need (see docs/containers.md): setup.sh writes them to
# /etc/containers/containers.conf when that file is absent or its own; when another file is there
# already, it writes its own copy under $TIDINGS_CONTAINER_STATE and every podman call of these
# scripts reads that one through CONTAINERS_CONF.
TIDINGS_CONTAINER_STATE=${TIDINGS_CONTAINER_STATE:-/var/lib/tidings-container}
TIDINGS_CONF_MARK='# written by tidings scripts/container/setup.sh'
if [ -z "${CONTAINERS_CONF:-}" ] && [ -f "$TIDINGS_CONTAINER_STATE/containers.conf" ] \
  && ! grep -qF "$TIDINGS_CONF_MARK" /etc/containers/containers.conf 2>/dev/null; then
  export CONTAINERS_CONF="$TIDINGS_CONTAINER_STATE/containers.conf"
fi

_t0=$(date +%s%3N)
_ms() { local d=$(( $(date +%s%3N) - $1 )); printf '%d.%01d' $((d / 1000)) $((d % 1000 / 100)); }
# step TEXT: the time since the script started, then TEXT (each step's length is the difference)
step() { printf '[%7ss] %s\n' "$(_ms "$_t0")" "$*"; }
# timed NAME COMMAND…: runs COMMAND and prints how long it took
timed() {
  local name=$1 start; shift; start=$(date +%s%3N)
  "$@"
  printf '[%7ss] %s: %ss\n' "$(_ms "$_t0")" "$name" "$(_ms "$start")"
}
