import { describe, expect, it } from 'vitest';
import type { StorageEntry, Upload } from '@svc/contracts';
import { ApiError } from '../../api/client.js';
import { runUpload, type UploadProgress, type UploadTransport } from './upload-runner.js';

const KiB = 1024;

/** An in-memory storage node: records the bytes of each chunk, can fail chunks and lose them. */
class FakeNode implements UploadTransport {
  readonly chunks = new Map<number, Uint8Array>();
  readonly calls: string[] = [];
  failures: ((index: number) => ApiError | undefined)[] = [];
  loseOnComplete: number[] = [];
  upload: Upload | undefined;

  async create(body: { path: string; size: number; overwrite: boolean; chunkSize: number; sha256?: string }) {
    this.calls.push(`create ${body.path} ${body.chunkSize}${body.sha256 ? ' sha' : ''}`);
    this.upload = {
      id: 'u1',
      mountId: 'm',
      path: body.path,
      size: body.size,
      sha256: body.sha256 ?? null,
      overwrite: body.overwrite,
      chunkSize: body.chunkSize,
      chunkCount: Math.ceil(body.size / body.chunkSize),
      received: [],
      state: 'open',
      createdAt: '',
      expiresAt: '',
    };
    return this.upload;
  }

  async status(uploadId: string) {
    this.calls.push(`status ${uploadId}`);
    return { ...this.upload!, received: [...this.chunks.keys()].sort((a, b) => a - b) };
  }

  async putChunk(_id: string, index: number, body: Blob, onProgress: (loaded: number) => void) {
    this.calls.push(`put ${index}`);
    const failure = this.failures.shift()?.(index);
    if (failure) throw failure;
    const bytes = new Uint8Array(await body.arrayBuffer());
    const upload = this.upload!;
    const expected = Math.min(upload.size, (index + 1) * upload.chunkSize) - index * upload.chunkSize;
    if (bytes.length !== expected) throw new ApiError(400, 'INVALID_CHUNK', 'wrong length');
    onProgress(bytes.length);
    this.chunks.set(index, bytes);
  }

  async complete() {
    this.calls.push('complete');
    for (const index of this.loseOnComplete.splice(0)) this.chunks.delete(index);
    const upload = this.upload!;
    const missing = Array.from({ length: upload.chunkCount }, (_, index) => index).filter(
      (index) => !this.chunks.has(index),
    );
    if (missing.length > 0) throw new ApiError(409, 'UPLOAD_INCOMPLETE', 'missing', { missing });
    const entry: StorageEntry = { name: 'f', path: upload.path, type: 'file', size: upload.size, mtime: '' };
    return { upload: { ...upload, state: 'completed' as const }, entry };
  }

  async abort(uploadId: string) {
    this.calls.push(`abort ${uploadId}`);
  }

  assembled(): Uint8Array {
    const out = new Uint8Array(this.upload!.size);
    for (const [index, bytes] of this.chunks) out.set(bytes, index * this.upload!.chunkSize);
    return out;
  }
}

function fileOf(size: number): Blob {
  const bytes = new Uint8Array(size);
  for (let index = 0; index < size; index += 1) bytes[index] = index % 251;
  return new Blob([bytes]);
}

const noWait = async () => undefined;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

