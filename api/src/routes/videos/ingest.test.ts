import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { nameFromUrl } from './ingest.ts';

describe("an ingested video's default name", () => {
  it("is the URL's last path segment, decoded", () => {
    assert.equal(nameFromUrl(new URL('https://files.example.com/talks/key%20note.mp4?sig=1')), 'key note.mp4');
    assert.equal(nameFromUrl(new URL('https://files.example.com/talks/keynote.mp4/')), 'keynote.mp4');
  });

  it('is the segment as written when it does not decode, and the host when there is none', () => {
    assert.equal(nameFromUrl(new URL('https://files.example.com/100%25%zz.mp4')), '100%25%zz.mp4');
    assert.equal(nameFromUrl(new URL('https://files.example.com/')), 'files.example.com');
  });

  it('is at most 255 characters', () => {
    assert.equal(nameFromUrl(new URL(`https://files.example.com/${'a'.repeat(300)}.mp4`)).length, 255);
  });
});
