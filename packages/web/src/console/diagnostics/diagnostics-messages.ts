const en = {
  title: 'Diagnostics',
  intro:
    'Checks of the node records against the reverse-proxy troubleshooting list. The checks that need a client outside the install (Range, compression, buffering, timeouts, the endpoint token) run with svc doctor; see docs/reverse-proxy.md.',
  playbackUrl: 'Proxied playback address',
  playbackUrlHint: 'For example https://play.example.com: checks that users are handed this address',
  run: 'Run checks',
  fix: 'Fix',
  status: {
    ok: 'OK',
    problem: 'Problem',
    skipped: 'Skipped',
  },
  check: {
    'manual-address-reachable': 'Manual addresses reachable',
    'node-pending': 'No node stuck in PENDING',
    'play-agent-port': 'Play-agents on one machine use different ports',
    'external-address': 'Played URLs use the playback domain',
  },
};

type Shape<T> = { [K in keyof T]: T[K] extends string ? string : Shape<T[K]> };

const zh: Shape<typeof en> = {
  title: '诊断',
  intro:
    '按反向代理故障排查清单检查节点记录。需要在安装之外发起请求的检查（Range、压缩、缓冲、超时、端点令牌）请使用 svc doctor，见 docs/reverse-proxy.md。',
  playbackUrl: '经代理的播放地址',
  playbackUrlHint: '例如 https://play.example.com：检查用户拿到的是否为此地址',
  run: '运行检查',
  fix: '修复方法',
  status: {
    ok: '正常',
    problem: '有问题',
    skipped: '已跳过',
  },
  check: {
    'manual-address-reachable': '手动地址可达',
    'node-pending': '没有停留在 PENDING 的节点',
    'play-agent-port': '同一台机器上的播放节点端口不冲突',
    'external-address': '播放地址使用播放域名',
  },
};

export const diagnosticsMessages = { en, zh };
