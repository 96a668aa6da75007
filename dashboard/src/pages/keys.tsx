export function KeysPage() {
  return (
    <section>
      <h1>API keys</h1>
    </section>
  );
}
