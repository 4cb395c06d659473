# Where the node answers its health route on this machine (the bind address, loopback for "any").
health_url() {
  local host
  case "$BIND_HOST" in
    0.0.0.0) host=127.0.0.1 ;;
    ::) host='[::1]' ;;
    *:*) host="[$BIND_HOST]" ;;
    *) host=$BIND_HOST ;;
  esac
  printf 'http://%s:%s%s\n' "$host" "$NODE_PORT" "$HEALTH_PATH"
}

# The version a healthy node reports on its health route, or nothing.
health_version() {
  local body
  body="$(curl -fsS --max-time 3 "$HEALTH_URL" </dev/null 2>/dev/null || true)"
  case "$body" in
    *'"status":"UP"'*) printf '%s\n' "$body" | sed -n 's/.*"version":"\([^"]*\)".*/\1/p' ;;
    *) printf '\n' ;;
  esac
}

# Polls the health route for up to $1 seconds; healthy means status UP and, when $2 is given, that version.
# On failure HEALTH_FAILURE says why.
wait_healthy() {
  local limit=$1 expected=$2 version='' deadline
  deadline=$((SECONDS + limit))
  HEALTH_FAILURE="no healthy answer on $HEALTH_URL within $limit s"
  while [ "$SECONDS" -lt "$deadline" ]; do
    version="$(health_version)"
    if [ -n "$version" ] && { [ -z "$expected" ] || [ "$version" = "$expected" ]; }; then return 0; fi
    # A background process that is gone will not become healthy: no need to wait for the rest.
    if [ "$MANAGER" = background ] && [ -z "$(node_pid)" ]; then
      HEALTH_FAILURE="the node process exited (health route $HEALTH_URL)"
      return 1
    fi
    sleep 1
  done
  if [ -n "$version" ]; then HEALTH_FAILURE="$HEALTH_URL answers version $version, not $expected"; fi
  return 1
}

show_log_tail() {
  case "$MANAGER" in
    systemd) info "last lines of the log (journalctl -u $UNIT):"; journalctl -u "$UNIT" -n 15 --no-pager </dev/null 2>&1 | sed 's/^/      /' || true ;;
    docker) info "last lines of the log (docker logs $NODE_ID):"; docker logs --tail 15 "$NODE_ID" </dev/null 2>&1 | sed 's/^/      /' || true ;;
    *) if [ -f "$LOG_FILE" ]; then info "last lines of $LOG_FILE:"; tail -n 15 "$LOG_FILE" | sed 's/^/      /' || true; fi ;;
  esac
}
