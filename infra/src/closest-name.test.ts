import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { closestName, editDistance } from './closest-name.ts';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and a swap of neighbours as one edit each', () => {
    assert.equal(editDistance('maxEdgeLength', 'maxEdgeLength'), 0);
    assert.equal(editDistance('videoQualty', 'videoQuality'), 1);
    assert.equal(editDistance('videoQuallity', 'videoQuality'), 1);
    assert.equal(editDistance('videoQuelity', 'videoQuality'), 1);
    assert.equal(editDistance('maxEdgeLenght', 'maxEdgeLength'), 1);
    assert.equal(editDistance('tokne', 'token'), 1);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('kitten', 'sitting'), 3);
  });
});

describe('closestName', () => {
  const process = ['storagePath', 'videoQuality', 'allowPublicAccess', 'maxEdgeLength', 'maxFrameRate', 'name'];

  it('names the known field a typo most likely came from, letter case ignored', () => {
    assert.equal(closestName('maxEdgeLenght', process), 'maxEdgeLength');
    assert.equal(closestName('videoQualty', process), 'videoQuality');
    assert.equal(closestName('maxedgelength', process), 'maxEdgeLength');
    assert.equal(closestName('storage_path', process), 'storagePath');
    assert.equal(closestName('nmae', process), 'name');
    assert.equal(closestName('tokne', ['token', 'bootstrap']), 'token');
  });

  it('names none when nothing is close: a field of another API, a new option', () => {
    assert.equal(closestName('bogusField', process), undefined);
    assert.equal(closestName('generatedSubtitles', process), undefined);
    assert.equal(closestName('id', process), undefined);
    assert.equal(closestName('anything', []), undefined);
  });

  it('prefers the closer name, then the first of equally close ones', () => {
    assert.equal(closestName('maxFrameRat', ['maxFrameRate', 'maxFrameRates']), 'maxFrameRate');
    assert.equal(closestName('ab', ['aa', 'bb']), 'aa');
  });
});
