// Placeholder until the analytics page lands (issue #12, dash-media's part).
export function AnalyticsPage() {
  return (
    <section>
      <h1>Analytics</h1>
    </section>
  );
}
