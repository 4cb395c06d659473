import { describe, expect, it } from 'vitest';
import { parseMultistatus } from '../../../src/services/storage/providers/webdav-xml.js';

describe('WebDAV multistatus reader', () => {
  it('reads resources whatever the namespace prefix, with entities and CDATA', () => {
    const xml = `<?xml version="1.0"?>
      <!-- a comment -->
      <multistatus xmlns="DAV:" xmlns:lp1="DAV:">
        <response><href>/dav/</href><propstat><prop><resourcetype><collection/></resourcetype></prop>
          <status>HTTP/1.1 200 OK</status></propstat></response>
        <response><href>http://host/dav/a%20%26%20b.mkv</href>
          <propstat><prop><lp1:getcontentlength>1234</lp1:getcontentlength>
            <lp1:getlastmodified>Mon, 01 Jan 2024 10:00:00 GMT</lp1:getlastmodified><resourcetype/></prop>
            <status>HTTP/1.1 200 OK</status></propstat>
          <propstat><prop><getcontenttype/></prop><status>HTTP/1.1 404 Not Found</status></propstat></response>
        <D:response xmlns:D="DAV:"><D:href><![CDATA[/dav/x&y/]]></D:href><D:propstat><D:prop>
          <D:resourcetype><D:collection/></D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status>
          </D:propstat></D:response>
        <response><href>/dav/amp&amp;.txt</href><propstat><prop><getcontentlength>0</getcontentlength></prop>
          <status>HTTP/1.1 200 OK</status></propstat></response>
      </multistatus>`;
    expect(parseMultistatus(xml)).toEqual([
      { href: '/dav/', collection: true, size: null, mtime: null },
      {
        href: 'http://host/dav/a%20%26%20b.mkv',
        collection: false,
        size: 1234,
        mtime: new Date('2024-01-01T10:00:00Z'),
      },
      { href: '/dav/x&y/', collection: true, size: null, mtime: null },
      { href: '/dav/amp&.txt', collection: false, size: 0, mtime: null },
    ]);
  });

  it('ignores properties of failed propstats', () => {
    const xml = `<d:multistatus xmlns:d="DAV:"><d:response><d:href>/f</d:href><d:propstat><d:prop>
      <d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 403 Forbidden</d:status>
      </d:propstat></d:response></d:multistatus>`;
    expect(parseMultistatus(xml)[0]?.collection).toBe(false);
  });

  it('reads a multistatus under any prefix other than D:', () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?>
      <lp:multistatus xmlns:lp="DAV:" xmlns:ns0="http://apache.org/dav/props/">
        <lp:response><lp:href>/remote.php/dav/files/u/Films/</lp:href>
          <lp:propstat><lp:prop><lp:resourcetype><lp:collection/></lp:resourcetype>
            <lp:quota-available-bytes>5000</lp:quota-available-bytes><lp:quota-used-bytes>300</lp:quota-used-bytes>
            <ns0:executable>F</ns0:executable></lp:prop>
          <lp:status>HTTP/1.1 200 OK</lp:status></lp:propstat></lp:response>
        <lp:response><lp:href>/remote.php/dav/files/u/Films/Le%20Film%20(2020).mkv</lp:href>
          <lp:propstat><lp:prop><lp:resourcetype/><lp:getcontentlength>9007199254740991</lp:getcontentlength>
            <lp:getlastmodified>Tue, 02 Jan 2024 03:04:05 GMT</lp:getlastmodified></lp:prop>
          <lp:status>HTTP/1.1 200 OK</lp:status></lp:propstat></lp:response>
      </lp:multistatus>`;
    expect(parseMultistatus(xml)).toEqual([
      {
        href: '/remote.php/dav/files/u/Films/',
        collection: true,
        size: null,
        mtime: null,
        quotaAvailableBytes: 5000,
        quotaUsedBytes: 300,
      },
      {
        href: '/remote.php/dav/files/u/Films/Le%20Film%20(2020).mkv',
        collection: false,
        size: 9007199254740991,
        mtime: new Date('2024-01-02T03:04:05Z'),
      },
    ]);
  });

  it('reads a multistatus in the default namespace, without any prefix', () => {
    const xml = `<multistatus xmlns="DAV:"><response><href>/dav/Series/</href><propstat><prop>
      <resourcetype><collection/></resourcetype><getlastmodified>Wed, 03 Jan 2024 00:00:00 GMT</getlastmodified>
      </prop><status>HTTP/1.1 200 OK</status></propstat></response>
      <response><href>/dav/Series/ep%2001.mp4</href><propstat><prop><resourcetype/>
      <getcontentlength>77</getcontentlength></prop><status>HTTP/1.1 200 OK</status></propstat></response>
      </multistatus>`;
    expect(parseMultistatus(xml)).toEqual([
      { href: '/dav/Series/', collection: true, size: null, mtime: new Date('2024-01-03T00:00:00Z') },
      { href: '/dav/Series/ep%2001.mp4', collection: false, size: 77, mtime: null },
    ]);
  });

  it('decodes XML entities and character references in names', () => {
    const xml = `<D:multistatus xmlns:D="DAV:">
      <D:response><D:href>/dav/Tom &amp; Jerry &lt;1&gt; &quot;q&quot; &apos;a&apos;.mkv</D:href>
        <D:propstat><D:prop><D:getcontentlength>1</D:getcontentlength></D:prop>
        <D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
      <D:response><D:href>/dav/caf&#233; &#x4E2D;&#x6587;.mkv</D:href>
        <D:propstat><D:prop><D:getcontentlength>2</D:getcontentlength></D:prop>
        <D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
    </D:multistatus>`;
    expect(parseMultistatus(xml).map((resource) => resource.href)).toEqual([
      `/dav/Tom & Jerry <1> "q" 'a'.mkv`,
      '/dav/café 中文.mkv',
    ]);
  });

  it('reads sizes only when they are whole non-negative numbers, and dates only when valid', () => {
    const xml = `<d:multistatus xmlns:d="DAV:"><d:response><d:href>/x</d:href><d:propstat><d:prop>
      <d:getcontentlength>-5</d:getcontentlength><d:getlastmodified>not a date</d:getlastmodified>
      <d:quota-available-bytes>1e3</d:quota-available-bytes></d:prop>
      <d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>`;
    expect(parseMultistatus(xml)).toEqual([{ href: '/x', collection: false, size: null, mtime: null }]);
  });
});
