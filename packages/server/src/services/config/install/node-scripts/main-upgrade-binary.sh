main() {
  step 'check the installation'
  resolve_settings
  HEALTH_URL="$(health_url)"
  need curl
  require_linux_x64
  require_installed
  MANAGER="$(recorded_mode)"
  case "$MANAGER" in
    docker) die "node $NODE_ID runs in a container: use the upgrade-docker command" ;;
    systemd) systemd_usable || die "node $NODE_ID runs as a systemd unit: run the upgrade as root" ;;
    background) ;;
    *) die "$WORK has no recorded installation mode" ;;
  esac
  [ -x "$BIN" ] || die "$BIN is missing"
  print_node
  if [ "$WITH_FFMPEG" = 1 ]; then install_ffmpeg; fi
  OLD_VERSION="$("$BIN" --version </dev/null 2>/dev/null || true)"
  OLD_VERSION="${OLD_VERSION:-unknown}"

  step 'download the new binary'
  download_binary "$BIN.new"
  info "installed $OLD_VERSION, new $NEW_VERSION"

  step 'back up the current binary'
  cp -p "$BIN" "$BIN.bak"

  step 'stop the node'
  stop_node
  backup_database

  step 'start the new version'
  mv -f "$BIN.new" "$BIN"
  start_node

  step "check the health (up to $HEALTH_TIMEOUT s)"
  if wait_healthy "$HEALTH_TIMEOUT" "$NEW_VERSION"; then
    rm -f "$BIN.bak"
    if [ -n "$DB_BACKUP" ]; then rm -rf "$DB_BACKUP"; fi
    ok "node $NODE_ID upgraded from $OLD_VERSION to $NEW_VERSION and healthy; backup deleted"
    return 0
  fi
  rollback
}
