import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installBackends } from '../support/install-backends.js';
import { makeVideo } from '../support/media-fixtures.js';
import {
  call,
  signInPlayer,
  startPlaybackInstall,
  type Json,
  type PlaybackInstall,
} from '../support/playback-install.js';

const EMBY_AUTH = (token: string) =>
  `MediaBrowser Client="Emby Web", Device="Chrome", DeviceId="dev-subs-1", Version="4.8.0", Token="${token}"`;
const compact = (id: string) => id.replace(/-/g, '');
/** The cue 1.0 s → 2.5 s, in WebVTT's long or short time form. */
const CUE = /(00:)?00:01\.000 --> (00:)?00:02\.500/;

/**
 * Subtitles as browsers need them: an MKV with an embedded SubRip stream, a SubRip file and an ASS file
 * beside it, each delivered as WebVTT by the play-agent's subtitle route (the embedded one and the ASS
 * file through the machine's ffmpeg).
 */
describe.each(installBackends())('subtitle delivery on $label', (backend) => {
  let env: PlaybackInstall;
  let mediaRoot: string;
  let token: string;
  let movieId: string;
  let streams: Json[];

  const get = (route: string) =>
    call(env.playAgent, 'GET', route, { headers: { 'x-emby-authorization': EMBY_AUTH(token) } });

  beforeAll(async () => {
    env = await startPlaybackInstall(backend.env);
    await env.createUser('subs', 'subs-password-1');
    mediaRoot = await mkdtemp(path.join(os.tmpdir(), 'svc-subtitles-'));
    const folder = path.join(mediaRoot, 'Subtitled (2022)');
    await makeVideo(path.join(folder, 'Subtitled (2022).mkv'), {
      seconds: 4,
      languages: ['eng'],
      format: 'mkv',
      embeddedSubtitleLanguage: 'fre',
    });
    await writeFile(
      path.join(folder, 'Subtitled (2022).en.srt'),
      '1\r\n00:00:01,000 --> 00:00:02,500\r\nExternal line\r\n',
    );
    await writeFile(
      path.join(folder, 'Subtitled (2022).ja.ass'),
      [
        '[Script Info]',
        'ScriptType: v4.00+',
        '',
        '[V4+ Styles]',
        'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding',
        'Style: Default,Arial,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1',
        '',
        '[Events]',
        'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
        'Dialogue: 0,0:00:01.00,0:00:02.50,Default,,0,0,0,,ASS line',
        '',
      ].join('\n'),
    );
    const libraryId = await env.addLocalLibrary('Subtitled', 'movies', mediaRoot);
    let userId: string;
    ({ token, userId } = await signInPlayer(
      env.playAgent,
      'MediaBrowser Client="Emby Web", DeviceId="dev-subs-1"',
      { username: 'subs', password: 'subs-password-1' },
    ));
    const items = await get(`/Users/${userId}/Items?ParentId=${compact(libraryId)}&Recursive=true`);
    movieId = String(((items.body.Items as Json[])[0] ?? {}).Id);
    const info = await call(env.playAgent, 'POST', `/Items/${movieId}/PlaybackInfo?UserId=${userId}`, {
      headers: { 'x-emby-authorization': EMBY_AUTH(token) },
      body: {},
    });
    expect(info.status, info.text).toBe(200);
    streams = ((info.body.MediaSources as Json[])[0]?.MediaStreams ?? []) as Json[];
  }, 300_000);

  afterAll(async () => {
    await env?.stop();
    await backend.cleanup();
    if (mediaRoot) await rm(mediaRoot, { recursive: true, force: true });
  });

  const subtitle = (match: (stream: Json) => boolean) => {
    const stream = streams.find((candidate) => candidate.Type === 'Subtitle' && match(candidate));
    expect(stream, JSON.stringify(streams)).toBeDefined();
    return `/Videos/${movieId}/${movieId}/Subtitles/${String(stream!.Index)}/Stream`;
  };

  it('extracts an embedded SubRip stream as WebVTT and as SubRip', async () => {
    const route = subtitle((stream) => stream.IsExternal === false);
    const vtt = await get(`${route}.vtt`);
    expect(vtt.status, vtt.text).toBe(200);
    expect(vtt.headers['content-type']).toMatch(/^text\/vtt/);
    expect(vtt.text.startsWith('WEBVTT')).toBe(true);
    // The embedded cue (0.5 s → 2 s) keeps the file's time base (its start offset included).
    expect(vtt.text).toMatch(/(00:)?00:00\.5\d\d --> (00:)?00:02\.0\d\d/);
    expect(vtt.text).toContain('Embedded line');
    // The second request is answered from the cache, with the same text.
    expect((await get(`${route}.vtt`)).text).toBe(vtt.text);
    const srt = await get(`${route}.srt`);
    expect(srt.status, srt.text).toBe(200);
    expect(srt.text).toMatch(/00:00:00,5\d\d --> 00:00:02,0\d\d/);
    expect((await get(`${route}.ass`)).body).toMatchObject({ error: { code: 'SUBTITLE_FORMAT' } });
  });

  it.each([
    ['srt', 'External line'],
    ['ass', 'ASS line'],
  ])('serves the %s file beside the video as WebVTT', async (codec, line) => {
    const vtt = await get(`${subtitle((stream) => stream.Codec === codec)}.vtt`);
    expect(vtt.status, vtt.text).toBe(200);
    expect(vtt.text.startsWith('WEBVTT')).toBe(true);
    expect(vtt.text).toMatch(CUE);
    expect(vtt.text).toContain(line);
  });

  it('refuses streams that are no subtitle and a token that is not valid', async () => {
    const video = streams.find((stream) => stream.Type === 'Video')!;
    const notSubtitle = await get(
      `/Videos/${movieId}/${movieId}/Subtitles/${String(video.Index)}/Stream.vtt`,
    );
    expect(notSubtitle.status).toBe(404);
    const route = subtitle((stream) => stream.IsExternal === false);
    const refused = await call(env.playAgent, 'GET', `${route}.vtt?api_key=svc_ply_bad`);
    expect(refused.status).toBe(401);
  });

  it('answers streams with CORS headers, so a <video crossorigin> page can load the file and its tracks', async () => {
    const answer = await call(
      env.playAgent,
      'GET',
      `/Videos/${movieId}/stream?static=true&api_key=${token}`,
      {
        headers: { origin: 'http://portal.example:18080', range: 'bytes=0-0' },
      },
    );
    expect(answer.status).toBe(206);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-expose-headers']).toMatch(/Content-Range/);
  });
});
