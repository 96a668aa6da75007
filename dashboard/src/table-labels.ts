// On a phone every table row is a card (styles.css, max-width 720 px), where a cell no longer sits
// under its column's header: each cell carries its header's words as `data-label`, which the card
// shows before the value. One observer labels every table any page renders, so no page repeats its
// headers in its cells; a cell across several columns (a row of details) gets no label.

/** Labels the cells of every table under `root` now and whenever rows are rendered. */
export function labelTableCells(root: HTMLElement): void {
  const label = () => {
    for (const table of Array.from(root.querySelectorAll('table'))) {
      const headers = Array.from(table.querySelectorAll('thead th'), (th) => th.textContent?.trim() ?? '');
      for (const row of Array.from(table.querySelectorAll('tbody tr'))) {
        row.querySelectorAll<HTMLTableCellElement>(':scope > td, :scope > th').forEach((cell, k) => {
          const text = cell.colSpan > 1 ? '' : (headers[k] ?? '');
          if (cell.getAttribute('data-label') !== text) cell.setAttribute('data-label', text);
        });
      }
    }
  };
  label();
  // Attributes are not observed, so the labels set here do not call this again.
  new MutationObserver(label).observe(root, { childList: true, subtree: true });
}