describe('runUpload', () => {
  it('sends every chunk with exact ranges and completes', async () => {
    const node = new FakeNode();
    const source = fileOf(600 * KiB + 3);
    const progress: UploadProgress[] = [];
    const entry = await runUpload({
      source,
      path: 'Movies/a.mkv',
      overwrite: false,
      chunkSize: 256 * KiB,
      transport: node,
      signal: new AbortController().signal,
      onProgress: (value) => progress.push(value),
    });
    expect(entry.path).toBe('Movies/a.mkv');
    expect(node.calls).toEqual(['create Movies/a.mkv 262144', 'put 0', 'put 1', 'put 2', 'complete']);
    expect(sameBytes(node.assembled(), new Uint8Array(await source.arrayBuffer()))).toBe(true);
    const sent = progress.filter((value) => value.phase === 'sending').map((value) => value.sent);
    expect(sent).toEqual([...sent].sort((a, b) => a - b));
    expect(progress.at(-1)).toEqual({ phase: 'completing', sent: source.size, size: source.size });
  });

  it('clamps a requested chunk size to what the node accepts', async () => {
    const node = new FakeNode();
    await runUpload({
      source: fileOf(10),
      path: 'x',
      overwrite: false,
      chunkSize: 1,
      transport: node,
      signal: new AbortController().signal,
      onProgress: () => undefined,
    });
    expect(node.calls[0]).toBe('create x 262144');
  });

  it('retries transient chunk failures and gives up on refusals', async () => {
    const node = new FakeNode();
    node.failures = [
      () => new ApiError(0, 'NETWORK_ERROR', 'reset'),
      () => new ApiError(502, 'HTTP_502', 'x'),
    ];
    await runUpload({
      source: fileOf(10),
      path: 'x',
      overwrite: false,
      transport: node,
      signal: new AbortController().signal,
      onProgress: () => undefined,
      wait: noWait,
    });
    expect(node.calls.filter((call) => call === 'put 0')).toHaveLength(3);

    const refusing = new FakeNode();
    refusing.failures = [() => new ApiError(409, 'UPLOAD_CLOSED', 'closed')];
    await expect(
      runUpload({
        source: fileOf(10),
        path: 'x',
        overwrite: false,
        transport: refusing,
        signal: new AbortController().signal,
        onProgress: () => undefined,
        wait: noWait,
      }),
    ).rejects.toMatchObject({ code: 'UPLOAD_CLOSED' });
    expect(refusing.calls).toEqual(['create x 8388608', 'put 0']);
  });

  it('sends chunks again that completion reports missing', async () => {
    const node = new FakeNode();
    node.loseOnComplete = [1];
    await runUpload({
      source: fileOf(600 * KiB),
      path: 'x',
      overwrite: false,
      chunkSize: 256 * KiB,
      transport: node,
      signal: new AbortController().signal,
      onProgress: () => undefined,
    });
    expect(node.calls).toEqual([
      'create x 262144',
      'put 0',
      'put 1',
      'put 2',
      'complete',
      'put 1',
      'complete',
    ]);
  });

  it('resumes an open upload with the chunks the node lacks', async () => {
    const node = new FakeNode();
    await node.create({ path: 'x', size: 600 * KiB, overwrite: false, chunkSize: 256 * KiB });
    node.chunks.set(0, new Uint8Array(256 * KiB));
    node.calls.length = 0;
    await runUpload({
      source: fileOf(600 * KiB),
      path: 'x',
      overwrite: false,
      transport: node,
      signal: new AbortController().signal,
      onProgress: () => undefined,
      resumeId: 'u1',
    });
    expect(node.calls).toEqual(['status u1', 'put 1', 'put 2', 'complete']);
  });

  it('stops when aborted', async () => {
    const node = new FakeNode();
    const controller = new AbortController();
    let started: Upload | undefined;
    const run = runUpload({
      source: fileOf(600 * KiB),
      path: 'x',
      overwrite: false,
      chunkSize: 256 * KiB,
      transport: node,
      signal: controller.signal,
      onStarted: (upload) => {
        started = upload;
      },
      onProgress: (value) => {
        if (value.phase === 'sending' && value.sent >= 256 * KiB) controller.abort();
      },
    });
    await expect(run).rejects.toThrow();
    expect(started?.id).toBe('u1');
    expect(node.calls).not.toContain('complete');
    expect(node.calls.filter((call) => call.startsWith('put'))).toEqual(['put 0']);
  });

  it('sends the checksum when there is one and completes an empty file without chunks', async () => {
    const node = new FakeNode();
    await runUpload({
      source: fileOf(0),
      path: 'empty',
      overwrite: false,
      sha256: 'a'.repeat(64),
      transport: node,
      signal: new AbortController().signal,
      onProgress: () => undefined,
    });
    expect(node.calls).toEqual(['create empty 8388608 sha', 'complete']);
  });
});
