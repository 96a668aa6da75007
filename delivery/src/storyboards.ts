// Storyboards on the delivery host: `storyboard.vtt` and its sprite sheets `storyboard-<n>.jpg`,
// beside the master playlist in every path family (paths.ts). The stored VTT names its sheets
// relatively (`storyboard-0.jpg#xywh=0,0,160,90`), so it resolves in any family as is; when the
// request carried a token, each sheet URI gets it (before the `#xywh` fragment), as rewritten
// playlists do, so a player can fetch the sheets of a private video.

/** The VTT with `suffix` (`?token=...`) after every relative image URI of its cues. */
export function rewriteStoryboardVtt(text: string, suffix: string): string {
  if (!suffix) return text;
  let inCue = false;
  return text
    .split(/\r?\n/)
    .map((line) => {
      if (line.includes('-->')) {
        inCue = true;
        return line;
      }
      if (line.trim() === '') {
        inCue = false;
        return line;
      }
      if (!inCue || /^[a-z][a-z0-9+.-]*:/i.test(line)) return line;
      const hash = line.indexOf('#');
      return hash === -1 ? `${line}${suffix}` : `${line.slice(0, hash)}${suffix}${line.slice(hash)}`;
    })
    .join('\n');
}
