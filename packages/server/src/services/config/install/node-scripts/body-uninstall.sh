remove_unit() {
  if [ -f "$UNIT_FILE" ] && grep -qxF "WorkingDirectory=$WORK" "$UNIT_FILE"; then
    is_root || die "removing the systemd unit $UNIT needs root: run the command with sudo"
    systemctl disable --now "$UNIT" </dev/null >/dev/null 2>&1 || true
    rm -f "$UNIT_FILE"
    systemctl daemon-reload </dev/null || true
    ok "systemd unit $UNIT removed"
  fi
}

remove_containers() {
  local name
  if command -v docker >/dev/null 2>&1; then
    for name in "$NODE_ID" "$NODE_ID-backup"; do
      if [ "$(docker container inspect -f '{{index .Config.Labels "svc.node-id"}}' "$name" </dev/null 2>/dev/null || true)" = "$NODE_ID" ]; then
        docker rm -f "$name" </dev/null >/dev/null
        ok "container $name removed"
      fi
    done
  fi
}
