#!/usr/bin/env bash
# `npm run test:wordpress`: sets up the real WordPress (setup.sh), runs the test/real tier against it
# on PGlite, then stops the server (TIDINGS_WP_KEEP=1 leaves it running for the next run).
# Extra arguments go to vitest.
set -uo pipefail
cd "$(dirname "$0")/../.."
STATE="${TIDINGS_WP_STATE:-/tmp/tidings-wordpress}"
export TIDINGS_WP_STATE="$STATE"
bash scripts/wordpress/setup.sh >/dev/null || exit 1
WORDPRESS_REAL_SITE="$STATE/site.json" npx vitest run --project pglite test/real/wordpress.real.test.ts "$@"
rc=$?
[ "${TIDINGS_WP_KEEP:-}" = 1 ] || bash scripts/wordpress/setup.sh stop
exit $rc
