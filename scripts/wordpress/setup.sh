#!/usr/bin/env bash
# A real WordPress for the `test/real/` tier: Debian's `wordpress` package on MariaDB, served by
# PHP's built-in server on loopback. Idempotent: run it again and it reuses what exists, replaces
# the application password and (re)starts the server when it is not answering.
#
#   scripts/wordpress/setup.sh          set up / start; writes $STATE/site.json and prints it
#   scripts/wordpress/setup.sh stop     stops the server this script started
#
# Environment: TIDINGS_WP_STATE (default /tmp/tidings-wordpress), TIDINGS_WP_PORT (default 8899;
# the next free port is taken when another program holds it), TIDINGS_WP_MYSQL (the client command
# with administrator rights, default `mysql -uroot -h127.0.0.1 -P3306`: MariaDB's root, empty password).
# Needs root (apt-get, /etc/wordpress) and a running MariaDB.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
STATE="${TIDINGS_WP_STATE:-/tmp/tidings-wordpress}"
HOST=127.0.0.1
PORT="${TIDINGS_WP_PORT:-8899}"
MYSQL="${TIDINGS_WP_MYSQL:-mysql -uroot -h127.0.0.1 -P3306}"
DB=tidings_wp
DB_USER=tidings_wp
DB_PASSWORD=tidings-wp-loopback-only
WP_USER=tidings
WP_PASSWORD=tidings-admin-loopback-only
CONFIG="/etc/wordpress/config-$HOST.php" # Debian's wp-config.php loads config-<Host header without port>.php

log() { echo "wordpress-setup: $*" >&2; }

stop_server() {
  if [ -f "$STATE/server.pid" ]; then
    local pid
    pid="$(cat "$STATE/server.pid")"
    # The server runs in its own process group (setsid): its workers go with it.
    if kill -0 "$pid" 2>/dev/null; then kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; fi
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$STATE/server.pid"
    log "stopped the server (pid $pid)"
  fi
}

if [ "${1:-}" = stop ]; then stop_server; exit 0; fi
if [ "$(id -u)" != 0 ]; then log "run as root (apt-get, /etc/wordpress)"; exit 1; fi
mkdir -p "$STATE"
chmod 755 "$STATE"

# 1. Packages (Debian's only; no recommends: no themes or translations are needed for the REST API).
pkgs=(wordpress php-cli php-mysql php-gd php-xml php-mbstring php-curl curl)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
fi

# 2. Database and its user.
$MYSQL <<SQL
CREATE DATABASE IF NOT EXISTS \`$DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON \`$DB\`.* TO '$DB_USER'@'localhost';
GRANT ALL PRIVILEGES ON \`$DB\`.* TO '$DB_USER'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL

# 3. A port: ours if our server already holds it, else the first free one from $PORT.
port_busy() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }
ours_running=false
if [ -f "$STATE/server.pid" ] && kill -0 "$(cat "$STATE/server.pid")" 2>/dev/null && [ -f "$STATE/port" ]; then
  PORT="$(cat "$STATE/port")"; ours_running=true
else
  rm -f "$STATE/server.pid"
  for _ in $(seq 20); do port_busy "$PORT" || break; PORT=$((PORT + 1)); done
  if port_busy "$PORT"; then log "no free port near ${TIDINGS_WP_PORT:-8899}"; exit 1; fi
fi
URL="http://$HOST:$PORT"

# 4. Debian's host configuration. Application passwords need HTTPS or the 'local' environment type;
#    no cron requests to itself, no calls to wordpress.org.
salt() { head -c 48 /dev/urandom | base64 | tr -d '\n/+='; }
umask 027
cat > "$CONFIG.tmp" <<PHP
<?php
// Written by tidings scripts/wordpress/setup.sh for the loopback test site.
define('DB_NAME', '$DB');
define('DB_USER', '$DB_USER');
define('DB_PASSWORD', '$DB_PASSWORD');
define('DB_HOST', '127.0.0.1:3306');
define('DB_CHARSET', 'utf8mb4');
define('WP_HOME', '$URL');
define('WP_SITEURL', '$URL');
define('WP_ENVIRONMENT_TYPE', 'local');
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTH_KEY', '$(salt)');
define('SECURE_AUTH_KEY', '$(salt)');
define('LOGGED_IN_KEY', '$(salt)');
define('NONCE_KEY', '$(salt)');
define('AUTH_SALT', '$(salt)');
define('SECURE_AUTH_SALT', '$(salt)');
define('LOGGED_IN_SALT', '$(salt)');
define('NONCE_SALT', '$(salt)');
PHP
chgrp www-data "$CONFIG.tmp"
mv "$CONFIG.tmp" "$CONFIG"
umask 022
install -d -o www-data -g www-data /var/lib/wordpress/wp-content/uploads

# 5. The site, the admin, a fresh application password, the categories.
php "$HERE/install.php" "$HOST" "$URL" "$WP_USER" "$WP_PASSWORD" tidings@example.test > "$STATE/site.json.tmp" 2> "$STATE/install.log" \
  || { log "install failed:"; cat "$STATE/install.log" >&2; exit 1; }
chown -R www-data:www-data /var/lib/wordpress/wp-content/uploads

# 6. The server: PHP's built-in server as www-data, four workers, in its own process group.
install -m 644 "$HERE/router.php" "$STATE/router.php"
if ! $ours_running; then
  : > "$STATE/server.log"; chown www-data "$STATE/server.log"
  PHP_CLI_SERVER_WORKERS=4 setsid runuser -u www-data -- php -d upload_max_filesize=64M -d post_max_size=64M -d memory_limit=256M \
    -S "$HOST:$PORT" -t /usr/share/wordpress "$STATE/router.php" >> "$STATE/server.log" 2>&1 < /dev/null &
  echo $! > "$STATE/server.pid"
  echo "$PORT" > "$STATE/port"
fi
for _ in $(seq 100); do
  if curl -fs -o /dev/null "$URL/wp-json/"; then break; fi
  sleep 0.1
done
curl -fsS -o /dev/null "$URL/wp-json/" || { log "the server does not answer at $URL/wp-json/"; tail -20 "$STATE/server.log" >&2; exit 1; }

mv "$STATE/site.json.tmp" "$STATE/site.json"
log "WordPress $(sed -n 's/.*"wordpressVersion": "\(.*\)".*/\1/p' "$STATE/site.json") at $URL (pid $(cat "$STATE/server.pid")); details in $STATE/site.json"
cat "$STATE/site.json"
