#!/usr/bin/env bash
# The container tier (docs/containers.md): builds the Dockerfile with podman, runs the image in
# embedded mode and publishes a post through it, then brings compose.yaml up (PostgreSQL, the API,
# two workers) and checks that a worker publishes. Needs scripts/container/setup.sh first (root).
#   bash scripts/container/test.sh        (TIDINGS_CONTAINER_KEEP_IMAGE=1 keeps tidings:ci, the default)
# Everything it starts (containers, volumes, the compose network) is removed at the end, also on
# failure; the logs of a failed run are printed. Each step prints its time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
cd "$here/../.."

IMAGE=localhost/tidings:ci
run=tidings-ci-$$
out=.ci/out/container
mkdir -p "$out"
cid=''
compose_up=''
export CREDENTIALS_SECRET TIDINGS_IMAGE=$IMAGE PORT

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

cleanup() {
  local status=$?
  set +e
  if [ "$status" != 0 ]; then
    [ -n "$cid" ] && { echo "--- logs of the container (last 40 lines but requests)"; podman logs "$cid" 2>&1 | grep -v '"reqId"' | tail -40; }
    if [ -n "$compose_up" ]; then
      for c in $(podman ps -a --filter "label=io.podman.compose.project=$run" --format '{{.Names}}'); do
        echo "--- logs of $c (last 30 lines but requests)"; podman logs "$c" 2>&1 | grep -v '"reqId"' | tail -30
      done
    fi
  fi
  [ -n "$cid" ] && podman rm -f -t 2 "$cid" >/dev/null 2>&1
  podman volume rm -f "$run-data" >/dev/null 2>&1
  if [ -n "$compose_up" ]; then
    podman-compose -p "$run" down -v -t 5 >>"$out/compose.log" 2>&1
    podman network rm -f "${run}_default" >/dev/null 2>&1
  fi
  step "done (status $status)"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# a free TCP port on loopback
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
# json EXPR: evaluates EXPR on the JSON document read from standard input (as `j`)
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);const v=('"$1"');console.log(typeof v==="string"?v:JSON.stringify(v))})'; }

# wait_ready BASE SECONDS: until GET BASE/readyz answers 200
wait_ready() {
  local deadline=$(( $(date +%s) + $2 ))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "$1/readyz")" = 200 ]; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "$1/readyz did not answer 200 within $2 s: $(curl -s "$1/readyz")"
    sleep 0.5
  done
}

# api METHOD PATH [BODY]: the public API with $KEY at $BASE; fails on a status >= 400
api() {
  local args=(-sS -X "$1" -H "Authorization: $KEY" -o "$out/body.json" -w '%{http_code}')
  [ $# -ge 3 ] && args+=(-H 'content-type: application/json' -d "$3")
  local code
  code=$(curl "${args[@]}" "$BASE/public/v1$2")
  [ "$code" -lt 400 ] || fail "$1 $2 answered $code: $(cat "$out/body.json")"
  cat "$out/body.json"
}

# connect_channel: connects a sandbox Telegram channel (its simulator runs inside the service,
# docs/sandbox.md). Sets CHANNEL.
connect_channel() {
  CHANNEL=$(api POST /sandbox/channels '{"identifier":"telegram"}' | json 'j.id')
}

# publish_one [feed]: posts to $CHANNEL due now, waits until the post is PUBLISHED (with the
# platform's id for it) and, with "feed", checks that the simulator holds it (only where the
# process that answers the API is the one that published: simulators live in each process).
# Sets POST_ID.
publish_one() {
  local channel=$CHANNEL now post state deadline
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  POST_ID=$(api POST /posts '{"type":"schedule","date":"'"$now"'","shortLink":false,"tags":[],"posts":[{"integration":{"id":"'"$channel"'"},"value":[{"content":"Hello from the container tier '"$run"'","image":[]}],"settings":{}}]}' | json 'j[0].postId')
  deadline=$(( $(date +%s) + 60 ))
  while :; do
    post=$(api GET "/posts/$POST_ID")
    state=$(echo "$post" | json 'j.state ?? j.post?.state ?? j.posts?.[0]?.state')
    if [ "$state" = PUBLISHED ]; then
      [ -n "$(echo "$post" | json 'j.releaseId ?? ""')" ] || fail "post $POST_ID PUBLISHED without a release id: $post"
      break
    fi
    [ "$state" = ERROR ] && fail "post $POST_ID ended ERROR: $post"
    [ "$(date +%s)" -lt "$deadline" ] || fail "post $POST_ID not PUBLISHED within 60 s (state $state)"
    sleep 0.5
  done
  [ "${1:-}" = feed ] || return 0
  api GET "/sandbox/channels/$channel/feed" | json 'j.items.map((i) => i.post?.id)' | grep -q "\"$POST_ID\"" \
    || fail "the Telegram simulator does not hold post $POST_ID"
}

# (a) build ---------------------------------------------------------------------------------------
step "build $IMAGE"
build_args=(--pull=never --format docker -t "$IMAGE")
# a proxy that re-signs TLS (as on these machines): npm in the build trusts what this machine trusts
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -s "$NODE_EXTRA_CA_CERTS" ]; then
  build_args+=(--secret "id=npm_ca,src=$NODE_EXTRA_CA_CERTS")
