import { describe, expect, it } from 'vitest';
import { protoA, type ProtoADeclaration } from '../../../src/services/play-agent/proto-a/declarations.js';
import { caseInsensitiveObject, queryString } from '../../../src/services/play-agent/proto-a/schema.js';

describe('caseInsensitiveObject', () => {
  const schema = caseInsensitiveObject({ UserId: queryString, api_key: queryString });

  it('maps names in any letter case onto the shape and keeps unknown names as they are', () => {
    expect(schema.parse({ userid: 'u1', Api_Key: 'k', Other: 'x' })).toEqual({
      UserId: 'u1',
      api_key: 'k',
      Other: 'x',
    });
    expect(schema.parse({ USERID: 'u2' })).toEqual({ UserId: 'u2' });
  });

  it('gathers values of names that differ only in case, first non-empty first', () => {
    expect(schema.parse({ userId: '', UserId: 'u3' })).toEqual({ UserId: 'u3' });
    expect(schema.parse({ userId: ['u4', 'u5'], USERID: 'u6' })).toEqual({ UserId: 'u4' });
  });
});

describe('PROTO_A query and body schemas', () => {
  it('reads the Items query whatever the case of its names', () => {
    const query = protoA.GetItems.query.parse({
      startindex: '5',
      LIMIT: '20',
      recursive: 'TRUE',
      includeItemTypes: 'Movie,Episode',
      IncludeItemTypes: 'Series',
      isPlayed: '0',
      sortBy: ['SortName', 'ProductionYear'],
      Unknown: 'ignored',
    });
    expect(query).toMatchObject({
      StartIndex: 5,
      Limit: 20,
      Recursive: true,
      IncludeItemTypes: ['Movie', 'Episode', 'Series'],
      IsPlayed: false,
      SortBy: ['SortName', 'ProductionYear'],
      Unknown: 'ignored',
    });
  });

  it('refuses values of the wrong type', () => {
    expect(protoA.GetItems.query.safeParse({ limit: 'ten' }).success).toBe(false);
    expect(protoA.GetItems.query.safeParse({ Recursive: 'maybe' }).success).toBe(false);
    expect(protoA.GetEpisodes.query.safeParse({ season: '1.5' }).success).toBe(false);
  });

  it('reads report and UserData bodies in PascalCase or camelCase, null as absent', () => {
    expect(
      protoA.ReportPlaybackProgress.body.parse({ itemId: 'abc', positionTicks: 10, isPaused: null }),
    ).toMatchObject({ ItemId: 'abc', PositionTicks: 10, IsPaused: null });
    expect(protoA.ReportPlaybackStopped.body.parse(undefined)).toEqual({});
    expect(protoA.UpdateUserItemData.body.safeParse({ played: 'yes' }).success).toBe(false);
    expect(protoA.UpdateUserItemData.body.safeParse({ PlayCount: -1 }).success).toBe(false);
    expect(protoA.UpdateUserItemData.body.parse({ lastPlayedDate: null })).toEqual({ LastPlayedDate: null });
  });

  it('reads the sign-in from a body or leaves an absent body to the query', () => {
    expect(protoA.AuthenticateUserByName.body.parse({ username: 'ann', PW: 'secret' })).toEqual({
      Username: 'ann',
      Pw: 'secret',
    });
    expect(protoA.AuthenticateUserByName.body.parse(undefined)).toBeUndefined();
    expect(protoA.AuthenticateUserByName.body.parse(null)).toBeNull();
    expect(protoA.AuthenticateUserByName.query.parse({ USERNAME: 'ann', pw: 's' })).toMatchObject({
      Username: 'ann',
      Pw: 's',
    });
  });

  it('gives every route an id and, except the preflight, a query schema', () => {
    for (const [name, route] of Object.entries<ProtoADeclaration>(protoA)) {
      expect(route.id).toBe(`proto-a.${name}`);
      if (name !== 'Preflight') expect(route.query, name).toBeDefined();
    }
  });
});
