#!/usr/bin/env bash
# Installs the system tools the test suite drives (docs/testing.md). Quick and silent when all are present;
# otherwise installs them with apt-get when run as root, and when not root stops at once with the command
# to run. `npm test` and `.ci/run` call it first.
#
#   scripts/install-test-tools.sh           install what is missing (root) or say how (not root)
#   scripts/install-test-tools.sh --check   only list what is missing; exit 1 if anything is
set -euo pipefail

# Debian package, then how to see that it is there: a command (searched in the sbin folders too, where
# Debian puts nginx) or, for the CJK font the browser tests render Chinese pages with, the font's name.
# redis-server: the Redis outage tests start their own; postgresql-client: pg_isready and psql for CI's
# PostgreSQL pass; ffmpeg/ffprobe: generated media and probes; rclone: a real WebDAV server; curl: SSE
# clients; nginx: proxy and benchmark reference; caddy: `caddy validate` of the generated Caddyfile;
# chromium: the browser tests; shellcheck: node install scripts.
TOOLS=(
  "redis-server redis-server"
  "postgresql-client psql"
  "ffmpeg ffmpeg"
  "ffmpeg ffprobe"
  "rclone rclone"
  "curl curl"
  "nginx nginx"
  "caddy caddy"
  "chromium chromium"
  "fonts-wqy-microhei font:WenQuanYi Micro Hei"
  "shellcheck shellcheck"
)

present() {
  local probe=$1
  if [[ $probe == font:* ]]; then
    command -v fc-list >/dev/null 2>&1 && fc-list : family | grep -qiF "${probe#font:}"
  else
    PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" command -v "$probe" >/dev/null 2>&1
  fi
}

missing=()
for entry in "${TOOLS[@]}"; do
  package=${entry%% *}
  probe=${entry#* }
  if ! present "$probe" && [[ " ${missing[*]-} " != *" $package "* ]]; then missing+=("$package"); fi
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ ${1-} == --check ]]; then
  echo "missing test tools: ${missing[*]}"
  exit 1
fi

command="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "The tests need system tools that are missing: ${missing[*]}. Install them as root, then run again:" >&2
  echo "  sudo sh -c '$command'" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "The tests need system tools that are missing (${missing[*]}) and this machine has no apt-get: install them." >&2
  exit 1
fi

echo "installing test tools: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
