# binary-jdk: a JDK 21 next to the node (the storage node itself does not need one).
install_jdk() {
  local current='' wanted='version "(2[1-9]|[3-9][0-9])'
  step 'install a JDK 21'
  if command -v java >/dev/null 2>&1; then current="$(java -version </dev/null 2>&1 || true)"; fi
  if [[ "$current" =~ $wanted ]]; then
    info "Java 21 or later is present"
    return 0
  fi
  is_root || die "installing a JDK 21 needs root: run the command with sudo, or install a JDK 21 first"
  install_packages openjdk-21-jdk-headless java-21-openjdk-devel openjdk21-jdk java-21-openjdk-devel jdk21-openjdk ||
    die "no package manager of this machine could install a JDK 21"
  ok "JDK 21 installed"
}

# A node installed before in another form is stopped first (same work directory, same node).
stop_previous() {
  local previous
  previous="$(recorded_mode)"
  case "$previous" in
    docker) docker rm -f "$NODE_ID" </dev/null >/dev/null 2>&1 || true ;;
    systemd) if [ "$MANAGER" != systemd ] && command -v systemctl >/dev/null 2>&1; then
      systemctl disable --now "$UNIT" </dev/null >/dev/null 2>&1 || true
      rm -f "$UNIT_FILE"
    fi ;;
  esac
  stop_node
  if [ "$MANAGER" = systemd ]; then stop_background; fi
}
