// A video's share links: create (expiry, view limit, viewer), list with their views, revoke; both
// URLs of a new link are shown with Copy buttons.
import { useState } from 'preact/hooks';
import type { CreateShareLinkParams, ShareLink } from '@kino/sdk';
import { api, json } from '../../api.ts';
import { useToast } from '../../components/toasts.tsx';
import { CopyButton } from '../../components/copy-chip.tsx';
import { useList, useListChange } from '../../use-list.ts';

/** Share links: create (expiry, view limit, viewer), list with their views, revoke. */
export function ShareLinks({ videoPath, orgId, videoId }: { videoPath: string; orgId: string; videoId: string }) {
  const links = useList(['share-links', orgId, videoId], () => api<{ shareLinks: ShareLink[] }>(`${videoPath}/share`));
  const [expirationHours, setExpirationHours] = useState('168');
  const [maxViews, setMaxViews] = useState('');
  const [viewerEmail, setViewerEmail] = useState('');
  const toast = useToast();
  const create = useListChange(
    links,
    (params: CreateShareLinkParams) => api<ShareLink>(`${videoPath}/share`, json('POST', params)),
    () => toast('Share link created.'),
  );
  const revoke = useListChange(
    links,
    (linkId: string) => api(`${videoPath}/share/${encodeURIComponent(linkId)}`, { method: 'DELETE' }),
    () => toast('Share link revoked.'),
  );

  return (
    <section data-testid="share-links">
      <h2>Share links</h2>
      <form
        class="share-form"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate({
            expirationHours: Number(expirationHours),
            ...(maxViews ? { maxViews: Number(maxViews) } : {}),
            ...(viewerEmail.trim() ? { viewerEmail: viewerEmail.trim() } : {}),
          });
        }}
      >
        <label>
          Expires after
          <select value={expirationHours} onChange={(event) => setExpirationHours(event.currentTarget.value)}>
            <option value="1">1 hour</option>
            <option value="24">1 day</option>
            <option value="168">7 days</option>
            <option value="720">30 days</option>
            <option value="8760">1 year</option>
          </select>
        </label>
        <label>
          Max views
          <input
            type="number"
            min={1}
            value={maxViews}
            placeholder="no limit"
            onInput={(event) => setMaxViews(event.currentTarget.value)}
          />
        </label>
        <label>
          Viewer email
          <input type="email" value={viewerEmail} onInput={(event) => setViewerEmail(event.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" data-testid="share-create" disabled={create.isPending}>
          Create link
        </button>
      </form>
      {create.error && <p class="error">{(create.error as Error).message}</p>}
      {create.data && (
        <div class="secret" data-testid="share-created">
          <div class="share-url">
            Watch page: <code data-testid="share-url">{create.data.shareUrl}</code>{' '}
            <CopyButton text={create.data.shareUrl} />
          </div>
          <div class="share-url">
            Direct HLS: <code>{create.data.directUrl}</code> <CopyButton text={create.data.directUrl} />
          </div>
        </div>
      )}
      {links.list.data && links.list.data.shareLinks.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Link</th>
              <th>Views</th>
              <th>Expires</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {links.list.data.shareLinks.map((link) => (
              <tr key={link.id} data-testid="share-link-row">
                <td>
                  <a href={link.shareUrl} target="_blank" rel="noreferrer">
                    {link.viewerEmail ?? link.id}
                  </a>
                </td>
                <td>
                  {link.views}
                  {link.maxViews !== null ? ` / ${link.maxViews}` : ''}
                </td>
                <td>{new Date(link.expiresAt).toLocaleString()}</td>
                <td>
                  <button type="button" class="link" onClick={() => revoke.mutate(link.id)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
