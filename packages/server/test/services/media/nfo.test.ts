import { describe, expect, it } from 'vitest';
import { parseNfo } from '../../../src/services/media/metadata/nfo.js';

describe('Kodi .nfo files', () => {
  it('reads a movie nfo with uniqueid, entities and the premiere date', () => {
    const nfo = parseNfo(`<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>
<movie>
  <title>Heat &amp; Dust</title>
  <originaltitle>Heat</originaltitle>
  <year>1995</year>
  <premiered>1995-12-15</premiered>
  <plot>Robbers &lt;and&gt; a detective.</plot>
  <uniqueid type="imdb">tt0113277</uniqueid>
  <uniqueid type="tmdb" default="true">949</uniqueid>
  <thumb aspect="poster">https://example.invalid/p.jpg</thumb>
</movie>`);
    expect(nfo).toEqual({
      root: 'movie',
      title: 'Heat & Dust',
      originalTitle: 'Heat',
      year: 1995,
      releaseDate: '1995-12-15',
      plot: 'Robbers <and> a detective.',
      tmdbId: '949',
      imdbId: 'tt0113277',
      seasonNumber: null,
      episodeNumber: null,
    });
  });

  it('reads the older tmdbid/imdbid/id tags, releasedate, and a URL line after the XML', () => {
    const nfo =
      parseNfo(`<movie><title>X</title><tmdbid>603</tmdbid><id>tt0133093</id><releasedate>1999-03-31</releasedate></movie>
https://www.themoviedb.org/movie/603`);
    expect(nfo).toMatchObject({
      title: 'X',
      tmdbId: '603',
      imdbId: 'tt0133093',
      releaseDate: '1999-03-31',
      year: 1999,
    });
  });

  it('reads tvshow and the first of several episodedetails', () => {
    expect(
      parseNfo(
        '<tvshow><title>Show</title><year>2020</year><uniqueid type="tmdb">1</uniqueid></tvshow>',
        'tvshow',
      ),
    ).toMatchObject({
      root: 'tvshow',
      title: 'Show',
      tmdbId: '1',
    });
    const episode = parseNfo(
      '<episodedetails><title>One</title><season>1</season><episode>1</episode><aired>2020-03-01</aired></episodedetails>' +
        '<episodedetails><title>Two</title><season>1</season><episode>2</episode></episodedetails>',
      'episodedetails',
    );
    expect(episode).toMatchObject({
      title: 'One',
      seasonNumber: 1,
      episodeNumber: 1,
      releaseDate: '2020-03-01',
      year: 2020,
    });
  });

  it('refuses documents with a DOCTYPE: no external entity is read, nothing expands', () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE movie [<!ENTITY x SYSTEM "file:///etc/passwd">]><movie><title>&x;</title></movie>`;
    expect(parseNfo(xxe)).toBeNull();
    const laughs = `<!DOCTYPE movie [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><movie><title>&b;</title></movie>`;
    expect(parseNfo(laughs)).toBeNull();
  });

  it('ignores text that is not an nfo, and the wrong kind of nfo', () => {
    expect(parseNfo('https://www.imdb.com/title/tt0113277/')).toBeNull();
    expect(parseNfo('<movie><title>broken</movie')).toBeNull();
    expect(parseNfo('<tvshow><title>Show</title></tvshow>', 'movie')).toBeNull();
  });
});
