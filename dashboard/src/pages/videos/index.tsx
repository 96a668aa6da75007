// Placeholder until the videos pages land (issue #12, dash-media's part).
export function VideosPage() {
  return (
    <section>
      <h1>Videos</h1>
    </section>
  );
}
