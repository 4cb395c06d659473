main() {
  step 'check the machine'
  resolve_settings
  HEALTH_URL="$(health_url)"
  docker_ready
  MANAGER=docker
  check_work_dir
  print_node

  step 'pull the image'
  pull_image "$IMAGE"

  step 'prepare the work directory'
  prepare_work_dir

  step 'write the settings'
  write_settings
  info "$WORK/node.env (mode 0600)"

  step 'stop a running installation'
  case "$(recorded_mode)" in
    systemd) if command -v systemctl >/dev/null 2>&1; then
      systemctl disable --now "$UNIT" </dev/null >/dev/null 2>&1 || true
      rm -f "$UNIT_FILE"
    fi ;;
    background) MANAGER=background; stop_background; MANAGER=docker ;;
  esac
  if container_exists "$NODE_ID"; then docker rm -f "$NODE_ID" </dev/null >/dev/null; fi

  step "start the container $NODE_ID"
  run_container "$IMAGE"
  printf 'docker\n' >"$WORK/install.mode"

  step 'wait for the node to answer'
  if ! wait_healthy 120 ''; then
    show_log_tail
    die "the node does not run: $HEALTH_FAILURE"
  fi
  ok "node $NODE_ID answers on $HEALTH_URL (container $NODE_ID, image $IMAGE, host network)"
  ok "it registers with $CONFIG_URL and shows ONLINE in the console within seconds"
  info "the container restarts with the docker daemon (restart policy unless-stopped); log: docker logs $NODE_ID"
}
