import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { doctorOptionsFromArgs, formatChecks, runDoctor } from '../../src/cli/doctor.js';

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('svc doctor command line', () => {
  it('reads the flags, with a 65 s hold by default', () => {
    const options = doctorOptionsFromArgs([
      '--console',
      'https://media.example.com',
      '--playback',
      'https://play.example.com',
      '--token',
      'svc_adm_x',
      '--resolve',
      'Play.example.com:127.0.0.1',
      '--json',
    ]);
    expect(options.holdMs).toBe(65_000);
    expect(options.playback?.hostname).toBe('play.example.com');
    expect(options.resolve.get('play.example.com')).toBe('127.0.0.1');
    expect(options.json).toBe(true);
  });

  it('answers 2 with the usage on wrong flags', async () => {
    for (const args of [
      [],
      ['--console', 'ftp://x', '--token', 't'],
      ['--console', 'https://x'],
      ['--bogus'],
    ]) {
      const out = sink();
      const err = sink();
      expect(await runDoctor(args, { stdout: out.stream, stderr: err.stream })).toBe(2);
      expect(err.text()).toContain('usage: svc doctor');
      expect(out.text()).toBe('');
    }
  });

  it('prints OK or the problem with its fix on each line', () => {
    const text = formatChecks([
      { id: 'a', title: 'First', status: 'ok', detail: 'fine' },
      { id: 'b', title: 'Second', status: 'problem', detail: 'broken', fix: 'do this' },
    ]);
    expect(text).toBe('OK      First [a]: fine\nPROBLEM Second [b]: broken\n        fix: do this\n');
  });
});
