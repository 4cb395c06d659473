const en = {
  title: 'Diagnostics',
  intro:
    'The reverse-proxy troubleshooting list, checked by the application: it calls every manual address and this console through their proxies, and reads the node records. The same checks as svc doctor; see docs/reverse-proxy.md.',
  hold: 'Pause of the held probes (seconds)',
  holdHint: 'Longer than the read timeout to look for (many proxies default to 60 s)',
  run: 'Run checks',
  running: 'Checking… the held probes take about {{seconds}} s.',
  fix: 'Fix',
  status: {
    ok: 'OK',
    problem: 'Problem',
    skipped: 'Skipped',
  },
  check: {
    'playback-site': 'Playback domain reaches the play-agent',
    'endpoint-token': 'Endpoint token injected by the playback proxy',
    'playback-range': 'Range requests pass unchanged',
    'playback-compression': 'No compression on playback',
    'playback-buffering': 'Playback answers stream without buffering',
    'playback-timeout': 'Long playback answers are not cut',
    'console-site': 'Console site answers',
    'console-buffering': 'Console event streams (SSE) are not buffered',
    'console-timeout': 'Long console answers are not cut',
    'manual-address-reachable': 'Manual addresses reachable',
    'external-address': 'Clients are handed a reachable playback address',
    'node-pending': 'No node stuck in PENDING',
    'play-agent-port': 'Play-agents on one machine use different ports',
    nodes: 'Node records readable',
    diagnostics: 'Diagnostics ran',
  },
};

type Shape<T> = { [K in keyof T]: T[K] extends string ? string : Shape<T[K]> };

const zh: Shape<typeof en> = {
  title: '诊断',
  intro:
    '由应用按反向代理故障排查清单进行检查：经各自的代理访问每个手动地址和本控制台，并读取节点记录。与 svc doctor 的检查相同，见 docs/reverse-proxy.md。',
  hold: '保持探测的暂停时长（秒）',
  holdHint: '应长于要排查的读取超时（许多代理默认 60 秒）',
  run: '运行检查',
  running: '正在检查……保持探测约需 {{seconds}} 秒。',
  fix: '修复方法',
  status: {
    ok: '正常',
    problem: '有问题',
    skipped: '已跳过',
  },
  check: {
    'playback-site': '播放域名到达播放节点',
    'endpoint-token': '播放代理注入了端点令牌',
    'playback-range': 'Range 请求原样通过',
    'playback-compression': '播放站点未压缩',
    'playback-buffering': '播放响应不经缓冲直接传输',
    'playback-timeout': '长时间的播放响应不被截断',
    'console-site': '控制台站点有响应',
    'console-buffering': '控制台事件流（SSE）未被缓冲',
    'console-timeout': '长时间的控制台响应不被截断',
    'manual-address-reachable': '手动地址可达',
    'external-address': '客户端拿到可访问的播放地址',
    'node-pending': '没有停留在 PENDING 的节点',
    'play-agent-port': '同一台机器上的播放节点端口不冲突',
    nodes: '节点记录可读取',
    diagnostics: '诊断已运行',
  },
};

export const diagnosticsMessages = { en, zh };
