STEP='start'
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
  C_BOLD=$'\033[1m' C_RED=$'\033[31m' C_GREEN=$'\033[32m' C_YELLOW=$'\033[33m' C_OFF=$'\033[0m'
else
  C_BOLD='' C_RED='' C_GREEN='' C_YELLOW='' C_OFF=''
fi

on_error() {
  local code=$1 line=$2
  trap - ERR
  printf '%s[svc-node] failed: step "%s", line %s, exit code %s%s\n' "$C_RED" "$STEP" "$line" "$code" "$C_OFF" >&2
  exit "$code"
}
trap 'on_error $? $LINENO' ERR

step() {
  STEP=$1
  printf '%s==> %s%s\n' "$C_BOLD" "$1" "$C_OFF"
}
info() { printf '    %s\n' "$*"; }
ok() { printf '%s    %s%s\n' "$C_GREEN" "$*" "$C_OFF"; }
warn() { printf '%s[svc-node] warning: %s%s\n' "$C_YELLOW" "$*" "$C_OFF" >&2; }
die() {
  printf '%s[svc-node] error in step "%s": %s%s\n' "$C_RED" "$STEP" "$*" "$C_OFF" >&2
  exit 1
}
need() {
  command -v "$1" >/dev/null 2>&1 || die "$1 is required on this machine"
}
is_root() { [ "$(id -u)" = 0 ]; }

# A value for the settings file: the characters systemd, docker and this script read alike.
check_value() {
  [[ "$2" =~ $SETTINGS_RE ]] || die "$1 may hold only letters, digits and ._~:/@%+,=?&[]- (percent-encode the rest)"
}

