main() {
  step 'check the machine'
  resolve_settings
  HEALTH_URL="$(health_url)"
  need curl
  require_linux_x64
  detect_manager
  check_work_dir
  print_node
  if [ "$WITH_JDK" = 1 ]; then install_jdk; fi
  if [ "$WITH_FFMPEG" = 1 ]; then install_ffmpeg; fi

  step 'prepare the work directory'
  prepare_work_dir

  step 'download the node binary'
  download_binary "$BIN.new"
  info "version $NEW_VERSION"

  step 'write the settings'
  write_settings
  info "$WORK/node.env (mode 0600)"

  step 'stop a running installation'
  stop_previous
  mv -f "$BIN.new" "$BIN"

  if [ "$MANAGER" = systemd ]; then
    step "register the systemd unit $UNIT"
    write_unit
  fi
  step 'start the node'
  start_node
  printf '%s\n' "$MANAGER" >"$WORK/install.mode"

  step 'wait for the node to answer'
  if ! wait_healthy 90 "$NEW_VERSION"; then
    show_log_tail
    die "the node does not run: $HEALTH_FAILURE"
  fi
  ok "node $NODE_ID $NEW_VERSION answers on $HEALTH_URL"
  ok "it registers with $CONFIG_URL and shows ONLINE in the console within seconds"
  if [ "$MANAGER" = systemd ]; then
    info "runs as the systemd unit $UNIT (starts at boot); log: journalctl -u $UNIT"
  else
    info "runs as a background process, pid $(node_pid); log: $LOG_FILE"
    printf '%s[svc-node] NOTE: no usable service manager (systemd as PID 1, run as root) on this machine: the node\n' "$C_YELLOW"
    printf '           runs as a background process and will NOT start again after a reboot. Run this command again\n'
    printf '           after a reboot, or install as root on a machine with systemd.%s\n' "$C_OFF"
  fi
}
