# binary-jdk: a JDK next to the node (the storage node itself does not need one). JDK 21 where the
# distribution has it (Debian 13, Ubuntu 22.04 and later, Fedora, RHEL 9, Alpine, openSUSE, Arch); Debian 12
# (bookworm) has no openjdk-21, so there the newest it has, 17, also a long-term release. Only distribution
# packages: no third-party repository or signing key is added to the machine.
choose_jdk_package() {
  local pkg
  for pkg in openjdk-21-jdk-headless openjdk-17-jdk-headless; do
    if apt-cache show "$pkg" </dev/null >/dev/null 2>&1; then
      printf '%s\n' "$pkg"
      return 0
    fi
  done
  return 1
}

install_jdk() {
  local current='' wanted='version "(1[7-9]|[2-9][0-9])' pkg
  step 'install a JDK (21, or 17 where the distribution has no 21)'
  if command -v java >/dev/null 2>&1; then current="$(java -version </dev/null 2>&1 || true)"; fi
  if [[ "$current" =~ $wanted ]]; then
    info "Java 17 or later is present"
    return 0
  fi
  is_root || die "installing a JDK needs root: run the command with sudo, or install a JDK 17 or later first"
  if command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null || die "apt-get update failed"
    pkg="$(choose_jdk_package)" || die "the package lists offer neither openjdk-21-jdk-headless nor openjdk-17-jdk-headless"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" </dev/null ||
      die "apt-get could not install $pkg"
    ok "$pkg installed"
    return 0
  fi
  install_packages '' java-21-openjdk-devel openjdk21-jdk java-21-openjdk-devel jdk21-openjdk ||
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