# Values that may be changed when the script runs (documented in docs/node-install.md).
resolve_settings() {
  CONFIG_URL="${SVC_CONFIG_BASE_URL:-$CONFIG_URL_GENERATED}"
  CONFIG_URL="${CONFIG_URL%/}"
  WORK="${SVC_NODE_WORK_DIR:-/opt/$SERVICE_DIR/$NODE_ID}"
  if [ "$WORK" != / ]; then WORK="${WORK%/}"; fi
  NODE_PORT="${SVC_NODE_PORT:-$NODE_PORT_GENERATED}"
  BIND_HOST="${SVC_BIND_HOST:-0.0.0.0}"
  HEALTH_TIMEOUT="${SVC_NODE_HEALTH_TIMEOUT:-30}"
  LOG_LEVEL="${SVC_LOG_LEVEL:-info}"
  IMAGE="${SVC_NODE_IMAGE:-$IMAGE_GENERATED}"

  if ! [[ "$WORK" =~ ^/[A-Za-z0-9._/-]+$ ]] || [[ "$WORK/" == */../* ]] || [[ "$WORK/" == */./* ]] || [ "$WORK" = / ]; then
    die "SVC_NODE_WORK_DIR must be an absolute folder of letters, digits and ._-/ (got '$WORK')"
  fi
  case "$WORK" in /bin | /boot | /dev | /etc | /home | /lib | /lib64 | /opt | /proc | /root | /run | /sbin | /sys | /tmp | /usr | /var)
    die "SVC_NODE_WORK_DIR cannot be $WORK itself" ;;
  esac
  if ! [[ "$NODE_PORT" =~ ^[0-9]{1,5}$ ]] || [ "$NODE_PORT" -lt 1 ] || [ "$NODE_PORT" -gt 65535 ]; then
    die "SVC_NODE_PORT must be a TCP port (got '$NODE_PORT')"
  fi
  [[ "$HEALTH_TIMEOUT" =~ ^[0-9]{1,4}$ ]] || die "SVC_NODE_HEALTH_TIMEOUT must be a number of seconds"
  [[ "$CONFIG_URL" =~ ^https?://[^/]+ ]] || die "SVC_CONFIG_BASE_URL must start with http:// or https://"
  check_value SVC_CONFIG_BASE_URL "$CONFIG_URL"
  [[ "$BIND_HOST" =~ ^[0-9A-Fa-f.:]+$ ]] || die "SVC_BIND_HOST must be an IP address (got '$BIND_HOST')"
  [[ "$LOG_LEVEL" =~ ^(fatal|error|warn|info|debug|trace|silent)$ ]] || die "SVC_LOG_LEVEL is not a log level"
  if [ -n "$IMAGE" ] && ! [[ "$IMAGE" =~ ^[A-Za-z0-9][A-Za-z0-9._/:@-]*$ ]]; then
    die "SVC_NODE_IMAGE is not an image reference"
  fi

  BIN="$WORK/bin/svc"
  PID_FILE="$WORK/run/node.pid"
  LOG_FILE="$WORK/logs/node.log"
  MARKER="$WORK/.svc-node"
  UNIT="$NODE_ID.service"
  UNIT_FILE="/etc/systemd/system/$UNIT"
  MANAGER=''
}

# systemd can run the node when it is PID 1 and this is root (units go to /etc/systemd/system).
systemd_usable() {
  is_root && command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ] &&
    [ "$(cat /proc/1/comm 2>/dev/null || true)" = systemd ]
}

detect_manager() {
  case "${SVC_NODE_SERVICE_MANAGER:-auto}" in
    none) MANAGER=background ;;
    systemd)
      systemd_usable || die "SVC_NODE_SERVICE_MANAGER=systemd, but systemd is not PID 1 here or this is not root"
      MANAGER=systemd
      ;;
    auto)
      if systemd_usable; then MANAGER=systemd; else MANAGER=background; fi
      ;;
    *) die "SVC_NODE_SERVICE_MANAGER must be auto, systemd or none" ;;
  esac
}

# How the installed node runs: systemd, background or docker (empty when nothing is installed).
recorded_mode() {
  if [ -f "$WORK/install.mode" ]; then tr -dc 'abcdefghijklmnopqrstuvwxyz' <"$WORK/install.mode"; fi
  printf '\n'
}

# The work directory must be this node's (or new): never touch a folder of something else.
check_work_dir() {
  if [ -f "$MARKER" ]; then
    grep -qx "node_id=$NODE_ID" "$MARKER" ||
      die "$WORK belongs to another node ($(grep '^node_id=' "$MARKER" | head -n 1 || true)); choose another SVC_NODE_WORK_DIR"
  elif [ -d "$WORK" ] && [ -n "$(ls -A "$WORK" 2>/dev/null || true)" ]; then
    die "$WORK exists and is not an installation of node $NODE_ID; choose another SVC_NODE_WORK_DIR"
  fi
}

require_installed() {
  [ -f "$MARKER" ] || die "node $NODE_ID is not installed in $WORK (set SVC_NODE_WORK_DIR if it was installed elsewhere)"
  check_work_dir
}

prepare_work_dir() {
  mkdir -p "$WORK/bin" "$WORK/data" "$WORK/logs" "$WORK/run"
  printf 'node_id=%s\nservice=%s\n' "$NODE_ID" "$SERVICE" >"$MARKER"
}

# The pid of this node's background process, or nothing: the process must still run this work directory's
# binary (its command line names $BIN), so a pid reused by another program is never signalled.
node_pid() {
  local pid='' args=''
  if [ -f "$PID_FILE" ]; then pid="$(tr -dc '0-9' <"$PID_FILE" || true)"; fi
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    args="$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" || true)"
    case $'\n'"$args"$'\n' in
      *$'\n'"$BIN"$'\n'*) printf '%s\n' "$pid"; return 0 ;;
    esac
  fi
  printf '\n'
}

# Reads node.env into the environment of a subshell: each line is one NAME=value, exported as it is.
export_settings() {
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in '' | '#'*) continue ;; esac
    # shellcheck disable=SC2163 # the line is NAME=value, exported without any expansion
    export "$line"
  done <"$WORK/node.env"
}

start_background() {
  mkdir -p "$WORK/run" "$WORK/logs"
  (
    cd "$WORK"
    export_settings
    export SVC_DATA_DIR="$WORK/data"
    trap - ERR
    if command -v setsid >/dev/null 2>&1; then
      exec nohup setsid "$BIN" node "$ROLE" </dev/null >>"$LOG_FILE" 2>&1
    fi
    exec nohup "$BIN" node "$ROLE" </dev/null >>"$LOG_FILE" 2>&1
  ) &
  local started=$!
  printf '%s\n' "$started" >"$PID_FILE"
  # Until the subshell has read node.env and exec'd the binary, node_pid does not recognise it: wait for that
  # (up to 5 s), so a health wait right after never takes the starting node for one that exited.
  for _ in $(seq 1 50); do
    if [ -n "$(node_pid)" ] || ! kill -0 "$started" 2>/dev/null; then break; fi
    sleep 0.1
  done
}

stop_background() {
  local pid
  pid="$(node_pid)"
  if [ -n "$pid" ]; then
    info "stopping the background process $pid"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      if ! kill -0 "$pid" 2>/dev/null; then break; fi
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      warn "the node did not stop within 20 s: killing it"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
    fi
  fi
  rm -f "$PID_FILE"
}

write_unit() {
  cat >"$UNIT_FILE.tmp" <<EOF_UNIT
[Unit]
Description=SVC $ROLE node $NODE_ID
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
WorkingDirectory=$WORK
EnvironmentFile=$WORK/node.env
Environment=SVC_DATA_DIR=$WORK/data
ExecStart=$BIN node $ROLE
Restart=always
RestartSec=5
TimeoutStopSec=30
LimitNOFILE=65536

[Install]
WantedBy=multi-user.target
EOF_UNIT
  mv -f "$UNIT_FILE.tmp" "$UNIT_FILE"
  systemctl daemon-reload </dev/null
}

start_node() {
  case "$MANAGER" in
    systemd)
      systemctl enable "$UNIT" </dev/null >/dev/null 2>&1
      systemctl restart "$UNIT" </dev/null
      ;;
    background) start_background ;;
    *) die "unknown service manager '$MANAGER'" ;;
  esac
}

stop_node() {
  case "$MANAGER" in
    systemd) if [ -f "$UNIT_FILE" ]; then systemctl stop "$UNIT" </dev/null || true; fi ;;
    background) stop_background ;;
  esac
}

# The address other services reach this node at: SVC_ADVERTISE_HOST, the node record's expected host, or
# this machine's address on its default route.
advertise_host() {
  local address="${SVC_ADVERTISE_HOST:-$ADVERTISE_HOST_GENERATED}"
  if [ -z "$address" ] && command -v ip >/dev/null 2>&1; then
    address="$(ip -4 route get 1.1.1.1 </dev/null 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -n 1 || true)"
  fi
  if [ -z "$address" ] && command -v hostname >/dev/null 2>&1; then
    address="$(hostname -I </dev/null 2>/dev/null | awk '{print $1}' || true)"
  fi
  printf '%s\n' "${address:-127.0.0.1}"
}

setting() {
  check_value "$1" "$2"
  printf '%s=%s\n' "$1" "$2"
}

# node.env: the node's settings (docs/node-install.md), mode 0600 because it holds its credentials.
write_settings() {
  local tmp="$WORK/node.env.tmp" advertise listen db_mode
  advertise="$(advertise_host)"
  [[ "$advertise" =~ ^[A-Za-z0-9.:-]+$ ]] || die "SVC_ADVERTISE_HOST must be a host name or IP address"
  case "$BIND_HOST" in *:*) listen="[$BIND_HOST]:$NODE_PORT" ;; *) listen="$BIND_HOST:$NODE_PORT" ;; esac
  rm -f "$tmp"
  (umask 077 && : >"$tmp")
  {
    printf '# Settings of SVC node %s (%s), written by its install script. It holds the node credentials.\n' "$NODE_ID" "$SERVICE"
    setting SVC_NODE_ID "$NODE_ID"
    setting SVC_CONFIG_BASE_URL "$CONFIG_URL"
    setting SVC_SERVICE_TOKEN "$SERVICE_TOKEN"
    setting SVC_REGISTRY_TOKEN "$REGISTRY_TOKEN"
    setting SVC_BIND_HOST "$BIND_HOST"
    setting SVC_ADVERTISE_HOST "$advertise"
    setting SVC_LOG_LEVEL "$LOG_LEVEL"
    if [ "$ROLE" = play-agent ]; then
      setting PLAY_AGENT_LISTEN "$listen"
      setting PLAY_AGENT_CONFIG_BASE_URL "$CONFIG_URL"
      setting PLAY_AGENT_REGISTRY_TOKEN "$REGISTRY_TOKEN"
      if [ -n "$PUBLIC_BASE_URL" ]; then setting PLAY_AGENT_PUBLIC_BASE_URL "$PUBLIC_BASE_URL"; fi
    else
      setting SVC_STORAGE_PORT "$NODE_PORT"
      db_mode="${SVC_DB_MODE:-bundled}"
      case "$db_mode" in
        bundled) setting SVC_DB_MODE bundled ;;
        external)
          [ -n "${SVC_DATABASE_URL:-}" ] || die "SVC_DB_MODE=external needs SVC_DATABASE_URL"
          setting SVC_DB_MODE external
          setting SVC_DATABASE_URL "$SVC_DATABASE_URL"
          ;;
        *) die "SVC_DB_MODE must be bundled or external" ;;
      esac
      if [ -n "${SVC_DB_NAME_SUFFIX:-}" ]; then setting SVC_DB_NAME_SUFFIX "$SVC_DB_NAME_SUFFIX"; fi
    fi
    if [ -n "${SVC_REDIS_URL:-}" ]; then setting SVC_REDIS_URL "$SVC_REDIS_URL"; fi
    # What the node needs to run its own upgrade or uninstall when the control plane asks (POST /api/node/lifecycle).
    setting SVC_NODE_TOKEN "$NODE_TOKEN"
    setting SVC_NODE_WORK_DIR "$WORK"
    setting SVC_NODE_PORT "$NODE_PORT"
    if [ "$KIND" = docker ]; then setting SVC_NODE_INSTALL_FORM docker; else setting SVC_NODE_INSTALL_FORM binary; fi
    if [ "$WITH_FFMPEG" = 1 ]; then setting SVC_NODE_FFMPEG 1; fi
  } >>"$tmp"
  mv -f "$tmp" "$WORK/node.env"
}

require_linux_x64() {
  [ "$(uname -s)" = Linux ] || die "worker nodes run on Linux"
  case "$(uname -m)" in
    x86_64 | amd64) ;;
    *) die "the node binary is built for x86-64; this machine is $(uname -m)" ;;
  esac
}

# Downloads the node binary to $1 and checks that it runs here; sets NEW_VERSION. The URL goes to curl
# through its standard input (-K -), so the node token does not show in the process list.
download_binary() {
  local target=$1 url="$CONFIG_URL/api/config/binaries/$SERVICE?token=$NODE_TOKEN"
  rm -f "$target"
  if ! curl -fsSL --retry 3 --retry-delay 2 --connect-timeout 15 -o "$target" -K - <<<"url = \"$url\""; then
    rm -f "$target"
    die "cannot download the node binary from $CONFIG_URL/api/config/binaries/$SERVICE (the console's binary status says whether the config service provides one)"
  fi
  chmod 0755 "$target"
  if ! NEW_VERSION="$("$target" --version </dev/null 2>/dev/null)" || ! [[ "$NEW_VERSION" =~ ^[0-9A-Za-z.+-]+$ ]]; then
    rm -f "$target"
    die "the downloaded binary does not run on this machine (it needs Linux x86-64 with glibc)"
  fi
}

# Installs packages with the distribution's package manager: $1 apt, $2 dnf/yum, $3 apk, $4 zypper, $5 pacman
# (each a space-separated list of package names, split on purpose).
# shellcheck disable=SC2086
install_packages() {
  if command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $1 </dev/null
  elif command -v dnf >/dev/null 2>&1; then
    dnf install -y $2 </dev/null
  elif command -v yum >/dev/null 2>&1; then
    yum install -y $2 </dev/null
  elif command -v apk >/dev/null 2>&1; then
    apk add --no-cache $3 </dev/null
  elif command -v zypper >/dev/null 2>&1; then
    zypper --non-interactive install $4 </dev/null
  elif command -v pacman >/dev/null 2>&1; then
    pacman -Sy --noconfirm --needed $5 </dev/null
  else
    return 1
  fi
}

# ?ffmpeg=true: the distribution's ffmpeg (ffprobe) when a package manager is there; the node runs without.
install_ffmpeg() {
  step 'install ffmpeg'
  if command -v ffprobe >/dev/null 2>&1; then
    info "ffmpeg is present"
  elif ! is_root; then
    warn "installing ffmpeg needs root; the node runs without it (media probing off)"
  elif install_packages ffmpeg ffmpeg-free ffmpeg ffmpeg ffmpeg; then
    ok "ffmpeg installed"
  else
    warn "no package manager could install ffmpeg; the node runs without it (media probing off)"
  fi
}

print_node() {
  info "node      $NODE_ID ($NODE_NAME), $SERVICE"
  info "work dir  $WORK"
  info "script    $KIND, from config service $CONTROL_VERSION"
}