fi
build_start=$(date +%s%3N)
podman build "${build_args[@]}" . >"$out/build.log" 2>&1 \
  || { tail -40 "$out/build.log"; fail "podman build (log: $out/build.log)"; }
step "built in $(_ms "$build_start") s"

step "image: production contents"
# every package the lockfile has for development only (dev, or dev and an optional peer)
dev_paths=$(node -p 'Object.entries(require("./package-lock.json").packages).filter(([p, v]) => p && (v.dev || v.devOptional)).map(([p]) => p).join(" ")')
podman run --rm --pull=never --no-healthcheck --entrypoint sh -e "DEV_PATHS=$dev_paths" "$IMAGE" -c '
  set -e
  [ "$(id -un)" = node ] || { echo "runs as $(id -un), not node"; exit 1; }
  for dev in $DEV_PATHS; do
    [ ! -e "$dev" ] || { echo "dev dependency in the image: $dev"; exit 1; }
  done
  found=$(find /app -path /app/node_modules -prune -o \( -name "*.test.*" -o -name "*.testkit.*" -o -name "*.ts" \) -print | head -5)
  [ -z "$found" ] || { echo "test or source files in the image: $found"; exit 1; }
  [ -f web/dist/index.html ] && [ -f dist/main.js ] && ls src/db/migrations/*.sql >/dev/null
  [ -x /usr/bin/tini ]
' || fail "the image is not a production image"
podman image inspect "$IMAGE" --format '{{.Config.Healthcheck.Test}}' | grep -q readyz || fail "the image has no HEALTHCHECK on /readyz"

# (b) the image alone, embedded mode, data in a volume --------------------------------------------
step "run (embedded mode, volume $run-data)"
podman volume create "$run-data" >/dev/null
start_embedded() {
  # no --init: the image's tini is PID 1 (docs/containers.md); no healthcheck timer (no systemd here)
  cid=$(podman run -d --pull=never --name "$run" -p 127.0.0.1::3000 -v "$run-data:/data" \
    --health-interval disable "$IMAGE" 2>>"$out/podman.log")
  BASE="http://$(podman port "$cid" 3000/tcp | head -1)"
}
start_embedded
wait_ready "$BASE" 60
step "ready at $BASE"

KEY=$(podman exec "$cid" tidings org create --name "Container tier" --json | json 'j.apiKey')
[[ "$KEY" == tdk_* ]] || fail "tidings org create gave no API key"
step "organisation and API key made (podman exec … tidings org create)"

connect_channel
publish_one feed
step "post $POST_ID PUBLISHED, the simulator holds it"
FIRST_POST=$POST_ID

podman healthcheck run "$cid" >/dev/null || fail "podman healthcheck run: unhealthy"
step "healthcheck: healthy"

stop_start=$(date +%s%3N)
podman stop -t 10 "$cid" >/dev/null 2>>"$out/podman.log"
stop_ms=$(( $(date +%s%3N) - stop_start ))
exit_code=$(podman inspect "$cid" --format '{{.State.ExitCode}}')
step "stopped in ${stop_ms} ms, exit code $exit_code"
[ "$stop_ms" -lt 5000 ] || fail "podman stop took ${stop_ms} ms: SIGTERM did not stop the service"
[ "$exit_code" = 0 ] || fail "the service exited $exit_code on SIGTERM"

# a new container on the same volume: the organisation, its key and the post are still there
podman rm "$cid" >/dev/null 2>>"$out/podman.log"
start_embedded
wait_ready "$BASE" 60
state=$(api GET "/posts/$FIRST_POST" | json 'j.state ?? j.post?.state ?? j.posts?.[0]?.state')
[ "$state" = PUBLISHED ] || fail "after a new container on the same volume, post $FIRST_POST is $state"
step "new container on the same volume: key valid, post still PUBLISHED"
# the new process's simulator takes the channel back on first use, then publishes
publish_one feed
step "post $POST_ID PUBLISHED on the same channel by the new container, its simulator holds it"
podman rm -f -t 2 "$cid" >/dev/null 2>>"$out/podman.log"
cid=''
podman volume rm "$run-data" >/dev/null

# (c) compose.yaml: PostgreSQL, one API, two workers ----------------------------------------------
step "compose up (project $run)"
CREDENTIALS_SECRET=$(head -c 48 /dev/urandom | base64 | tr -d '\n')
PORT=$(free_port)
compose_up=1
# the image is built above, so compose does not build it again (TIDINGS_IMAGE names it)
podman-compose -p "$run" --podman-build-args='--pull=never --format docker' up -d >"$out/compose.log" 2>&1 \
  || { tail -40 "$out/compose.log"; fail "podman-compose up (log: $out/compose.log)"; }
BASE="http://127.0.0.1:$PORT"
# depends_on does not wait for health here (podman-compose): poll. A process that started before
# PostgreSQL answered has exited and is started again (restart: unless-stopped).
wait_ready "$BASE" 90
deadline=$(( $(date +%s) + 60 ))
until running=$(podman ps --filter "label=io.podman.compose.project=$run" --filter status=running --format '{{.Names}}' | sort | tr '\n' ' ')
  [ "$(echo "$running" | wc -w)" = 4 ]; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "expected postgres, api and two workers running, got: $running"
  sleep 1
done
echo "running: $running"
role=$(curl -s "$BASE/readyz" | json 'j.role')
[ "$role" = api ] || fail "the api service's /readyz says role $role"
step "api ready at $BASE (PostgreSQL)"

KEY=$(podman exec "${run}_api_1" tidings org create --name "Compose tier" --json | json 'j.apiKey')
[[ "$KEY" == tdk_* ]] || fail "tidings org create gave no API key"
# connected by the api process; a worker's simulator takes it back to publish
connect_channel
publish_one
# the api process runs no publisher (serve --role api), so a worker published it
publisher=''
for w in "${run}_worker_1" "${run}_worker_2"; do
  podman logs "$w" 2>&1 | grep -q "$POST_ID" && publisher="$publisher $w"
done
step "post $POST_ID PUBLISHED by a worker${publisher:+ (its log:$publisher)}"
podman logs "${run}_api_1" 2>&1 | grep -q "worker running\|publisher started" && fail "the api process ran a publisher"

step "compose down"
podman-compose -p "$run" down -v -t 5 >>"$out/compose.log" 2>&1
podman network rm -f "${run}_default" >/dev/null 2>&1 || true
compose_up=''
leftover=$(podman ps -a --filter "label=io.podman.compose.project=$run" --format '{{.Names}}')
[ -z "$leftover" ] || fail "left running after down: $leftover"
echo "container tier: 2 passed, 0 failed"
