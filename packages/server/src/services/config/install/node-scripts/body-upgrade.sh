# A storage node on the embedded database: its folder is copied while the node is stopped, so that a rollback
# also gives the old version the data it knows (the new one may have migrated it). External PostgreSQL is not
# copied (docs/node-install.md).
backup_database() {
  DB_BACKUP=''
  if [ "$ROLE" = storage ] && [ -d "$WORK/data/db" ] && ! grep -qx 'SVC_DB_MODE=external' "$WORK/node.env"; then
    DB_BACKUP="$WORK/data/db.upgrade-backup"
    rm -rf "$DB_BACKUP"
    cp -a "$WORK/data/db" "$DB_BACKUP"
    info "embedded database copied to $DB_BACKUP"
  fi
}

rollback() {
  step 'roll back'
  warn "version $NEW_VERSION did not pass the health check: $HEALTH_FAILURE"
  show_log_tail
  stop_node
  if [ -n "$DB_BACKUP" ]; then
    rm -rf "$WORK/data/db"
    mv "$DB_BACKUP" "$WORK/data/db"
    info "embedded database restored"
  fi
  mv -f "$BIN.bak" "$BIN"
  start_node
  local expected=$OLD_VERSION
  if [ "$expected" = unknown ]; then expected=''; fi
  if wait_healthy "$HEALTH_TIMEOUT" "$expected"; then
    printf '%s[svc-node] upgrade to %s failed its health check: rolled back to %s, which runs again%s\n' "$C_RED" "$NEW_VERSION" "$OLD_VERSION" "$C_OFF" >&2
    exit 3
  fi
  show_log_tail
  printf '%s[svc-node] upgrade to %s failed and the restored version %s does not answer either: see the log%s\n' "$C_RED" "$NEW_VERSION" "$OLD_VERSION" "$C_OFF" >&2
  exit 4
}
