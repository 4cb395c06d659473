main() {
  step 'check the installation'
  resolve_settings
  print_node
  if [ ! -e "$WORK" ]; then
    remove_unit
    remove_containers
    ok "nothing installed in $WORK"
    return 0
  fi
  [ -f "$MARKER" ] || die "not deleting $WORK: it holds no installation of node $NODE_ID (.svc-node is missing)"
  check_work_dir

  step 'stop the node'
  remove_unit
  remove_containers
  MANAGER=background
  stop_background

  step 'delete the work directory'
  rm -rf -- "$WORK"
  rmdir "/opt/$SERVICE_DIR" 2>/dev/null || true
  ok "node $NODE_ID uninstalled: service stopped, $WORK deleted"
  info "its record stays in the console until it is deleted there"
}
