import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { chosenTab, urlWithTab } from './tab-url.ts';

const tabs = [{ id: 'settings' }, { id: 'captions' }, { id: 'share' }];

describe('the tab in the URL', () => {
  it('opens the tab the URL names, else the first', () => {
    assert.equal(chosenTab(tabs, 'tab=captions'), 'captions');
    assert.equal(chosenTab(tabs, 'x=1&tab=share'), 'share');
    assert.equal(chosenTab(tabs, ''), 'settings');
    assert.equal(chosenTab(tabs, 'tab=gone'), 'settings', 'a tab the page no longer has (a video not ready yet)');
  });

  it('writes the chosen tab into the URL, keeping the rest of its query; the first tab is the bare URL', () => {
    assert.equal(urlWithTab('/dashboard/videos/v1', 'captions', 'settings'), '/dashboard/videos/v1?tab=captions');
    assert.equal(
      urlWithTab('/dashboard/videos/v1?tab=captions&x=1', 'share', 'settings'),
      '/dashboard/videos/v1?tab=share&x=1',
    );
    assert.equal(urlWithTab('/dashboard/videos/v1?tab=captions', 'settings', 'settings'), '/dashboard/videos/v1');
  });
});
