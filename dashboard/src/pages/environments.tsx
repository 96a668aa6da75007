export function EnvironmentsPage() {
  return (
    <section>
      <h1>Environments</h1>
    </section>
  );
}
