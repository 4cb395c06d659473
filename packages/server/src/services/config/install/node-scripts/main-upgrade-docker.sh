main() {
  local old_image backup="$NODE_ID-backup"
  step 'check the installation'
  resolve_settings
  HEALTH_URL="$(health_url)"
  docker_ready
  require_installed
  MANAGER=docker
  [ "$(recorded_mode)" = docker ] || die "node $NODE_ID is not installed in container form: use the upgrade-binary command"
  container_exists "$NODE_ID" || die "the container $NODE_ID does not exist: run the docker install command again"
  print_node
  old_image="$(docker container inspect -f '{{.Config.Image}}' "$NODE_ID" </dev/null)"

  step 'pull the new image'
  pull_image "$IMAGE"
  info "running $old_image, new $IMAGE"

  step 'back up the current container'
  if container_exists "$backup"; then docker rm -f "$backup" </dev/null >/dev/null; fi
  docker stop -t 30 "$NODE_ID" </dev/null >/dev/null
  docker rename "$NODE_ID" "$backup" </dev/null
  docker update --restart=no "$backup" </dev/null >/dev/null

  step 'start the new version'
  run_container "$IMAGE"

  step "check the health (up to $HEALTH_TIMEOUT s)"
  if wait_healthy "$HEALTH_TIMEOUT" ''; then
    docker rm "$backup" </dev/null >/dev/null
    ok "node $NODE_ID now runs $IMAGE and is healthy; backup container deleted"
    return 0
  fi

  step 'roll back'
  warn "$IMAGE did not pass the health check: $HEALTH_FAILURE"
  show_log_tail
  docker rm -f "$NODE_ID" </dev/null >/dev/null
  docker rename "$backup" "$NODE_ID" </dev/null
  docker update --restart=unless-stopped "$NODE_ID" </dev/null >/dev/null
  docker start "$NODE_ID" </dev/null >/dev/null
  if wait_healthy "$HEALTH_TIMEOUT" ''; then
    printf '%s[svc-node] upgrade to %s failed its health check: rolled back to %s, which runs again%s\n' "$C_RED" "$IMAGE" "$old_image" "$C_OFF" >&2
    exit 3
  fi
  printf '%s[svc-node] upgrade to %s failed and the restored %s does not answer either: see docker logs %s%s\n' "$C_RED" "$IMAGE" "$old_image" "$NODE_ID" "$C_OFF" >&2
  exit 4
}
