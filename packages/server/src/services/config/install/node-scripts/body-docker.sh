docker_ready() {
  need docker
  docker info </dev/null >/dev/null 2>&1 || die "docker does not answer (is the daemon running, may this user use it?)"
}

container_exists() { docker container inspect "$1" </dev/null >/dev/null 2>&1; }

pull_image() {
  if docker pull "$1" </dev/null >/dev/null; then
    ok "image $1"
  elif docker image inspect "$1" </dev/null >/dev/null 2>&1; then
    warn "cannot pull $1: using the image already on this machine"
  else
    die "cannot pull image $1. No public registry holds it: build it on this machine from the project's source with 'docker build -t $1 .' (in the folder with its Dockerfile) and run this command again, or push it to a registry this machine reaches and set SVC_NODE_IMAGE of the control plane to that reference (docs/node-install.md, Container form)"
  fi
}

# The container: named by the node id, host network, the work directory at /opt/<service_dir>.
run_container() {
  local user=()
  if is_root; then chown -R 10001:10001 "$WORK/data" "$WORK/logs"; else user=(--user "$(id -u):$(id -g)"); fi
  docker run -d --name "$NODE_ID" --network host --restart unless-stopped \
    --label "svc.node-id=$NODE_ID" --label "svc.service=$SERVICE" \
    -v "$WORK:/opt/$SERVICE_DIR" --env-file "$WORK/node.env" -e "SVC_DATA_DIR=/opt/$SERVICE_DIR/data" \
    ${user[@]+"${user[@]}"} "$1" node /app/packages/server/dist/svc.mjs node "$ROLE" </dev/null >/dev/null
}
