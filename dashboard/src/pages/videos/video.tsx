// Placeholder until the video page lands (issue #12, dash-media's part).
export function VideoPage({ publicID }: { publicID?: string }) {
  return (
    <section>
      <h1>Video {publicID}</h1>
    </section>
  );
}
